"""Split a loaded document into parent sections by headings, and parents into children.

Pure functions, no I/O. Parents are contiguous slices of ``doc.markdown``: concatenating
their ``text`` in order gives the document back exactly, so every offset and page range
can be trusted. Children are (overlapping) slices of one parent, small enough to embed.

Rules for parents (:func:`split_parents`):

* Boundaries are ATX headings H1-H3 (``#``, ``##``, ``###`` after at most three spaces)
  outside fenced code blocks (backticks or tildes). H4+ and setext headings are not
  boundaries. Text before the first heading is a section with heading path ``[]``.
* A section longer than ``max_chars`` is cut into near-equal pieces (about
  ``ceil(len / max_chars)``, none under a third of ``max_chars``), each cut at the best
  boundary near its ideal position: blank line > line break > sentence end > space >
  hard cut. Cuts fall after whitespace, so every piece but the first starts with text.
  Pieces keep the section's heading path.
* Merge rule: a section shorter than ``min_chars`` (or whitespace only) is merged, in
  this order of preference, (1) forward into the next section of the same H1 chapter,
  (2) backward into the previous section, (3) forward across a chapter boundary, each
  only when the result is at most ``max_chars``; it stays alone otherwise. Text before
  the first heading counts as part of the first chapter. A merged section's heading path
  is the longest common prefix of its parts' paths (whitespace-only parts do not count),
  so the path never claims a heading that does not enclose all of the text.
* No section is longer than ``max_chars``, except a Markdown table row longer than that:
  rows are never cut, so such a row is a section of its own (with its table's header and
  delimiter rows when it is the first row). A whitespace-only section is never emitted,
  unless a single run of whitespace is itself longer than ``max_chars``.
* A section with under ``MIN_TEXT`` (or ``min_chars``, if smaller) characters of text (a
  heading alone, say) joins the
  next one (the previous one at the end), and the result takes the next one's heading
  path (a lone heading belongs to what follows); it is re-split if it grew past
  ``max_chars``.
* Pages flagged in ``doc.page_kinds`` (a table of contents, an index) never share a
  section with other pages; such sections carry the page kind in ``Section.kind``.

Rules for children (:func:`split_children`): Markdown tables are never cut inside a row; a
table larger than a child is cut by rows and each piece repeats the header. A child with
under ``MIN_TEXT`` characters of text joins its neighbour, unless it is only a heading the
heading path already names: that one is left out (every child carries the path as context).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import pairwise

from archivist.documents.children import MIN_TEXT, split_children
from archivist.documents.headings import HEADING, clean_title
from archivist.documents.tables import is_delimiter_row
from archivist.types import LoadedDocument, Section

__all__ = ["MIN_TEXT", "heading_path_text", "heading_sections", "split_children", "split_parents"]

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*$", re.MULTILINE)

# Where a long section may be cut, best first. A cut goes at a match's end, which is
# the end of a whitespace run, so the next piece starts with text.
_CUT_PATTERNS = (
    re.compile(r"\n[ \t]*\n\s*"),  # blank line (paragraph end)
    re.compile(r"\n\s*"),  # line break
    re.compile(r"[.!?]['\")\]]*\s+"),  # sentence end
    re.compile(r"\s+"),  # space
)


@dataclass(frozen=True)
class _Heading:
    offset: int
    level: int
    title: str


@dataclass(frozen=True)
class _Unit:
    """A candidate parent: ``markdown[start:end]`` under ``path``, in H1 chapter ``group``."""

    start: int
    end: int
    path: tuple[str, ...]
    group: int
    blank: bool
    filled: int = 0  # characters of text, whitespace aside
    kind: str = "body"

    @property
    def size(self) -> int:
        return self.end - self.start


def heading_path_text(path: list[str]) -> str:
    """Render a heading path as one line, e.g. ``"Installation > Linux > Debian"``."""
    return " > ".join(path)


def split_parents(
    doc: LoadedDocument, min_chars: int = 2000, max_chars: int = 4000
) -> list[Section]:
    """Cut ``doc.markdown`` into contiguous parent sections along its H1-H3 headings.

    Sections are between ``min_chars`` and ``max_chars`` long where the document allows
    (see the module docstring for the exact rules), never longer than ``max_chars``, and
    their texts concatenate to ``doc.markdown``. A document without any non-whitespace
    text gives ``[]``.
    """
    if max_chars < 1 or not 0 <= min_chars <= max_chars:
        raise ValueError(
            f"need 0 <= min_chars <= max_chars and max_chars >= 1, "
            f"got min_chars={min_chars}, max_chars={max_chars}"
        )
    text = doc.markdown
    if not text.strip():
        return []
    units = _by_page_kind(text, _heading_units(text), _kind_changes(doc))
    units = [piece for unit in units for piece in _split_unit(text, unit, max_chars)]
    units = _merge_forward(text, units, min_chars, max_chars, same_group=True)
    units = _merge_backward(text, units, min_chars, max_chars)
    units = _merge_forward(text, units, min_chars, max_chars, same_group=False)
    units = _absorb_blanks(text, units, max_chars, min(min_chars, MIN_TEXT))
    return [_to_section(doc, u.start, u.end, list(u.path), u.kind) for u in units]


def _to_section(
    doc: LoadedDocument, start: int, end: int, path: list[str], kind: str = "body"
) -> Section:
    page_start, page_end = doc.pages_between(start, end)
    return Section(doc.markdown[start:end], path, start, end, page_start, page_end, kind)


def _kind_changes(doc: LoadedDocument) -> list[tuple[int, str]]:
    """``(offset, kind)`` wherever the page kind changes, from ``doc.page_kinds``."""
    changes: list[tuple[int, str]] = []
    current = "body"
    for span in doc.page_spans:
        kind = doc.page_kinds.get(span.page, "body")
        if kind != current:
            changes.append((span.start, kind))
            current = kind
    return changes


def _by_page_kind(text: str, units: list[_Unit], changes: list[tuple[int, str]]) -> list[_Unit]:
    """Cut units where the page kind changes and give each unit its kind."""
    if not changes:
        return units
    offsets = [offset for offset, _ in changes]
    result: list[_Unit] = []
    for unit in units:
        bounds = [unit.start, *(o for o in offsets if unit.start < o < unit.end), unit.end]
        for a, b in pairwise(bounds):
            at = bisect_right(offsets, a) - 1
            kind = changes[at][1] if at >= 0 else "body"
            result.append(_unit(text, a, b, unit.path, unit.group, kind))
    return result


# --- headings ---------------------------------------------------------------------------


def _find_headings(text: str) -> list[_Heading]:
    """Find the H1-H3 ATX headings of ``text`` that are not inside fenced code."""
    headings: list[_Heading] = []
    fence = ""
    offset = 0
    for raw_line in text.split("\n"):
        line = raw_line.rstrip("\r")
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = ""
        elif opened := _FENCE_OPEN.match(line):
            fence = opened.group(1)
        elif heading := HEADING.fullmatch(line):
            title = clean_title(heading.group(2) or "")
            headings.append(_Heading(offset, len(heading.group(1)), title))
        offset += len(raw_line) + 1
    return headings


def _heading_units(text: str) -> list[_Unit]:
    """Make one unit per heading (plus the text before the first), with its path."""
    headings = _find_headings(text)
    units: list[_Unit] = []
    stack: list[tuple[int, str]] = []
    chapter = 0
    ends = [h.offset for h in headings[1:]] + [len(text)] if headings else []
    for heading, end in zip(headings, ends, strict=True):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        stack.append((heading.level, heading.title))
        chapter += heading.level == 1
        path = tuple(title for _, title in stack if title)
        units.append(_unit(text, heading.offset, end, path, chapter))
    first = headings[0].offset if headings else len(text)
    if first > 0:
        group = units[0].group if units else 0
        units.insert(0, _unit(text, 0, first, (), group))
    return units


def heading_sections(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(start, end, heading path)`` of every H1-H3 section (and the text before the first).

    The sections are contiguous and in reading order; each starts at its heading line.
    """
    return [(unit.start, unit.end, unit.path) for unit in _heading_units(text)]


