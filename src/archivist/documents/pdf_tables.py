"""Tables on PDF pages found from where the words stand, with or without ruling lines.

A financial statement is drawn without lines: a label at the left, figures right-aligned
in columns, years centred above them. Each page's words (PyMuPDF's ``get_text("words")``,
about 2 ms a page) are grouped into lines, each line cut into segments where a wide gap
separates words; a run of lines whose segments after the label are figures is a table.
Its columns are the right edges the figures share; the lines just above it whose words
stand over those columns are its header; the short lines above that are its caption. A
table that ends a page and one that starts the next with the same columns are joined.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from archivist.documents.table_values import data_table, is_year, parse_cell
from archivist.types import DataTable

__all__ = ["Grid", "find_tables", "page_grids"]

_SAME_LINE = 3.0  # points between the vertical centres of words on one line
_EDGE = 9.0  # points between the right edges of figures in one column
_CAPTION_LINES = 3
_SKIP_CAPTIONS = ("table of contents",)


@dataclass
class _Segment:
    x0: float
    x1: float
    text: str

    @property
    def figure(self) -> bool:
        value = parse_cell(self.text)
        return value is None or isinstance(value, int | float)


@dataclass
class _Line:
    y0: float
    y1: float
    segments: list[_Segment]

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments)

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


@dataclass
class Grid:
    """A table's cell texts, header rows first, with its caption and pages."""

    caption: str
    rows: list[list[str]]
    page_start: int
    page_end: int
    header_rows: int = 0
    columns: list[float] = field(default_factory=list)  # right edges of the value columns


def _lines(words: list[Any]) -> list[_Line]:
    """Words grouped into visual lines (top to bottom), each cut at wide gaps."""
    ordered = sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0]))
    rows: list[list[Any]] = []
    for word in ordered:
        centre = (word[1] + word[3]) / 2
        if rows and abs(centre - (rows[-1][0][1] + rows[-1][0][3]) / 2) <= _SAME_LINE:
            rows[-1].append(word)
        else:
            rows.append([word])
    out = []
    for row in rows:
        row.sort(key=lambda w: w[0])
        height = max(w[3] - w[1] for w in row)
        gap = max(7.0, 0.8 * height)
        segments: list[_Segment] = []
        for word in row:
            text = str(word[4])
            if segments and word[0] - segments[-1].x1 <= gap:
                last = segments[-1]
                segments[-1] = _Segment(last.x0, max(last.x1, word[2]), f"{last.text} {text}")
            else:
                segments.append(_Segment(word[0], word[2], text))
        out.append(_Line(min(w[1] for w in row), max(w[3] for w in row), _merge_signs(segments)))
    return out


def _merge_signs(segments: list[_Segment]) -> list[_Segment]:
    """A lone ``$`` joins the figure after it, a lone ``%`` the figure before it."""
    out: list[_Segment] = []
    for segment in segments:
        if out and out[-1].text in ("$", "US$", "€", "£") and segment.figure:
            out[-1] = _Segment(out[-1].x0, segment.x1, f"{out[-1].text} {segment.text}")
        elif out and segment.text == "%" and out[-1].figure:
            out[-1] = _Segment(out[-1].x0, segment.x1, out[-1].text + "%")
        else:
            out.append(segment)
    return out


def _is_row(line: _Line) -> bool:
    """A label (or none) followed by figures only, at least one of them a number."""
    values = line.segments[1:] if not line.segments[0].figure else line.segments
    if not values or not all(s.figure for s in values):
        return False
    numbers = [s for s in values if isinstance(parse_cell(s.text), int | float)]
    if not numbers:
        return False
    return len(values) >= 2 or len(line.segments) == 2


def _is_year_row(line: _Line) -> bool:
    """``2017 2016 2015`` (perhaps after ``($ million)``): a header, not figures."""
    values = _values(line)
    return len(values) >= 2 and all(is_year(s.text) for s in values)


def _columns(rows: list[_Line]) -> list[tuple[float, float]]:
    """The value columns' (left, right) extents: right edges shared by figures."""
    edges: list[list[_Segment]] = []
    for segment in sorted((s for line in rows for s in _values(line)), key=lambda s: s.x1):
        if edges and segment.x1 - edges[-1][-1].x1 <= _EDGE:
            edges[-1].append(segment)
        else:
            edges.append([segment])
    need = 2 if len(rows) >= 4 else 1
    return [(min(s.x0 for s in group), max(s.x1 for s in group))
            for group in edges if len(group) >= need]


