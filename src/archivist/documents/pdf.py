"""PDF -> Markdown with a page map, via pymupdf4llm (layout ML mode off: it is 2x slower)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pymupdf

from archivist.types import LoadedDocument, LoadError, PageSpan

PAGE_SEPARATOR = "\n\n"
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def load_pdf(path: Path, data: bytes) -> LoadedDocument:
    """Convert the PDF bytes ``data`` (read from ``path``) to Markdown with one span per page.

    Pages are joined with ``PAGE_SEPARATOR``; each ``PageSpan`` covers exactly one page's
    text (the separators belong to no page), pages without text get no span.
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
            has_text = any(page.get_text().strip() for page in doc.pages())
        except Exception as exc:
            raise LoadError(f"{path}: corrupt or unreadable PDF ({_short(exc)})") from None
        if not has_text:
            if doc.is_repaired:
                raise LoadError(f"{path}: corrupt or damaged PDF (no extractable text)")
            raise LoadError(f"{path}: no extractable text (scanned PDF? OCR is not supported)")
        chunks = _to_page_chunks(path, doc)
        title = str((doc.metadata or {}).get("title") or "").strip() or path.stem

    markdown, spans = _join_pages(chunks)
    if not markdown.strip():
        raise LoadError(f"{path}: no extractable text (scanned PDF? OCR is not supported)")
    return LoadedDocument(
        path=str(path), markdown=markdown, page_spans=spans, page_count=page_count, title=title
    )


def _to_page_chunks(path: Path, doc: Any) -> list[dict[str, Any]]:
    import pymupdf4llm  # imported lazily: it pulls in the layout package at import time

    pymupdf4llm.use_layout(False)
    try:
        chunks = pymupdf4llm.to_markdown(doc, page_chunks=True, show_progress=False)
    except Exception as exc:
        raise LoadError(f"{path}: could not convert PDF to Markdown ({_short(exc)})") from None
    return list(chunks)


def _join_pages(chunks: list[dict[str, Any]]) -> tuple[str, list[PageSpan]]:
    parts: list[str] = []
    spans: list[PageSpan] = []
    offset = 0
    for index, chunk in enumerate(chunks):
        text = _LEADING_BLANK_LINES.sub("", str(chunk.get("text") or "")).rstrip()
        if not text:
            continue
        if parts:
            parts.append(PAGE_SEPARATOR)
            offset += len(PAGE_SEPARATOR)
        page = int((chunk.get("metadata") or {}).get("page") or index + 1)
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