def _unit(
    text: str, start: int, end: int, path: tuple[str, ...], group: int, kind: str = "body"
) -> _Unit:
    filled = len(text[start:end].strip())
    return _Unit(start, end, path, group, not filled, filled, kind)


# --- splitting long sections --------------------------------------------------------------


def _split_unit(text: str, unit: _Unit, max_chars: int) -> list[_Unit]:
    """Cut ``unit`` into near-equal pieces of at most ``max_chars`` at good boundaries."""
    if unit.size <= max_chars:
        return [unit]
    bounds = [unit.start, *_cut_points(text, unit.start, unit.end, max_chars), unit.end]
    return [_unit(text, a, b, unit.path, unit.group, unit.kind) for a, b in pairwise(bounds)]


def _cut_points(text: str, start: int, end: int, max_chars: int) -> list[int]:
    """Find offsets cutting ``text[start:end]`` into near-equal pieces of at most ``max_chars``.

    Each cut aims at an equal share of what is left (``ceil(left / max_chars)`` pieces)
    and may move a third of a share either way to reach a better boundary, so no piece is
    shorter than a third of ``max_chars``.
    """
    rows = _table_rows(text, start, end)
    candidates = [
        [m.end() for m in p.finditer(text, start, end) if not _inside_row(rows, m.end())]
        for p in _CUT_PATTERNS
    ]
    cuts: list[int] = []
    pos = start
    while end - pos > max_chars:
        remaining = end - pos
        share = math.ceil(remaining / math.ceil(remaining / max_chars))
        ideal = pos + share
        slack = share // 3
        cut = _best_cut(
            candidates, max(pos + 1, ideal - slack), min(pos + max_chars, ideal + slack), ideal
        )
        pos = _off_rows(text, rows, pos, cut)
        if pos >= end:
            break
        cuts.append(pos)
    return cuts


