"""Turn a file (PDF, Markdown, text, HTML, Word, CSV/TSV/XLSX) into Markdown, or fail clearly."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from archivist.documents.pdf import OcrMode, PageCallback, load_pdf
from archivist.documents.spreadsheets import SHEET_SUFFIXES, load_sheet_file
from archivist.documents.table_values import markdown_tables
from archivist.documents.word import load_docx
from archivist.types import FileResult, IngestOutcome, LoadedDocument, LoadError, UnsupportedFile

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(
    {".pdf", ".md", ".markdown", ".txt", ".html", ".htm", ".docx", *SHEET_SUFFIXES}
)

# A text file (Markdown, text, HTML) is read whole and cut into chunks: 200 MB of Markdown
# took 2.5 GB. Past this size it fails with one line, in every interface (an upload is also
# capped by max_upload_mb, 50 MB by default). PDFs and Word files have their own bounds.
MAX_TEXT_FILE_BYTES = 50 * 1024 * 1024
_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm"})

_UTF8_BOM = b"\xef\xbb\xbf"
_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*)+\n")
_ATX_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_DROPPED_HTML_TAGS = ["script", "style", "noscript", "template", "svg", "object", "embed"]
_DATA_URI = re.compile(r"\bdata:[^,\s\"'<>()]{0,200},[^\s\"'<>()]*", re.IGNORECASE)
"""An inline payload (``data:image/png;base64,...``): bytes, not text; dropped."""


def load_file(
    path: Path,
    ocr: OcrMode = "auto",
    on_pages: PageCallback | None = None,
    layout: bool = False,
) -> LoadedDocument:
    """Convert the file at ``path`` to Markdown (with a page map for PDFs).

    ``ocr`` says which PDF pages are read by OCR, ``layout`` whether PDFs go through
    PyMuPDF's layout analysis (see ``load_pdf``); ``on_pages`` is told how many pages of
    a PDF are converted so far, and its page count.

    Raises ``UnsupportedFile`` for a suffix not in ``SUPPORTED_SUFFIXES`` and ``LoadError``,
    whose message names the file and the reason in one line, for anything that cannot be read.
    """
    started = time.perf_counter()
    loaded = _load(Path(path), ocr, on_pages, layout)
    if not loaded.tables and Path(path).suffix.lower() != ".pdf":  # Word, HTML, Markdown
        loaded.tables = markdown_tables(loaded.markdown)
    loaded.conversion_seconds = time.perf_counter() - started
    return loaded


def _load(
    path: Path, ocr: OcrMode, on_pages: PageCallback | None = None, layout: bool = False
) -> LoadedDocument:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kind = f"'{path.suffix}'" if path.suffix else "(no file extension)"
        raise UnsupportedFile(f"{path}: unsupported file type {kind}")
    if path.is_file():
        check_file_size(path)
    data = _read_bytes(path)
    if not data.strip():
        raise LoadError(f"{path}: empty file")
    if suffix == ".pdf":
        if b"%PDF-" not in data[:1024]:
            raise LoadError(f"{path}: not a PDF (it looks like {_looks_like(data)})")
        return load_pdf(path, data, ocr, on_pages, layout)
    if suffix == ".docx":
        if not data.startswith(_ZIP_MAGIC):
            raise LoadError(f"{path}: not a Word .docx file (it looks like {_looks_like(data)})")
        return load_docx(path, data)
    if suffix == ".xlsx":
        if not data.startswith(_ZIP_MAGIC):
            raise LoadError(f"{path}: not an .xlsx workbook (it looks like {_looks_like(data)})")
        return load_sheet_file(path, data, None)
    text = _decode_utf8(path, data)
    if "\x00" in text:
        raise LoadError(f"{path}: not text (it contains NUL bytes)")
    if not text.strip():
        raise LoadError(f"{path}: empty file")
    if suffix in SHEET_SUFFIXES:
        return load_sheet_file(path, data, text)
    text = _DATA_URI.sub("", text)
    if suffix in (".html", ".htm"):
        return _load_html(path, text)
    title = path.stem if suffix == ".txt" else markdown_title(text, path.stem)
    return LoadedDocument(path=str(path), markdown=text, title=title)


def markdown_title(text: str, default: str) -> str:
    """A Markdown text's first level-1 heading, else ``default``."""
    match = _ATX_TITLE.search(text)
    return match.group(1).strip() if match else default


