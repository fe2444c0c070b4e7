"""PDF -> Markdown with a page map, via pymupdf4llm (layout analysis is opt-in: 4x slower)."""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pymupdf

from archivist.documents.ocr import ocr_page
from archivist.documents.pdf_headings import (
    OutlineEntry,
    apply_heuristic_headings,
    apply_outline,
)
from archivist.documents.pdf_markup import clean_page, drop_running_lines, page_kind
from archivist.documents.pdf_tables import find_tables
from archivist.documents.table_values import name_tables
from archivist.types import DataTable, LoadedDocument, LoadError, PageSpan

log = logging.getLogger(__name__)
OcrMode = Literal["auto", "off", "force"]
PageCallback = Callable[[int, int], None]  # told (pages converted so far, pages in all)
PAGE_SEPARATOR = "\n\n"
PAGE_STEP = 8  # pages converted between two progress reports
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def load_pdf(
    path: Path,
    data: bytes,
    ocr: OcrMode = "auto",
    on_pages: PageCallback | None = None,
    layout: bool = False,
) -> LoadedDocument:
    """Convert the PDF bytes ``data`` (read from ``path``) to Markdown with one span per page.

    Pages are joined with ``PAGE_SEPARATOR``; each ``PageSpan`` covers exactly one page's
    text (the separators belong to no page), pages without text get no span. With ``ocr``
    ``"auto"`` a page without extractable text but with an image is read by OCR; ``"force"``
    reads every page by OCR, ``"off"`` none. ``on_pages`` is told the pages converted so far
    and the page count of the file (first with 0 converted, as soon as the count is known).
    ``layout`` runs PyMuPDF's layout analysis (``pymupdf-layout``), which finds tables
    drawn without ruling lines, such as the financial statements of a 10-K, that the
    default line-based detection misses (about 4x the CPU time: 36.9 against 8.9 CPU
    seconds for the Netflix 10-K). Tables are found either way, from where the words of
    each page stand (``find_tables``), and returned as data with the document.
    Raises ``LoadError`` for a corrupt, encrypted or text-less PDF.
    """
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception:  # FileDataError etc.; their text ("Failed to open stream") adds nothing
        raise LoadError(f"{path}: corrupt or unreadable PDF") from None
    with doc:
        if doc.needs_pass:
            raise LoadError(f"{path}: encrypted PDF (password-protected); remove the password")
        page_count = doc.page_count
        if page_count == 0:
            raise LoadError(f"{path}: corrupt or unreadable PDF (no pages)")
        try:
            with_text = [bool(page.get_text().strip()) for page in doc.pages()]
            scanned = [
                i for i, page in enumerate(doc.pages()) if not with_text[i] and page.get_images()
            ]
        except Exception as exc:
            raise LoadError(f"{path}: corrupt or unreadable PDF ({_short(exc)})") from None
        to_ocr = {"auto": scanned, "off": [], "force": list(range(page_count))}[ocr]
        if not any(with_text) and not to_ocr:
            if doc.is_repaired:
                raise LoadError(f"{path}: corrupt or damaged PDF (no extractable text)")
            hint = "set ocr = auto to read scanned pages" if scanned else "nothing to read"
            raise LoadError(f"{path}: no extractable text ({hint})")
        text_pages = [i for i in range(page_count) if with_text[i] and i not in set(to_ocr)]
        given = on_pages or _no_report

        def report(done: int) -> None:
            given(done, page_count)

        report(0)
        chunks = _to_page_chunks(path, doc, text_pages, report, layout) if text_pages else []
        started = time.perf_counter()
        for i in to_ocr:
            chunks.append({"metadata": {"page": i + 1}, "text": _ocr(path, doc, i)})
            report(len(chunks))
        ocr_seconds = time.perf_counter() - started
        chunks.sort(key=lambda chunk: _page_number(chunk, 0))
        outline = [(int(e[0]), str(e[1]), int(e[2])) for e in _read_outline(path, doc)]
        tables = _tables(path, doc, text_pages)
        title = str((doc.metadata or {}).get("title") or "").strip() or path.stem

    pages = [
        (_page_number(chunk, i), str(chunk.get("text") or "")) for i, chunk in enumerate(chunks)
    ]
    texts, kinds = structure_pages(pages, outline)
    tables = [t for t in tables if t.page_start not in kinds]  # none from contents pages
    name_tables(tables)
    markdown, spans = _join_pages([number for number, _ in pages], texts)
    if not markdown.strip():
        reason = "even with OCR" if to_ocr else "scanned PDF? set ocr = auto"
        raise LoadError(f"{path}: no extractable text ({reason})")
    return LoadedDocument(
        path=str(path),
        markdown=markdown,
        page_spans=spans,
        page_count=page_count,
        title=title,
        page_kinds=kinds,
        ocr_pages=len(to_ocr),
        ocr_seconds=ocr_seconds,
        tables=tables,
    )


def structure_pages(
    pages: list[tuple[int, str]], outline: list[OutlineEntry]
) -> tuple[list[str], dict[int, str]]:
    """Clean each page's Markdown, flag contents/index pages, and mark the real headings.

    ``pages`` holds ``(page number, markdown)``; returns the new texts (same order) and the
    flagged pages as ``{page number: "contents" | "index"}``.
    """
    numbers = [number for number, _ in pages]
    texts = [clean_page(text) for _, text in pages]
    kinds: dict[int, str] = {}
    for number, text in zip(numbers, texts, strict=True):
        if kind := page_kind(text, kinds.get(number - 1)):
            kinds[number] = kind
    texts = drop_running_lines(texts)
    if outline:
        texts = apply_outline(texts, numbers, outline)
    else:
        texts = apply_heuristic_headings(texts, numbers, set(kinds))
    return texts, kinds