def _table_rows(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each Markdown table row (a line starting with ``|``) in a slice."""
    return [(m.start(), m.end()) for m in _TABLE_ROW.finditer(text, start, end)]


def _inside_row(rows: list[tuple[int, int]], offset: int) -> bool:
    at = bisect_right(rows, (offset + 1, -1)) - 1
    return at >= 0 and rows[at][0] < offset <= rows[at][1]


def _off_rows(text: str, rows: list[tuple[int, int]], pos: int, cut: int) -> int:
    """Move a ``cut`` that falls inside a table row to a row boundary; rows are never cut.

    The cut moves back to the row's start (or its table's start, when the row is the
    first below the header) if that is after ``pos``, else forward past the row: a row
    longer than a parent becomes a piece of its own.
    """
    at = bisect_right(rows, (cut + 1, -1)) - 1
    if at < 0 or not rows[at][0] < cut <= rows[at][1]:
        return cut
    row_start = rows[at][0]
    if at >= 2 and rows[at - 2][0] > pos and _is_first_row(text, rows, at):
        return rows[at - 2][0]  # with its header, so no parent holds a header alone
    return row_start if row_start > pos else rows[at][1] + 1


def _is_first_row(text: str, rows: list[tuple[int, int]], at: int) -> bool:
    """Row ``at`` follows a header and a delimiter row directly."""
    header, delimiter = rows[at - 2], rows[at - 1]
    return (
        header[1] + 1 == delimiter[0]
        and delimiter[1] + 1 == rows[at][0]
        and is_delimiter_row(text[delimiter[0] : delimiter[1]])
        and not is_delimiter_row(text[header[0] : header[1]])
    )


def _best_cut(candidates: list[list[int]], low: int, high: int, ideal: int) -> int:
    """Pick the best-ranked boundary in ``[low, high]`` nearest ``ideal``, else ``ideal``."""
    for offsets in candidates:
        window = offsets[bisect_left(offsets, low) : bisect_right(offsets, high)]
        if window:
            return min(window, key=lambda offset: abs(offset - ideal))
    return ideal


# --- merging small sections ---------------------------------------------------------------


def _needs_merge(unit: _Unit, min_chars: int) -> bool:
    return unit.blank or unit.size < min_chars


def _join(text: str, first: _Unit, second: _Unit, tiny: int = 0) -> _Unit:
    if first.blank or first.filled < tiny:
        path = second.path
    elif second.blank:
        path = first.path
    else:
        common = 0
        while (
            common < min(len(first.path), len(second.path))
            and first.path[common] == second.path[common]
        ):
            common += 1
        path = first.path[:common]
    kind = second.kind if first.blank else first.kind
    return _unit(text, first.start, second.end, path, first.group, kind)


def _merge_forward(
    text: str, units: list[_Unit], min_chars: int, max_chars: int, *, same_group: bool
) -> list[_Unit]:
    """Merge each small unit into the one after it, while the result fits."""
    merged: list[_Unit] = []
    for unit in units:
        if (
            merged
            and _needs_merge(merged[-1], min_chars)
            and merged[-1].size + unit.size <= max_chars
            and merged[-1].kind == unit.kind
            and (not same_group or merged[-1].group == unit.group)
        ):
            merged[-1] = _join(text, merged[-1], unit)
        else:
            merged.append(unit)
    return merged


def _merge_backward(text: str, units: list[_Unit], min_chars: int, max_chars: int) -> list[_Unit]:
    """Merge each small unit into the one before it, while the result fits."""
    merged: list[_Unit] = []
    for unit in units:
        if (
            merged
            and _needs_merge(unit, min_chars)
            and merged[-1].size + unit.size <= max_chars
            and merged[-1].kind == unit.kind
        ):
            merged[-1] = _join(text, merged[-1], unit)
        else:
            merged.append(unit)
    return merged


def _absorb_blanks(text: str, units: list[_Unit], max_chars: int, tiny: int) -> list[_Unit]:
    """Join whitespace-only and tiny units with a neighbour, then re-split to fit.

    A tiny unit (under ``tiny`` characters of text: a heading alone) joins the unit after
    it; the last one joins the unit before it.
    """
    result: list[_Unit] = []
    for position, unit in enumerate(units):
        last = position == len(units) - 1
        if result and (
            result[-1].blank
            or unit.blank
            or result[-1].filled < tiny
            or (unit.filled < tiny and last)
        ):
            joined = _join(text, result.pop(), unit, tiny)
            result.extend(_split_unit(text, joined, max_chars))
        else:
            result.append(unit)
    return result
