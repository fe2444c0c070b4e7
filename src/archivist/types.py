"""Plain data shared by every layer: documents, chunks, search hits, ingest reports."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath
from typing import Any

ADMIN_OWNER = "admin"
"""The owner of documents ingested from the CLI or by an admin key."""


class ArchivistError(Exception):
    """Base of every error Archivist raises on purpose; its message is shown to users."""


class LoadError(ArchivistError):
    """A file could not be turned into text; the message names the file and the reason."""


class UnsupportedFile(LoadError):
    """The file type is not one Archivist reads; such files are skipped, not failed."""


class IndexMismatch(ArchivistError):
    """A collection was built with a different embedding model (or vector size)."""


class UnknownDocument(ArchivistError):
    """No document in the catalog matches the given id prefix or file name."""


class AmbiguousDocument(ArchivistError):
    """More than one document matches the given id prefix or file name."""


@dataclass(frozen=True)
class PageSpan:
    """A run of Markdown text that came from one page (1-based) of the source."""

    start: int
    end: int
    page: int


Cell = float | int | str | None
"""One value of a stored table: a number parsed from its text, the text, or null."""


@dataclass
class DataTable:
    """A table found in a document, as data: typed columns, parsed values, where it came from.

    ``columns`` are SQL-safe names (``revenues``, ``y2017``); ``labels`` the header text
    each came from; ``kinds`` say ``"number"`` or ``"text"`` per column. ``unit`` is the
    scale the caption or header names (``"thousands"``, ``"millions"``) or ``""``: values
    are stored as printed, not multiplied. ``heading_path`` (the section) is set at ingest.
    """

    caption: str
    columns: list[str]
    labels: list[str]
    kinds: list[str]
    rows: list[list[Cell]]
    unit: str = ""
    page_start: int | None = None
    page_end: int | None = None
    heading_path: list[str] = field(default_factory=list)
    name: str = ""
    """The table's SQL name, unique within its document (set when the document is loaded)."""


@dataclass
class LoadedDocument:
    """A file turned into Markdown, with a page map for PDFs (empty for paged-less formats)."""

    path: str
    markdown: str
    page_spans: list[PageSpan] = field(default_factory=list)
    page_count: int = 0
    title: str = ""
    page_kinds: dict[int, str] = field(default_factory=dict)
    """Pages that are a table of contents or an index: ``{page: "contents" | "index"}``."""
    ocr_pages: int = 0
    """How many pages were read with OCR, and how long that took."""
    ocr_seconds: float = 0.0
    conversion_seconds: float = 0.0
    """How long the conversion took, OCR included (measured where it ran)."""
    tables: list[DataTable] = field(default_factory=list)
    """The tables found in it, as data (stored as SQL tables at ingest)."""

    def pages_between(self, start: int, end: int) -> tuple[int | None, int | None]:
        """The first and last page that text ``markdown[start:end]`` lies on."""
        pages = [s.page for s in self.page_spans if s.start < end and s.end > start]
        if not pages:
            return (None, None)
        return (min(pages), max(pages))


@dataclass
class Section:
    """One parent chunk: a bounded slice of the document under its heading path."""

    text: str
    heading_path: list[str]
    start: int
    end: int
    page_start: int | None = None
    page_end: int | None = None
    kind: str = "body"
    """``"body"``, or ``"contents"``/``"index"`` for a table of contents or an index."""
    sections: list[list[str]] | None = None
    """The heading path of each section whose text this slice holds, in reading order."""


@dataclass
class Parent:
    """A stored parent chunk."""

    parent_id: str
    document_id: str
    position: int
    text: str
    heading_path: list[str]
    page_start: int | None
    page_end: int | None
    collection: str = "default"
    kind: str = "body"
    """``"body"``, or ``"contents"``/``"index"``: a flagged section, its children unsearched."""
    sections: list[list[str]] | None = None
    """The heading path of each section whose text the parent holds (see ``Child``)."""

    @property
    def location_path(self) -> list[str]:
        """The headings its citations name (see ``cited_headings``)."""
        return cited_headings(self.sections, self.heading_path)[0]

    def location(self, title: str) -> str:
        """Its pages, or its first section and how many more (``title``: the document's)."""
        path, more = cited_headings(self.sections, self.heading_path)
        return format_location(self.page_start, self.page_end, path, title, more)