def _values(line: _Line) -> list[_Segment]:
    return line.segments if line.segments[0].figure else line.segments[1:]


def _column_of(segment: _Segment, columns: list[tuple[float, float]]) -> int | None:
    """The column a segment stands in: the one it overlaps most, else the nearest edge."""
    best, overlap = None, 0.0
    for index, (left, right) in enumerate(columns):
        shared = min(right, segment.x1) - max(left, segment.x0)
        if shared > overlap:
            best, overlap = index, shared
    if best is not None:
        return best
    centre = (segment.x0 + segment.x1) / 2
    distances = [abs((left + right) / 2 - centre) for left, right in columns]
    nearest = min(range(len(columns)), key=distances.__getitem__)
    return nearest if distances[nearest] <= 4 * _EDGE else None


def _cells(line: _Line, columns: list[tuple[float, float]]) -> list[str] | None:
    """``[label, value per column]``, or ``None`` when a value fits no column."""
    cells = [""] * (len(columns) + 1)
    for segment in line.segments:
        index = _column_of(segment, columns) if segment.x1 > columns[0][0] - _EDGE else None
        if index is None:
            if segment is not line.segments[0] or segment.figure and segment.x0 > columns[0][0]:
                return None
            cells[0] = segment.text
        else:
            cells[index + 1] = f"{cells[index + 1]} {segment.text}".strip()
    return cells


def _runs(lines: list[_Line]) -> list[tuple[int, int]]:
    """``(first, end)`` line ranges of table bodies: rows, with label-only lines between."""
    runs: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        if not _is_row(lines[index]) or _is_year_row(lines[index]):
            index += 1
            continue
        start = end = index
        cursor = index + 1
        while cursor < len(lines):
            gap = lines[cursor].y0 - lines[cursor - 1].y1
            if gap > 2.5 * lines[cursor - 1].height:
                break
            if _is_row(lines[cursor]) and not _is_year_row(lines[cursor]):
                end = cursor
            elif len(lines[cursor].segments) != 1 or len(lines[cursor].text) > 120:
                break
            cursor += 1
        if sum(1 for line in lines[start:end + 1] if _is_row(line)) >= 2:
            runs.append((start, end + 1))
        index = end + 1
    return runs


def _label_only(line: _Line, margin: float) -> bool:
    """A line with only a label at the table's left margin (``Current assets:``)."""
    first = line.segments[0]
    return len(line.segments) == 1 and not first.figure and abs(first.x0 - margin) <= 30 \
        and len(first.text) <= 80


def _near(upper: _Line, lower: _Line) -> bool:
    return lower.y0 - upper.y1 <= 2.5 * upper.height


def _header(lines: list[_Line], start: int, floor: int,
            columns: list[tuple[float, float]]) -> tuple[int, list[list[str]], list[str]]:
    """The header lines above ``start``: where they begin, one row of cells, and notes.

    A line of several segments over the value columns is header; a single segment over
    them (``Year ended December 31,``) is a note for the caption. A long line reaching
    into the label column (a sentence) ends the header.
    """
    notes: list[str] = []
    used: list[_Line] = []
    index = start
    while index - 1 >= floor and len(used) + len(notes) < 5:
        line = lines[index - 1]
        if not _near(line, lines[index]) or _is_row(line) and not _is_year_row(line):
            break
        over = [s for s in line.segments if s.x1 > columns[0][0] - _EDGE]
        if not over and len(line.segments) == 1 and len(line.text) <= 80:
            notes.insert(0, line.text)  # "(in thousands)" centred over the whole table
            index -= 1
            continue
        if not over or any(len(s.text) > 60 for s in line.segments if s not in over) \
                or any(len(s.text) > 80 for s in line.segments):
            break
        if len(line.segments) == 1 and len(columns) >= 2:
            notes.insert(0, line.text)
        else:
            used.insert(0, line)
        index -= 1
    rows = [_header_cells(used, columns)] if used else []
    return index, rows, notes


def page_grids(words: list[Any], page: int) -> list[Grid]:
    """The tables on one page (its ``get_text("words")``), as grids."""
    lines = _lines(words)
    grids = []
    taken = 0
    for start, end in _runs(lines):
        columns = _columns([line for line in lines[start:end] if _is_row(line)])
        if not columns or start < taken:
            continue
        margin = lines[start].segments[0].x0
        while start - 1 >= taken and _label_only(lines[start - 1], margin) \
                and _near(lines[start - 1], lines[start]):
            start -= 1
        first, header, notes = _header(lines, start, taken, columns)
        rows = _body_cells(lines[start:end], columns)
        if len(rows) < 2:
            continue
        caption = " ".join([_caption(lines, first, taken), *notes]).strip()
        grids.append(Grid(caption, header + rows, page, page, len(header),
                          [right for _, right in columns]))
        taken = end
    return grids


