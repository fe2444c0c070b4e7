"""A loaded document cut into parents and children with ids and pages (pure, no I/O)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from archivist.documents.chunking import (
    heading_path_text,
    heading_sections,
    split_children,
    split_parents,
)
from archivist.documents.headings import HEADING
from archivist.documents.tables import blocks, continued_header
from archivist.settings import Settings
from archivist.types import Child, LoadedDocument, Parent


@dataclass(frozen=True)
class ChunkSizes:
    """The chunking settings: parent bounds, child size and overlap (characters)."""

    parent_min_chars: int = 2000
    parent_max_chars: int = 4000
    child_chars: int = 500
    child_overlap: int = 100

    @classmethod
    def of(cls, settings: Settings) -> ChunkSizes:
        """The sizes a settings tree asks for."""
        return cls(
            settings.index.parent_min_chars,
            settings.index.parent_max_chars,
            settings.index.child_chars,
            settings.index.child_overlap,
        )


@dataclass
class Chunked:
    """A loaded document cut into parents and children."""

    loaded: LoadedDocument
    parents: list[Parent] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)


def chunk_document(
    loaded: LoadedDocument, document_id: str, collection: str, sizes: ChunkSizes
) -> Chunked:
    """Parents by headings, children inside each parent, with ids and pages.

    A parent that starts inside a table larger than a parent begins with that table's
    header rows again, and so do its children holding those rows. Every parent and child
    carries the sections its text holds (see ``sections_held``), which its citations name.
    """
    out = Chunked(loaded)
    marks = heading_sections(loaded.markdown)
    cuts = [start for start, _, _ in marks]
    parts = split_parents(loaded, sizes.parent_min_chars, sizes.parent_max_chars)
    tables = [block for block in blocks(loaded.markdown) if block.is_table]
    for p_pos, section in enumerate(parts):
        parent_id = f"{document_id}-p{p_pos}"
        header = continued_header(loaded.markdown, tables, section.start)
        out.parents.append(
            Parent(
                parent_id=parent_id,
                document_id=document_id,
                position=p_pos,
                text=header + section.text,
                heading_path=section.heading_path,
                page_start=section.page_start,
                page_end=section.page_end,
                collection=collection,
                kind=section.kind,
                sections=sections_held(loaded.markdown, marks, section.start, section.end),
            )
        )
        pieces = split_children(
            section, sizes.child_chars, sizes.child_overlap, doc=loaded, header=header,
            cuts=cuts,
        )
        for piece in pieces:
            out.children.append(
                Child(
                    child_id=f"{document_id}-c{len(out.children)}",
                    parent_id=parent_id,
                    document_id=document_id,
                    position=len(out.children),
                    text=piece.text,
                    heading_path=piece.heading_path,
                    page_start=piece.page_start,
                    page_end=piece.page_end,
                    kind=piece.kind,
                    sections=sections_held(loaded.markdown, marks, piece.start, piece.end),
                )
            )
    place_tables(loaded, out.parents)
    return out


def place_tables(loaded: LoadedDocument, parents: list[Parent]) -> None:
    """Give each table the heading path of the section it stands in.

    The section is the parent on the table's first page that holds its first row label
    (or caption), else the first parent on that page, else the document's first.
    """
    for table in loaded.tables:
        on_page = [p for p in parents if table.page_start is None or (
            p.page_start is not None and p.page_start <= table.page_start <= (p.page_end or 0))]
        first = next((str(row[0]) for row in table.rows if row and row[0]), "")
        clue = first or table.caption[:40]
        chosen = next((p for p in on_page if clue and clue in p.text), None)
        chosen = chosen or (on_page[0] if on_page else (parents[0] if parents else None))
        if chosen is not None and not table.heading_path:
            table.heading_path = list(chosen.heading_path)


def sections_held(
    markdown: str, marks: list[tuple[int, int, tuple[str, ...]]], start: int, end: int
) -> list[list[str]]:
    """The heading path of each section whose text ``markdown[start:end]`` holds, in order.

    ``marks`` are the document's ``heading_sections``. A section counts when the slice holds
    some of its text beyond its heading line, so a child that opens with the heading of the
    next section names that section, and one that ends on a heading does not name it. A
    slice with nothing but headings names the section of its last heading (a lone heading
    belongs to what follows it). Text before the first heading has the path ``[]``.
    """
    at = max(bisect_right([mark[0] for mark in marks], start) - 1, 0)
    held: list[list[str]] = []
    last: list[str] = []
    while at < len(marks) and marks[at][0] < end:
        begin, stop, path = marks[at]
        line_end = markdown.find("\n", begin, stop)
        line_end = stop if line_end < 0 else line_end
        if HEADING.fullmatch(markdown[begin:line_end]):
            begin = line_end
        last = list(path)
        if markdown[max(begin, start) : min(stop, end)].strip() and (not held or held[-1] != last):
            held.append(last)
        at += 1
    return held or [last]


def embedding_text(child: Child, title: str) -> str:
    """What gets embedded and BM25-encoded: title and heading path as context, then the text.

    The title leads unless the heading path already starts with it (a Markdown file whose
    H1 is its title), so a chunk deep in a section still says which document it is from.
    """
    path = list(child.heading_path)
    if title and (not path or path[0].casefold() != title.casefold()):
        path.insert(0, title)
    context = heading_path_text(path)
    return f"{context}\n\n{child.text}" if context else child.text
