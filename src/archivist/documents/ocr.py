"""Read the text of a PDF page that has none (a scan) with OCR.

Two engines, the first one installed wins:

* **Tesseract** (Debian ``tesseract-ocr``), called by PyMuPDF: measured here about four
  times faster than RapidOCR on a full R manual page (13-15 s against 68 s, both on a
  heavily loaded 2-core machine). Its text blocks become paragraphs.
* **RapidOCR** on ONNX Runtime, whose models ship inside the ``rapidocr-onnxruntime`` wheel
  (the ``ocr`` extra), so it needs nothing but pip. Its text lines are put back in reading
  order: top to bottom, a blank line where the vertical gap between two lines is larger
  than one and a half line heights.

Pages are rendered at ``DPI``.
"""

from __future__ import annotations

import threading
from typing import Any

from archivist.types import LoadError

__all__ = ["DPI", "OcrUnavailable", "ocr_page"]

DPI = 150
_ENGINE: Any = None
_ENGINE_LOCK = threading.Lock()


class OcrUnavailable(LoadError):
    """The OCR engine is not installed."""


def _engine() -> Any:
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError:
                raise OcrUnavailable(
                    "scanned pages need OCR: install Tesseract (apt-get install "
                    "tesseract-ocr) or pip install 'archivist[ocr]', or set ocr = off"
                ) from None
            _ENGINE = RapidOCR()
        return _ENGINE


def _tessdata() -> str | None:
    import pymupdf

    try:
        found = pymupdf.get_tessdata()
    except Exception:  # PyMuPDF raises when Tesseract is not installed
        return None
    return str(found) if found else None


def ocr_page(page: Any, engine: str | None = None) -> str:
    """The text of a PyMuPDF ``page``, read from its rendered image, as Markdown paragraphs.

    ``engine`` is ``"tesseract"`` or ``"rapidocr"``; by default the first one installed.
    """
    tessdata = _tessdata() if engine in (None, "tesseract") else None
    if engine == "tesseract" and tessdata is None:
        raise OcrUnavailable("Tesseract is not installed (apt-get install tesseract-ocr)")
    if tessdata is not None:
        textpage = page.get_textpage_ocr(dpi=DPI, full=True, tessdata=tessdata)
        blocks = page.get_text("blocks", textpage=textpage, sort=True)
        return "\n\n".join(" ".join(str(b[4]).split()) for b in blocks if str(b[4]).strip())
    return _rapidocr_page(page)


def _rapidocr_page(page: Any) -> str:
    import numpy as np

    pixmap = page.get_pixmap(dpi=DPI, colorspace="rgb", alpha=False)
    image = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(
        pixmap.height, pixmap.width, pixmap.n
    )
    result, _ = _engine()(image, use_cls=False)
    lines = []
    for box, text, _score in result or []:
        ys = [point[1] for point in box]
        xs = [point[0] for point in box]
        lines.append((min(ys), max(ys), min(xs), str(text).strip()))
    return _reading_order(lines)


def _reading_order(lines: list[tuple[float, float, float, str]]) -> str:
    """Join ``(top, bottom, left, text)`` boxes into lines and paragraphs."""
    lines = sorted((line for line in lines if line[3]), key=lambda line: (line[0], line[2]))
    parts: list[str] = []
    previous: tuple[float, float, float, str] | None = None
    for line in lines:
        if previous is not None:
            height = max(previous[1] - previous[0], 1.0)
            same_row = line[0] < previous[0] + height / 2
            gap = line[0] - previous[1]
            parts.append(" " if same_row else ("\n\n" if gap > 1.5 * height else "\n"))
        parts.append(line[3])
        previous = line
    return "".join(parts)
