"""OCR on a real scanned PDF: an R manual page rendered to an image and wrapped in a PDF."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pymupdf
import pytest
from tests.eval_data import EVAL_DIR, require_eval

from archivist.application import Application
from archivist.documents.loaders import load_file
from archivist.documents.ocr import _reading_order, _tessdata, ocr_page
from archivist.types import LoadError

PDFS = EVAL_DIR / "pdfs"
PHRASE = "statistical computation and graphics"  # on R-FAQ page 7, "2.1 What is R?"


def _scanned_pdf(tmp_path: Path) -> Path:
    """Page 1 has real text; page 2 is R-FAQ page 7 as a picture, with no text layer."""
    source_path = PDFS / "R-FAQ.pdf"
    require_eval(source_path)
    with pymupdf.open(source_path) as source:
        page = source[6]
        assert PHRASE in " ".join(page.get_text().split())
        png = page.get_pixmap(dpi=150).tobytes("png")
        rect = page.rect
    out = pymupdf.open()
    cover = out.new_page(width=rect.width, height=rect.height)
    for row, line in enumerate(
        [
            "A cover page with typed lines of real text on it, so that",
            "the loader reads this page as text and only the next page by OCR.",
            "It is long enough to be a chunk of its own.",
        ]
    ):
        cover.insert_text((72, 72 + 16 * row), line)
    out.new_page(width=rect.width, height=rect.height).insert_image(rect, stream=png)
    path = tmp_path / "scanned.pdf"
    out.save(path)
    return path


def _need_ocr_engine() -> None:
    if _tessdata() is None and importlib.util.find_spec("rapidocr_onnxruntime") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no OCR engine installed (make install-all installs Tesseract)")
        pytest.skip("no OCR engine: apt-get install tesseract-ocr or pip install archivist[ocr]")


@pytest.mark.slow
def test_scanned_pdf_is_ingested_with_its_page_numbers(
    tmp_path: Path, library: Application
) -> None:
    _need_ocr_engine()
    path = _scanned_pdf(tmp_path)
    report = library.ingest.files([path])
    [result] = report.results
    assert result.outcome == "added", result.reason
    assert result.pages == 2 and result.ocr_pages == 1
    assert report.timings["ocr"] > 0
    hits = library.searcher.search(PHRASE, k=3)
    found = [h for h in hits if PHRASE in " ".join(h.text.split())]
    assert found, [h.text[:80] for h in hits]
    assert found[0].page_end == 2  # the chunk may begin on the cover page before it
    doc = load_file(path)
    [span] = [
        s for s in doc.page_spans if PHRASE in " ".join(doc.markdown[s.start : s.end].split())
    ]
    assert span.page == 2 and doc.ocr_pages == 1


def test_scanned_pdf_with_ocr_off_fails_with_the_reason(tmp_path: Path) -> None:
    path = _scanned_pdf(tmp_path)
    pdf = pymupdf.open(path)
    pdf.delete_page(0)  # only the picture is left
    only_scan = tmp_path / "only-scan.pdf"
    pdf.save(only_scan)
    with pytest.raises(LoadError) as caught:
        load_file(only_scan, ocr="off")
    assert str(caught.value) == (
        f"{only_scan}: no extractable text (set ocr = auto to read scanned pages)"
    )


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("rapidocr_onnxruntime") is None,
    reason="RapidOCR not installed (pip install archivist[ocr])",
)
def test_rapidocr_reads_the_page_too(tmp_path: Path) -> None:
    with pymupdf.open(_scanned_pdf(tmp_path)) as pdf:
        text = ocr_page(pdf[1], engine="rapidocr")
    assert PHRASE in " ".join(text.split())
    assert "2.1 What is R?" in text


def test_reading_order_puts_boxes_in_lines_and_paragraphs() -> None:
    boxes = [
        (100.0, 110.0, 10.0, "second line"),
        (10.0, 20.0, 60.0, "right"),
        (10.0, 20.0, 10.0, "left"),
        (22.0, 32.0, 10.0, "next"),
    ]
    assert _reading_order(boxes) == "left right\nnext\n\nsecond line"
