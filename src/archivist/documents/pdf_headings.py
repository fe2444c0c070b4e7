"""Give a PDF's Markdown pages the document's own headings: pure text functions.

pymupdf4llm marks headings by font size only, which is wrong in both directions (a cover
page in large type becomes three headings; a 10-K in body-size bold has none). Two sources
are better:

* **The outline** (bookmarks), when the PDF has one: each entry's title is looked up on its
  page and that line becomes a heading of the entry's level (capped at H3, the deepest
  level that starts a parent). Every other heading line becomes bold text.
* **Otherwise, heuristics** on whole-bold lines: SEC filing parts ("PART II") become H1,
  items ("Item 7A. Quantitative ...") H2, numbered titles ("2.1 Scope") H1-H3 by depth,
  and short all-capital titles ("COMPETITION") H3. When parts or items are found, the
  other titles become H3 and the font-size headings H4, so they cannot break the filing's
  structure.

Pages flagged as a table of contents or an index get no headings from the heuristics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from archivist.documents.pdf_markup import plain

__all__ = ["OutlineEntry", "apply_heuristic_headings", "apply_outline"]

OutlineEntry = tuple[int, str, int]  # (level, title, 1-based page), as PyMuPDF's get_toc()

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING_LINE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_WHOLE_BOLD = re.compile(r"^\s*\*\*(.+?)\*\*\s*$")
_NUMBERING = re.compile(r"^(?:[A-Z]|\d+(?:\.\d+)*)\.?\s+")
_PART = re.compile(r"^PART\s+([IVX]{1,4})\.?$", re.IGNORECASE)
_ITEM = re.compile(r"^ITEM\s+(\d{1,2}[A-C]?)\s*[.:]\s*(\S.*)?$", re.IGNORECASE)
_NUMBERED_TITLE = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,2})\.?\s+[A-Z][^.]{2,80}$")
_APPENDIX = re.compile(r"^(?:appendix|chapter)\s+", re.IGNORECASE)
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_MAX_TITLE = 160


def _key(text: str) -> str:
    """Letters and digits only, lower case: quotes, spacing and markup do not matter."""
    return _NOT_ALNUM.sub("", _APPENDIX.sub("", plain(text)).lower())


def _key_unnumbered(text: str) -> str:
    return _key(_NUMBERING.sub("", _APPENDIX.sub("", plain(text))))


def apply_outline(
    pages: list[str], page_numbers: Sequence[int], outline: Sequence[OutlineEntry]
) -> list[str]:
    """Turn each outline entry's line on its page into a heading; demote the rest.

    ``pages[i]`` is the Markdown of page ``page_numbers[i]``. Returns new page texts.
    """
    entries: dict[int, list[tuple[int, str]]] = {}
    for level, title, page in outline:
        if title.strip() and page >= 1:
            entries.setdefault(page, []).append((level, title))
    result = []
    for text, number in zip(pages, page_numbers, strict=True):
        raw = text.split("\n")
        inside = _inside_fence(raw)
        lines = [line if inside[i] else _demote(line) for i, line in enumerate(raw)]
        marks: dict[int, tuple[int, str]] = {}  # first line -> (last line, heading)
        prefix: list[str] = []
        cursor = 0  # outline entries hold on contents and index pages too
        for position, (level, title) in enumerate(entries.get(number, [])):
            found = _find_title(lines, title, cursor, marks)
            if found is None:
                found = _find_title(lines, title, 0, marks)
            marker = "#" * min(level, 3) + " "
            if found is not None:
                start, end = found
                marks[start] = (end, marker + plain(" ".join(lines[start : end + 1])))
                cursor = end + 1
            elif position == 0:  # a bookmark named unlike any line: it opens the page
                prefix = [marker + " ".join(title.split()), ""]
        result.append("\n".join(prefix + _replace(lines, marks)))
    return result


def _replace(lines: list[str], marks: dict[int, tuple[int, str]]) -> list[str]:
    """Put the headings in, closing a code block that pymupdf4llm let run over one."""
    out: list[str] = []
    heads: set[int] = set()
    index = 0
    while index < len(lines):
        if index in marks:
            end, heading = marks[index]
            heads.add(len(out))
            out.append(heading)
            index = end + 1
        else:
            out.append(lines[index])
            index += 1
    return _close_fences(out, heads)


def _inside_fence(lines: list[str]) -> list[bool]:
    states: list[bool] = []
    fence = ""
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            states.append(True)
            if opened and line.strip().startswith(fence):
                fence = ""
        else:
            states.append(bool(opened))
            fence = opened.group(1) if opened else ""
    return states


def _close_fences(lines: list[str], heads: set[int]) -> list[str]:
    """Close an open code block before a heading line, dropping the block's late closer."""
    out: list[str] = []
    fence = ""
    drop_closer = False
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if index in heads:
                out += [fence, "", line]
                fence, drop_closer = "", True
                continue
            if opened and line.strip().startswith(fence):
                fence = ""
        elif opened:
            if drop_closer:
                drop_closer = False
                continue
            fence = opened.group(1)
        out.append(line)
    return out


