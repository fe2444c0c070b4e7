"""Find Markdown tables in a text and cut a large one by rows: pure functions, no I/O.

A table is a run of lines starting with ``|`` whose second line is a delimiter row
(``|---|---|``). A table larger than a child is cut between rows; every piece after the
first starts with the table's header and delimiter rows again, so each piece reads as a
table of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Block", "TablePiece", "blocks", "split_table"]

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
    if len(body) <= size:
        return [TablePiece(block.start, block.end, "")]
    lines = body.split("\n")
    header = "\n".join(lines[:2]) + "\n"
    pieces: list[TablePiece] = []
    piece_start = block.start
    offset = block.start + len(header)
    length = len(header)
    for line in lines[2:]:
        row = len(line) + 1
        if length + row > size + 1 and offset > piece_start + (len(header) if not pieces else 0):
            pieces.append(TablePiece(piece_start, offset - 1, header if pieces else ""))
            piece_start, length = offset, len(header)
        length += row
        offset += row
    pieces.append(TablePiece(piece_start, block.end, header if pieces else ""))
    return pieces


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")