def check_file_size(path: Path) -> None:
    """``LoadError`` for a text file over ``MAX_TEXT_FILE_BYTES`` (checked before reading)."""
    size = path.stat().st_size if path.suffix.lower() in _TEXT_SUFFIXES else 0
    if size > MAX_TEXT_FILE_BYTES:
        mb = 1024 * 1024
        raise LoadError(f"{path}: refused, {size / mb:.0f} MB of text (the limit for a text "
                        f"file is {MAX_TEXT_FILE_BYTES // mb} MB)")


SYMLINK_SKIPPED = "a symbolic link: not followed (ingest reads only the files themselves)"


def refused(path: Path) -> FileResult | None:
    """Skipped (an unsupported type) or failed (a text file over its limit) before reading.

    ``None`` when the file may be read (an unreadable one fails when it is read). A
    symbolic link is skipped: it could point anywhere (``notes.md -> /etc/passwd``).
    """
    if path.is_symlink():
        return FileResult(str(path), IngestOutcome.SKIPPED, reason=SYMLINK_SKIPPED)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        reason = f"unsupported file type '{path.suffix or '(none)'}'"
        return FileResult(str(path), IngestOutcome.SKIPPED, reason=reason)
    try:
        check_file_size(path)
    except LoadError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        return FileResult(str(path), IngestOutcome.FAILED, reason=reason)
    except OSError:
        return None
    return None


def iter_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Yield every file named by ``paths``, walking directories recursively in sorted order.

    Hidden files and directories (names starting with '.') inside a walked directory are
    skipped; unsupported files and symbolic links (to a file or a folder, never followed)
    are yielded too, so the caller can report them as skipped.
    Each file is yielded once. Raises ``LoadError`` for a path that does not exist.
    """
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise LoadError(f"{path}: no such file or directory")
        if path.is_dir():
            yield from _walk(path, seen, set())
        elif path.resolve() not in seen:
            seen.add(path.resolve())
            yield path


def _walk(directory: Path, seen: set[Path], visited: set[Path]) -> Iterator[Path]:
    real = directory.resolve()
    if real in visited:  # a symlink loop
        return
    visited.add(real)
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise LoadError(f"{directory}: cannot read directory ({_os_reason(exc)})") from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():  # to a file or a folder: reported as skipped, not followed
            yield entry
        elif entry.is_dir():
            yield from _walk(entry, seen, visited)
        elif entry.is_file() and entry.resolve() not in seen:
            seen.add(entry.resolve())
            yield entry


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise LoadError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise LoadError(f"{path}: cannot read file ({_os_reason(exc)})") from None


def _os_reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _decode_utf8(path: Path, data: bytes) -> str:
    skip = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = skip + exc.start
        raise LoadError(
            f"{path}: not UTF-8 text (invalid byte 0x{data[offset]:02x} at offset {offset})"
        ) from None


def _looks_like(data: bytes) -> str:
    """Describe in a few words what ``data`` seems to be, for mislabeled-file messages."""
    head = data[:1024]
    if b"%PDF-" in head:
        return "a PDF"
    if head.startswith(_ZIP_MAGIC):
        return "a ZIP archive"
    if head.startswith(_OLE_MAGIC):
        return "an old-style Office file such as .doc"
    controls = sum(1 for b in head if b < 32 and b not in b"\t\n\r\f")
    if controls > len(head) // 20:
        return "binary data"
    if re.search(rb"<(!doctype html|html|body)\b", head, re.IGNORECASE):
        return "HTML"
    return "text"


def _load_html(path: Path, text: str) -> LoadedDocument:
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    try:
        soup = BeautifulSoup(text, "html.parser")
        for tag in soup.find_all(_DROPPED_HTML_TAGS):
            tag.decompose()
        title = " ".join(soup.title.get_text(" ").split()) if soup.title else ""
        if soup.head is not None:
            soup.head.decompose()
        markdown = MarkdownConverter(heading_style=ATX, bullets="-").convert_soup(soup)
    except Exception as exc:  # markdownify/bs4 raise assorted errors on odd markup
        raise LoadError(f"{path}: could not convert HTML ({type(exc).__name__})") from None
    markdown = _BLANK_RUNS.sub("\n\n", markdown).strip()
    if not markdown:
        raise LoadError(f"{path}: no text in the HTML")
    return LoadedDocument(path=str(path), markdown=markdown, title=title or path.stem)