def _body_cells(body: list[_Line], columns: list[tuple[float, float]]) -> list[list[str]]:
    """Body rows as cells; a label line joins the row under it when that row continues it."""
    rows: list[list[str]] = []
    pending = ""
    for line in body:
        cells = _cells(line, columns)
        if cells is None:  # a value outside every column: not a row of this table
            continue
        if not any(cells[1:]):
            if pending and not pending.endswith(":"):
                rows.append([pending] + [""] * len(columns))
            pending = cells[0]
            continue
        if pending and (not cells[0] or cells[0][:1].islower()) and not pending.endswith(":"):
            cells[0] = f"{pending} {cells[0]}".strip()
        elif pending:
            rows.append([pending] + [""] * len(columns))
        pending = ""
        rows.append(cells)
    return rows


def _header_cells(lines: list[_Line], columns: list[tuple[float, float]]) -> list[str]:
    """One header row: each column's header words, top to bottom.

    Words spanning several columns (``Three Months Ended`` over two years) are put before
    the header of each column they span only when the headers would repeat without them.
    """
    plain = _header_words(lines, columns, spans=False)
    named = [cell for cell in plain[1:] if cell]
    return plain if len(set(named)) == len(named) else _header_words(lines, columns, True)


def _header_words(lines: list[_Line], columns: list[tuple[float, float]],
                  spans: bool) -> list[str]:
    cells = [""] * (len(columns) + 1)
    for line in lines:
        for segment in line.segments:
            spanned = [i for i, (left, right) in enumerate(columns)
                       if min(right, segment.x1) - max(left, segment.x0) > 0]
            if len(spanned) > 1:
                slots = [i + 1 for i in spanned] if spans else []
            elif segment.x1 > columns[0][0] - _EDGE:
                index = _column_of(segment, columns)
                slots = [0 if index is None else index + 1]
            else:
                slots = [0]
            for slot in slots:
                cells[slot] = f"{cells[slot]} {segment.text}".strip()
    return cells


def _caption(lines: list[_Line], first: int, floor: int) -> str:
    """The short lines just above a table (its title and unit), top to bottom."""
    picked: list[str] = []
    index = first - 1
    while index >= floor and len(picked) < _CAPTION_LINES:
        line = lines[index]
        below = lines[index + 1]
        ends_sentence = line.text.endswith(".") and len(line.text) > 30
        if below.y0 - line.y1 > 3 * line.height or len(line.text) > 120 or _is_row(line) \
                or ends_sentence:
            break
        if line.text.strip().casefold() not in _SKIP_CAPTIONS:
            picked.insert(0, line.text)
        index -= 1
    return " ".join(picked)


def _joined(grids: list[Grid]) -> list[Grid]:
    """A table that ends a page and one that starts the next with the same columns, as one."""
    out: list[Grid] = []
    for grid in grids:
        last = out[-1] if out else None
        if (last is not None and grid.page_start == last.page_end + 1
                and len(grid.columns) == len(last.columns)
                and all(abs(a - b) <= _EDGE for a, b in zip(grid.columns, last.columns,
                                                             strict=True))
                and (not grid.caption or "continued" in grid.caption.casefold()
                     or grid.caption == last.caption)
                and (grid.header_rows == 0
                     or grid.rows[:grid.header_rows] == last.rows[:last.header_rows])):
            last.rows.extend(grid.rows[grid.header_rows:])
            last.page_end = grid.page_end
        else:
            out.append(grid)
    return out


def find_tables(doc: Any, pages: list[int], skip: set[int] | None = None) -> list[DataTable]:
    """The tables on the 0-based ``pages`` of a PyMuPDF document, as typed tables.

    Pages numbered (from 1) in ``skip`` (contents and index pages) are not searched.
    """
    grids: list[Grid] = []
    for index in pages:
        if skip and index + 1 in skip:
            continue
        grids.extend(page_grids(doc[index].get_text("words"), index + 1))
    tables = []
    for grid in _joined(grids):
        table = data_table(grid.rows, grid.caption, (grid.page_start, grid.page_end))
        if table is not None:
            tables.append(table)
    return tables
