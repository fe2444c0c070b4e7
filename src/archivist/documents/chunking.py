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
* No section is longer than ``max_chars``. A whitespace-only section is never emitted,
  unless a single run of whitespace is itself longer than ``max_chars``.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import pairwise

from langchain_text_splitters import RecursiveCharacterTextSplitter

from archivist.types import LoadedDocument, Section

__all__ = ["heading_path_text", "split_children", "split_parents"]

_HEADING = re.compile(r" {0,3}(#{1,3})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_STAR_EMPHASIS = re.compile(r"(\*{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)(_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")
_NON_SPACE = re.compile(r"\S")

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
    units = [piece for unit in _heading_units(text) for piece in _split_unit(text, unit, max_chars)]
    units = _merge_forward(units, min_chars, max_chars, same_group=True)
    units = _merge_backward(units, min_chars, max_chars)
    units = _merge_forward(units, min_chars, max_chars, same_group=False)
    units = _absorb_blanks(text, units, max_chars)
    return [_to_section(doc, u.start, u.end, list(u.path)) for u in units]


def split_children(
    section: Section, size: int = 500, overlap: int = 100, doc: LoadedDocument | None = None
) -> list[Section]:
    """Cut a parent into overlapping children of at most ``size`` characters.

    Uses LangChain's ``RecursiveCharacterTextSplitter`` and locates each chunk in the
    parent, so a child's ``start``/``end`` are offsets in the document and its ``text``
    equals ``doc.markdown[start:end]``. Together the children cover every non-whitespace
    character of the parent; none is whitespace only. Children keep the parent's heading
    path. Their pages come from ``doc`` when given, else they are the parent's pages.
    """
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    chunks = splitter.split_text(section.text)
    path = section.heading_path
    children: list[Section] = []
    for chunk, offset in zip(chunks, _chunk_offsets(section.text, chunks, overlap), strict=True):
        start, end = section.start + offset, section.start + offset + len(chunk)
        if doc is None:
            children.append(
                Section(chunk, list(path), start, end, section.page_start, section.page_end)
            )
        else:
            children.append(_to_section(doc, start, end, list(path)))
    return children


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


def _to_section(doc: LoadedDocument, start: int, end: int, path: list[str]) -> Section:
    page_start, page_end = doc.pages_between(start, end)
    return Section(doc.markdown[start:end], path, start, end, page_start, page_end)


def _next_text(text: str, pos: int) -> int:
    """Return the offset of the first non-whitespace character at or after ``pos``."""
    match = _NON_SPACE.search(text, pos)
    return match.start() if match else len(text)


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
        elif heading := _HEADING.fullmatch(line):
            title = _clean_title(heading.group(2) or "")
            headings.append(_Heading(offset, len(heading.group(1)), title))
        offset += len(raw_line) + 1
    return headings


def _clean_title(title: str) -> str:
    """Strip Markdown emphasis markers and extra spaces from a heading's text."""
    previous = None
    while previous != title:
        previous = title
        title = _STAR_EMPHASIS.sub(r"\2", title)
        title = _UNDERSCORE_EMPHASIS.sub(r"\2", title)
    return " ".join(title.split())


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


def _unit(text: str, start: int, end: int, path: tuple[str, ...], group: int) -> _Unit:
    return _Unit(start, end, path, group, blank=not text[start:end].strip())


# --- splitting long sections --------------------------------------------------------------


def _split_unit(text: str, unit: _Unit, max_chars: int) -> list[_Unit]:
    """Cut ``unit`` into near-equal pieces of at most ``max_chars`` at good boundaries."""
    if unit.size <= max_chars:
        return [unit]
    bounds = [unit.start, *_cut_points(text, unit.start, unit.end, max_chars), unit.end]
    return [_unit(text, a, b, unit.path, unit.group) for a, b in pairwise(bounds)]


def _cut_points(text: str, start: int, end: int, max_chars: int) -> list[int]:
    """Find offsets cutting ``text[start:end]`` into near-equal pieces of at most ``max_chars``.

    Each cut aims at an equal share of what is left (``ceil(left / max_chars)`` pieces)
    and may move a third of a share either way to reach a better boundary, so no piece is
    shorter than a third of ``max_chars``.
    """
    candidates = [[m.end() for m in p.finditer(text, start, end)] for p in _CUT_PATTERNS]
    cuts: list[int] = []
    pos = start
    while end - pos > max_chars:
        remaining = end - pos
        share = math.ceil(remaining / math.ceil(remaining / max_chars))
        ideal = pos + share
        slack = share // 3
        pos = _best_cut(
            candidates, max(pos + 1, ideal - slack), min(pos + max_chars, ideal + slack), ideal
        )
        cuts.append(pos)
    return cuts


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


def _join(first: _Unit, second: _Unit) -> _Unit:
    if first.blank:
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
    return _Unit(first.start, second.end, path, first.group, first.blank and second.blank)


def _merge_forward(
    units: list[_Unit], min_chars: int, max_chars: int, *, same_group: bool
) -> list[_Unit]:
    """Merge each small unit into the one after it, while the result fits."""
    merged: list[_Unit] = []
    for unit in units:
        if (
            merged
            and _needs_merge(merged[-1], min_chars)
            and merged[-1].size + unit.size <= max_chars
            and (not same_group or merged[-1].group == unit.group)
        ):
            merged[-1] = _join(merged[-1], unit)
        else:
            merged.append(unit)
    return merged


def _merge_backward(units: list[_Unit], min_chars: int, max_chars: int) -> list[_Unit]:
    """Merge each small unit into the one before it, while the result fits."""
    merged: list[_Unit] = []
    for unit in units:
        if merged and _needs_merge(unit, min_chars) and merged[-1].size + unit.size <= max_chars:
            merged[-1] = _join(merged[-1], unit)
        else:
            merged.append(unit)
    return merged


def _absorb_blanks(text: str, units: list[_Unit], max_chars: int) -> list[_Unit]:
    """Join any whitespace-only unit left with a neighbour, then re-split to fit."""
    result: list[_Unit] = []
    for unit in units:
        if result and (result[-1].blank or unit.blank):
            result.extend(_split_unit(text, _join(result.pop(), unit), max_chars))
        else:
            result.append(unit)
    return result