def _demote(line: str) -> str:
    heading = _HEADING_LINE.match(line)
    if not heading:
        return line
    title = plain(heading.group(2))
    return f"**{title}**" if title else ""


def _find_title(
    lines: list[str], title: str, start: int, taken: dict[int, tuple[int, str]]
) -> tuple[int, int] | None:
    """Where ``title`` is, with or without its numbering, at or after line ``start``.

    Returns ``(first, last)`` line indexes: one line, or two for a wrapped title.
    """
    want, want_bare = _key(title), _key_unnumbered(title)
    if not want_bare:
        return None
    for index in range(start, len(lines)):
        line = lines[index]
        if index in taken or len(line) > _MAX_TITLE + 20 or not line.strip():
            continue
        if line.lstrip().startswith("|"):
            continue
        if want in (_key(line), _key_unnumbered(line)) or _key_unnumbered(line) == want_bare:
            return index, index
        following = index + 1
        if following < len(lines) and lines[following].strip():
            joined = line + " " + lines[following]
            if _key_unnumbered(joined) == want_bare and len(_key(line)) < len(want):
                return index, following
    return None


def apply_heuristic_headings(
    pages: list[str], page_numbers: Sequence[int], flagged: set[int]
) -> list[str]:
    """Headings for a PDF without an outline, from whole-bold lines (module docstring)."""
    marked: list[list[str]] = []
    made: set[tuple[int, int]] = set()
    filing = 0
    for page, (text, number) in enumerate(zip(pages, page_numbers, strict=True)):
        lines = text.split("\n")
        inside = _inside_fence(lines)
        if number not in flagged:
            for index, line in enumerate(lines):
                heading = None if inside[index] else _heuristic_heading(line)
                if heading is not None:
                    lines[index] = heading
                    made.add((page, index))
                    filing += heading.startswith(("# PART", "## Item"))
        marked.append(lines)
    if filing >= 2:  # a filing: font-size headings must not break Parts and Items
        for page, lines in enumerate(marked):
            for index, line in enumerate(lines):
                found = _HEADING_LINE.match(line)
                if not found or line.startswith(("# PART", "## Item")):
                    continue
                level = "### " if (page, index) in made else "#### "
                lines[index] = level + plain(found.group(2))
    return ["\n".join(lines) for lines in marked]


def _heuristic_heading(line: str) -> str | None:
    bold = _WHOLE_BOLD.match(line)
    if not bold or "**" in bold.group(1):
        return None
    title = plain(bold.group(1))
    if not title or len(title) > _MAX_TITLE:
        return None
    if part := _PART.match(title):
        return f"# PART {part.group(1).upper()}"
    if item := _ITEM.match(title):
        rest = f" {item.group(2).strip()}" if item.group(2) else ""
        return f"## Item {item.group(1).upper()}.{rest}"
    if numbered := _NUMBERED_TITLE.match(title):
        depth = numbered.group(1).count(".") + 1
        return "#" * min(depth, 3) + " " + title
    letters = [c for c in title if c.isalpha()]
    if len(letters) >= 6 and len(title) <= 80 and all(c.isupper() for c in letters):
        return "### " + title
    return None