@dataclass
class Child:
    """A small searchable chunk inside a parent."""

    child_id: str
    parent_id: str
    document_id: str
    position: int
    text: str
    heading_path: list[str]
    page_start: int | None
    page_end: int | None
    kind: str = "body"
    """``"body"``; ``"contents"``/``"index"`` children are stored but never searched."""
    sections: list[list[str]] | None = None
    """The heading path of each section whose text the child holds, in reading order.

    ``heading_path`` is its parent's (what all of the parent's text shares, the context
    embedded with it); ``sections`` is what a citation names: the first one, and how many
    more the text runs into. ``None`` in a library ingested before children carried it.
    """


FILING_FIELDS = ("company", "ticker", "form", "fiscal_year", "fiscal_quarter",
                 "fiscal_year_end", "period")
"""A document's filing metadata, as catalog columns (see ``archivist.filings.cover``)."""


@dataclass
class DocumentRecord:
    """A catalog row: one ingested document."""

    document_id: str
    collection: str
    path: str
    name: str
    content_hash: str
    size_bytes: int
    page_count: int
    parent_count: int
    child_count: int
    added_at: str
    status: str = "ready"
    owner: str = ADMIN_OWNER
    title: str = ""
    """The loader's title (PDF metadata, first H1, ...); reindex embeds with it as ingest did."""
    company: str | None = None
    """Filing metadata read from the document's own text (``None``: not a filing or unknown)."""
    ticker: str | None = None
    form: str | None = None
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    fiscal_year_end: str | None = None
    period: str | None = None


@dataclass
class SearchHit:
    """A child chunk returned by a search, with where it came from."""

    child_id: str
    parent_id: str
    document_id: str
    document_name: str
    text: str
    heading_path: list[str]
    page_start: int | None
    page_end: int | None
    score: float
    document_title: str = ""
    """The document's title, looked up for a hit before any heading (see ``section``)."""
    sections: list[list[str]] | None = None
    """The sections the child's text holds (see ``Child.sections``)."""
    document_about: str = ""  # what the document is (``filings.document.document_about``)
    statement: str = ""
    """A filing's statement shown for the line items a question asks (``statement_hits``)."""

    @property
    def location_path(self) -> list[str]:
        """The headings of the section the hit's text starts in (see ``cited_headings``)."""
        return cited_headings(self.sections, self.heading_path)[0]

    @property
    def section(self) -> list[str]:
        """The hit's headings; before any heading, the document's title (or file name)."""
        return section_path(self.location_path, document_title(self.document_title,
                                                               self.document_name))

    @property
    def pages(self) -> str:
        """Where the hit is: ``p. 3``/``pp. 3-5``, or ``§ Install › Linux`` without pages."""
        more = cited_headings(self.sections, self.heading_path)[1]
        return format_location(self.page_start, self.page_end, self.section, more=more)

    def to_dict(self) -> dict[str, Any]:
        """The hit as JSON (the API's ``/v1/search`` and ``archivist search --json``)."""
        return {
            "document_id": self.document_id,
            "document_name": self.document_name,
            "pages": self.pages,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "heading_path": self.location_path,
            "sections": self.sections,
            "document_title": self.document_title,
            "score": self.score,
            "text": self.text,
            "parent_id": self.parent_id,
            "child_id": self.child_id,
        }


def format_pages(start: int | None, end: int | None) -> str:
    """A human page label for a range."""
    if start is None:
        return ""
    if end is None or end == start:
        return f"p. {start}"
    return f"pp. {start}-{end}"


