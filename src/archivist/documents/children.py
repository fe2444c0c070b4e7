"""Cut a parent section into children small enough to embed: pure functions, no I/O.

See :func:`split_children` for the rules; :mod:`archivist.documents.chunking` makes parents.
"""

from __future__ import annotations

import re
from itertools import pairwise

from langchain_text_splitters import RecursiveCharacterTextSplitter

from archivist.documents.headings import heading_title
from archivist.documents.tables import Block, blocks, leading_rows, split_rows, split_table
from archivist.types import LoadedDocument, Section

__all__ = ["MIN_TEXT", "split_children"]

MIN_TEXT = 50
"""The fewest characters of text (whitespace aside) a parent or child should have."""

_NON_SPACE = re.compile(r"\S")


def split_children(
    section: Section,
    size: int = 500,
    overlap: int = 100,
    doc: LoadedDocument | None = None,
    header: str = "",
    cuts: tuple[int, ...] | list[int] = (),
) -> list[Section]:
    """Cut a parent into overlapping children of about ``size`` characters.

    Text between tables goes through LangChain's ``RecursiveCharacterTextSplitter``; each
    chunk is located in the parent, so a child's ``start``/``end`` are offsets in the
    document and its ``text`` equals ``doc.markdown[start:end]`` -- except a table piece
    after the first, whose text starts with the table's header rows. Together the children
    cover every non-whitespace character of the parent, except a piece under ``MIN_TEXT``
    that is nothing but a heading already in the heading path (every child carries that
    path as its context, so the lone heading is left out rather than joined to the text
    after it); none is whitespace only. A child
    is longer than ``size`` only when it absorbed a neighbour under ``MIN_TEXT`` (by at most
    ``2 * MIN_TEXT``) or holds a single table row longer than ``size``. Children keep the
    parent's heading path and kind. Their pages come from ``doc`` when given, else they
    are the parent's pages. ``header`` is the header of a table the parent starts inside
    (see ``tables.continued_header``): every child holding those leading rows repeats it.
    ``cuts`` are document offsets where a section starts (its heading line): text is never
    cut across one, so a child holds one section's text unless a piece under ``MIN_TEXT``
    joined it from the next (or the previous) section.
    """
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    pieces: list[tuple[int, int, str]] = []  # (start, end) in section.text, header
    lead = leading_rows(section.text) if header else 0
    if lead:
        rows = split_rows(section.text, 0, lead, header, size)
        pieces += [(p.start, p.end, p.header) for p in rows]
    rest = [Block(b.start + lead, b.end + lead, b.is_table) for b in blocks(section.text[lead:])]
    for block in rest:
        if block.is_table:
            pieces += [(p.start, p.end, p.header) for p in split_table(section.text, block, size)]
        else:
            inner = [c - section.start for c in cuts if block.start < c - section.start < block.end]
            for a, b in pairwise([block.start, *inner, block.end]):
                pieces += _text_pieces(section.text, Block(a, b, False), splitter, overlap)
    pieces = _without_lone_headings(section.text, pieces, section.heading_path)
    pieces = _merge_small(section.text, pieces, size + 2 * MIN_TEXT)
    children: list[Section] = []
    for start, end, header in pieces:
        text = header + section.text[start:end]
        start, end = section.start + start, section.start + end
        if doc is None:
            pages = (section.page_start, section.page_end)
        else:
            pages = doc.pages_between(start, end)
        children.append(
            Section(text, list(section.heading_path), start, end, *pages, kind=section.kind)
        )
    return children


def _text_pieces(
    text: str, block: Block, splitter: RecursiveCharacterTextSplitter, overlap: int
) -> list[tuple[int, int, str]]:
    source = text[block.start : block.end]
    chunks = splitter.split_text(source)
    offsets = _chunk_offsets(source, chunks, overlap)
    return [
        (block.start + offset, block.start + offset + len(chunk), "")
        for chunk, offset in zip(chunks, offsets, strict=True)
    ]


def _without_lone_headings(
    text: str, pieces: list[tuple[int, int, str]], path: list[str]
) -> list[tuple[int, int, str]]:
    """Drop pieces under ``MIN_TEXT`` that are only a heading named in ``path``.

    Nothing is dropped when nothing else would be left. Measured on SciFact: joining a
    short title-only piece to the abstract's first 500 characters put the title into that
    child twice (context and text) and cost about 0.002 nDCG@10 in every search mode;
    leaving it out gives the figures of the unjoined pieces back. Longer lone headings stay
    children (dropping those too cost hybrid 0.004).
    """
    named = {title.casefold() for title in path}

    def lone_heading(piece: tuple[int, int, str]) -> bool:
        piece_text = text[piece[0] : piece[1]]
        if len(piece_text.strip()) >= MIN_TEXT:
            return False
        return (heading_title(piece_text) or "").casefold() in named

    kept = [piece for piece in pieces if not lone_heading(piece)]
    return kept if kept else pieces


def _merge_small(
    text: str, pieces: list[tuple[int, int, str]], limit: int
) -> list[tuple[int, int, str]]:
    """Join each piece with under ``MIN_TEXT`` characters of text to a neighbour.

    The next piece is preferred (the previous one at the end), and only while the joined
    slice stays within ``limit`` characters.
    """
    merged: list[tuple[int, int, str]] = []
    carry: tuple[int, int, str] | None = None
    for piece in pieces:
        if carry is not None:
            if max(carry[1], piece[1]) - carry[0] <= limit:
                piece = (carry[0], max(carry[1], piece[1]), carry[2])
            else:
                merged.append(carry)
            carry = None
        if len(text[piece[0] : piece[1]].strip()) < MIN_TEXT:
            carry = piece
        else:
            merged.append(piece)
    if carry is not None:
        if merged and max(merged[-1][1], carry[1]) - merged[-1][0] <= limit:
            last = merged.pop()
            merged.append((last[0], max(last[1], carry[1]), last[2]))
        else:
            merged.append(carry)
    return merged


def _chunk_offsets(source: str, chunks: list[str], overlap: int) -> list[int]:
    """Locate where each of the splitter's ``chunks`` starts in ``source``.

    A chunk starts no later than the first text after the previous chunk (the splitter
    loses nothing) and, as the splitter overlaps at most ``overlap`` characters, no
    earlier than ``overlap`` before the previous chunk's end. The first occurrence in
    that window is the true one unless the text repeats itself; if that guess leaves the
    end uncovered, the last occurrence in the window is taken instead, which always
    covers every non-whitespace character.
    """
    offsets: list[int] = []
    for take_last in (False, True):
        offsets = []
        prev_start = prev_end = 0
        for chunk in chunks:
            limit = _next_text(source, prev_end) + len(chunk)
            if take_last:
                offset = source.rfind(chunk, prev_start, limit)
            else:
                offset = source.find(chunk, max(prev_start, prev_end - overlap), limit)
            if offset < 0:
                offset = source.rfind(chunk, 0, limit)
            offsets.append(offset)
            prev_start, prev_end = offset, offset + len(chunk)
        if prev_end == len(source.rstrip()):
            break
    return offsets


def _next_text(text: str, pos: int) -> int:
    """Return the offset of the first non-whitespace character at or after ``pos``."""
    match = _NON_SPACE.search(text, pos)
    return match.start() if match else len(text)