def _tables(path: Path, doc: Any, pages: list[int]) -> list[DataTable]:
    """The tables on the pages with a text layer, found from where their words stand.

    A failure here costs the tables, not the document: it is logged and the text is kept.
    """
    try:
        return find_tables(doc, pages)
    except Exception:
        log.warning("%s: finding its tables failed; its text is indexed without them", path,
                    exc_info=True)
        return []


def _ocr(path: Path, doc: Any, index: int) -> str:
    try:
        return ocr_page(doc[index])
    except LoadError as exc:
        raise LoadError(f"{path}: {exc}") from None
    except Exception as exc:
        raise LoadError(f"{path}: OCR failed on page {index + 1} ({_short(exc)})") from None


def _page_number(chunk: dict[str, Any], index: int) -> int:
    metadata = chunk.get("metadata") or {}
    return int(metadata.get("page") or metadata.get("page_number") or index + 1)


def _no_report(_pages: int, _total: int) -> None:
    """No progress display."""


def _to_page_chunks(
    path: Path, doc: Any, pages: list[int], report: Callable[[int], None], layout: bool = False
) -> list[dict[str, Any]]:
    """Each page as Markdown, ``PAGE_STEP`` pages at a time (reported after each step).

    The header sizes are learnt once from the whole document (what one call over every
    page would do), so converting in steps gives the same Markdown.
    """
    pymupdf4llm = _pymupdf4llm(layout)
    chunks: list[dict[str, Any]] = []
    try:
        pymupdf4llm.use_layout(layout)
        if layout:  # headers come from the layout model; OCR is ours (ocr_page)
            options: dict[str, Any] = {"use_ocr": False}
        else:
            options = {"hdr_info": pymupdf4llm.IdentifyHeaders(doc)}
        _settle_document(path, doc)
        for start in range(0, len(pages), PAGE_STEP):
            chunks += pymupdf4llm.to_markdown(doc, pages=pages[start:start + PAGE_STEP],
                                              page_chunks=True, show_progress=False, **options)
            report(len(chunks))
    except Exception as exc:
        raise LoadError(f"{path}: could not convert PDF to Markdown ({_short(exc)})") from None
    return chunks


def _settle_document(path: Path, doc: Any) -> None:
    """Do once what pymupdf4llm does per call over the whole document, so a step costs its pages.

    Each ``to_markdown`` call bakes annotations and form fields into the page content
    (checking every page for them) and reads the outline; over a file's steps that made
    converting take time quadratic in its page count. The annotations are baked here, once,
    and the document then answers those two questions from what is known. An outline
    nested too deeply to read (PyMuPDF reads it recursively) is dropped, and the text kept.
    """
    if doc.is_form_pdf or (doc.is_pdf and doc.has_annots()):
        doc.bake()
    outline = _read_outline(path, doc)
    doc.has_annots = lambda: False  # baked: none left
    doc.get_toc = lambda simple=True: outline if simple else doc.__class__.get_toc(doc, simple)


def _read_outline(path: Path, doc: Any) -> list[Any]:
    """The document's outline, or none when it is nested too deeply for PyMuPDF to read."""
    try:
        return list(doc.get_toc())
    except RecursionError:
        log.warning("%s: its outline is nested too deeply to read; the text is indexed "
                    "without it", path)
        return []


def _pymupdf4llm(layout: bool) -> Any:
    """pymupdf4llm, imported (lazily) without its layout model unless ``layout`` is on.

    Importing pymupdf4llm imports ``pymupdf.layout`` whenever ``pymupdf-layout`` is
    installed, and that builds the layout model's ONNX session: about 0.45 CPU seconds in
    every conversion process, wasted when layout analysis is off. Blocking that import
    for the moment makes pymupdf4llm start in its non-layout mode; ``use_layout(True)``
    imports the package normally later, when a caller turns layout analysis on.
    """
    if layout or "pymupdf4llm" in sys.modules or "pymupdf.layout" in sys.modules:
        import pymupdf4llm

        return pymupdf4llm
    sys.modules["pymupdf.layout"] = None  # type: ignore[assignment]  # import fails fast
    try:
        import pymupdf4llm
    finally:
        del sys.modules["pymupdf.layout"]
    return pymupdf4llm


def _join_pages(numbers: list[int], texts: list[str]) -> tuple[str, list[PageSpan]]:
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for page, raw in zip(numbers, texts, strict=True):
        text = _LEADING_BLANK_LINES.sub("", raw).rstrip()
        if not text:
            continue
        if parts:
            parts.append(PAGE_SEPARATOR)
            offset += len(PAGE_SEPARATOR)
        spans.append(PageSpan(start=offset, end=offset + len(text), page=page))
        parts.append(text)
        offset += len(text)
    return "".join(parts), spans


def _short(exc: BaseException) -> str:
    """One line about a library exception, without traceback text."""
    message = " ".join(str(exc).split())
    if len(message) > 120:
        message = message[:117] + "..."
    return message or type(exc).__name__


def pdf_page_count(data: bytes) -> int:
    """A PDF's page count, read before it converts (0 when it cannot be opened).

    The conversion then says why it cannot be read.
    """
    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            return int(doc.page_count)
    except (RuntimeError, ValueError):  # pymupdf's FileDataError is a RuntimeError
        return 0