def format_location(
    start: int | None, end: int | None, heading_path: list[str], title: str = "", more: int = 0
) -> str:
    """Where a passage is, for citations: its pages, or its section when it has no pages.

    ``p. 3`` for a PDF, ``§ Installation › Linux`` for Markdown, HTML and Word, empty when
    neither is known. Text before the first heading (or in a document without headings)
    is named after the document: ``§ Greenhouse Handbook`` (``title``, see
    ``section_path``). A passage that runs on into ``more`` further sections says so:
    ``§ Installation › Linux (+1 more)``. Every interface shows this one label.
    """
    pages = format_pages(start, end)
    path = section_path(heading_path, title)
    if pages or not path:
        return pages
    return "§ " + " › ".join(path) + (f" (+{more} more)" if more > 0 else "")


def cited_headings(
    sections: list[list[str]] | None, heading_path: list[str]
) -> tuple[list[str], int]:
    """What a citation names: the first section a text holds, and how many more it holds.

    ``sections`` is ``None`` in a library ingested before chunks carried their sections:
    the chunk's ``heading_path`` (its parent's shared headings) stands in.
    """
    if not sections:
        return list(heading_path), 0
    return list(sections[0]), len(sections) - 1


def section_of(sections: list[list[str]] | None, heading: str) -> list[str] | None:
    """The first of ``sections`` (heading paths) whose deepest heading is ``heading``.

    Headings compare without case, spacing or Markdown marks; ``None`` when none matches
    (or ``sections`` is unknown), so the caller keeps the location it had.
    """
    def norm(text: str) -> str:
        return " ".join(re.sub(r"[*_~`#]+", " ", text).split()).casefold()

    wanted = norm(heading)
    return next((list(s) for s in sections or [] if s and wanted and norm(s[-1]) == wanted),
                None)


def source_label(source: dict[str, Any]) -> str:
    """How every interface names a cited source (a ``Source`` as a dict).

    ``guide.md, § Install › Linux`` for a document without pages; for a PDF its pages and,
    when its headings are known, the section: ``guide.pdf, p. 9, § How it works › Staying
    consistent``; a web result by its name or address.
    """
    name = str(source.get("document_name") or source.get("url") or "source")
    where = str(source.get("pages") or "")
    path = [str(h) for h in source.get("heading_path") or [] if h]
    if where and not where.startswith("§") and path and source.get("kind") != "web":
        where = f"{where}, § {' › '.join(path)}"
    return f"{name}, {where}" if where else name


def section_path(heading_path: list[str], title: str) -> list[str]:
    """A section's headings; a section before any heading is named by its document's title."""
    return list(heading_path) if heading_path else ([title] if title else [])


def document_title(title: str, name: str) -> str:
    """What a document is called: its title, else its file name without the extension."""
    return title.strip() or PurePath(name).stem


class IngestOutcome(StrEnum):
    """What happened to one file in an ingest."""

    ADDED = "added"
    UNCHANGED = "unchanged"
    REPLACED = "replaced"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass
class FileResult:
    """The outcome for one file, with the reason when it failed or was skipped."""

    path: str
    outcome: IngestOutcome
    document_id: str | None = None
    reason: str = ""
    pages: int = 0
    chunks: int = 0
    ocr_pages: int = 0
    ocr_seconds: float = 0.0


@dataclass
class IngestReport:
    """Every file's outcome in one ingest.

    ``timings`` splits the time: ``conversion`` and ``ocr`` are summed over the files as
    measured where they ran (several processes at once, so they may add up to more than the
    wall time), ``conversion wait`` is how long the writing thread waited for them, and
    ``embedding`` and ``indexing`` are spent in the writing thread.
    """

    results: list[FileResult] = field(default_factory=list)
    timings: dict[str, float] = field(
        default_factory=lambda: {
            "conversion": 0.0,
            "conversion wait": 0.0,
            "ocr": 0.0,
            "embedding": 0.0,
            "indexing": 0.0,
        }
    )
    contexts: dict[str, int] = field(default_factory=dict)
    """With ``contextualize = "llm"``: children given a sentence, model calls, cache hits."""

    def of(self, outcome: IngestOutcome) -> list[FileResult]:
        """The files that ended with ``outcome``."""
        return [r for r in self.results if r.outcome == outcome]

    @property
    def counts(self) -> dict[str, int]:
        """How many files ended each way."""
        return {o.value: len(self.of(o)) for o in IngestOutcome}
