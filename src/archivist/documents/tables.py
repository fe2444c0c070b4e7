"""Find Markdown tables in a text and cut a large one by rows: pure functions, no I/O.

A table is a run of lines starting with ``|`` whose second line is a delimiter row
(``|---|---|``). A table larger than a child is cut between rows; every piece after the
first starts with the table's header and delimiter rows again, so each piece reads as a
table of its own. A parent that starts inside a table (a table larger than a parent) gets
that table's header again (``continued_header``), and so do its children.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Block",
    "TablePiece",
    "blocks",
    "continued_header",
    "is_delimiter_row",
    "leading_rows",
    "split_rows",
    "split_table",
    "table_header",
]

_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Block:
    """``text[start:end]``: a table (``is_table``) or the text between tables."""

    start: int
    end: int
    is_table: bool


@dataclass(frozen=True)
class TablePiece:
    """Rows ``text[start:end]`` of a table; ``header`` is prepended when it is not the first."""

    start: int
    end: int
    header: str


def blocks(text: str) -> list[Block]:
    """Cut ``text`` into table blocks and the text around them, in order, covering it all."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    found: list[Block] = []
    index = 0
    cursor = 0
    while index < len(lines):
        if (
            _is_row(lines[index])
            and index + 1 < len(lines)
            and _DELIMITER_ROW.match(lines[index + 1])
        ):
            end = index + 2
            while end < len(lines) and _is_row(lines[end]):
                end += 1
            start_offset, end_offset = offsets[index], min(offsets[end] - 1, len(text))
            if start_offset > cursor:
                found.append(Block(cursor, start_offset, False))
            found.append(Block(start_offset, end_offset, True))
            cursor = end_offset
            index = end
        else:
            index += 1
    if cursor < len(text):
        found.append(Block(cursor, len(text), False))
    return found


def split_table(text: str, block: Block, size: int) -> list[TablePiece]:
    """Cut a table block into pieces of whole rows, each at most ``size`` with its header.

    A single row longer than that is a piece of its own (rows are never cut).
    """
    body = text[block.start : block.end]
    header = table_header(body)
    if len(body) <= size or block.start + len(header) >= block.end:
        return [TablePiece(block.start, block.end, "")]
    pieces = split_rows(text, block.start + len(header), block.end, header, size)
    pieces[0] = TablePiece(block.start, pieces[0].end, "")  # its own header is in its text
    return pieces


def split_rows(text: str, start: int, end: int, header: str, size: int) -> list[TablePiece]:
    """Cut the table rows ``text[start:end]`` into pieces that each repeat ``header``.

    Each piece, with the header, is at most ``size`` unless it is a single longer row.
    """
    pieces: list[TablePiece] = []
    piece_start = offset = start
    length = len(header)
    for line in text[start:end].split("\n"):
        row = len(line) + 1
        if length + row > size + 1 and offset > piece_start:
            pieces.append(TablePiece(piece_start, offset - 1, header))
            piece_start, length = offset, len(header)
        length += row
        offset += row
    pieces.append(TablePiece(piece_start, end, header))
    return pieces


def table_header(table: str) -> str:
    """The header and delimiter rows of a Markdown table's text, with their newline."""
    return "\n".join(table.split("\n", 2)[:2]) + "\n"


def leading_rows(text: str) -> int:
    """Where the run of table rows that ``text`` starts with ends (0 when it starts with none)."""
    end = 0
    for line in text.split("\n"):
        if not _is_row(line):
            break
        end += len(line) + 1
    return min(end - 1, len(text)) if end else 0


def continued_header(markdown: str, tables: list[Block], offset: int) -> str:
    """The header of the table that ``offset`` falls inside, past its header; else ``""``.

    ``tables`` are the table blocks of ``markdown``. A parent starting there continues
    that table, so its rows get the header again.
    """
    if markdown[offset - 1 : offset] != "\n" or not _is_row(markdown[offset : offset + 200]):
        return ""  # not at the start of a row: a row longer than a parent was cut
    for block in tables:
        if block.start < offset < block.end:
            header = table_header(markdown[block.start : block.end])
            return header if offset >= block.start + len(header) else ""
    return ""


def is_delimiter_row(line: str) -> bool:
    """``|---|:--:|``: the row under a table's header."""
    return bool(_DELIMITER_ROW.match(line))


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")
