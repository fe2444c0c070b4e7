"""Clean the Markdown pymupdf4llm makes of a PDF page: pure text functions, no PDF access.

* Presentational markup goes: ``<u>`` tags, bold or italic inside a word, emphasis in table
  cells, rules drawn with underscores, empty or unbalanced code fences, dot leaders.
* Running headers and footers (a page number, or a line that starts many pages, such as
  "Chapter 1: Introduction 5") are dropped.
* Pages that are a table of contents or a back-of-book index are recognised
  (:func:`page_kind`), so that they can be stored but kept out of search.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["clean_page", "drop_running_lines", "page_kind", "plain"]

_UNDERLINE_TAG = re.compile(r"</?u>", re.IGNORECASE)
_BOLD_SPLIT = re.compile(r"\*\*([ \t]+)\*\*")  # "**Item 1.** **Business**" -> one run
_BOLD_IN_WORD_AFTER = re.compile(r"(?<=\w)\*\*(\w[^*\n]*?)\*\*")
_BOLD_IN_WORD_BEFORE = re.compile(r"\*\*([^*\n]*?\w)\*\*(?=\w)")
_ITALIC_IN_WORD = re.compile(r"(?<=\w)_(\w+)_(?=\w)")
_CELL_EMPHASIS = re.compile(r"\*\*|__|(?<![\w\\])_(?=\S)|(?<=\S)_(?!\w)")
_RULE_LINE = re.compile(r"^[\s*_<>/u|-]*$")
_DOT_LEADER = re.compile(r"[ \t]*_?(?:\.[ \t]*){4,}_?[ \t]*")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})$", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`#<>]|</?u>")
_DIGITS = re.compile(r"\d+")
_LEADER_ENTRY = re.compile(r"…\s*[\dA-Za-z]{1,5}(?:\s*[,–-]\s*\d{1,4})*\s*$")
_NUMBER_ENTRY = re.compile(r"\s\d{1,3}\s*$")
_INDEX_PAGES = re.compile(r"\d{1,4}\s*,\s*\d{1,4}\s*$")


def plain(line: str) -> str:
    """A line without Markdown markup and extra spaces, e.g. for comparing titles."""
    return " ".join(_MARKUP.sub(" ", _UNDERLINE_TAG.sub("", line)).split())


def clean_page(text: str) -> str:
    """Remove presentational markup from one page's Markdown (see the module docstring)."""
    text = _UNDERLINE_TAG.sub("", text)
    text = _drop_fences(text)
    lines: list[str] = []
    fence = ""
    for line in text.split("\n"):
        if fence:
            if line.strip().startswith(fence):
                fence = ""
            lines.append(line)
            continue
        if opened := _FENCE.match(line):
            fence = opened.group(1)
            lines.append(line)
            continue
        if line.lstrip().startswith("|"):
            lines.append(_clean_cells(line))
            continue
        if "_" in line and _RULE_LINE.match(line) and line.count("_") >= 8:
            continue  # a rule drawn with underscores
        line = _BOLD_SPLIT.sub(r"\1", line)
        line = _BOLD_IN_WORD_AFTER.sub(r"\1", line)
        line = _BOLD_IN_WORD_BEFORE.sub(r"\1", line)
        line = _ITALIC_IN_WORD.sub(r"\1", line)
        line = _DOT_LEADER.sub(" … ", line).rstrip() if ". . . ." in line else line
        lines.append(line)
    return "\n".join(lines)


def _clean_cells(row: str) -> str:
    row = _CELL_EMPHASIS.sub("", row)
    return row.replace("<br>", " ")


def _drop_fences(text: str) -> str:
    """Drop empty fenced blocks and a last fence that is never closed."""
    lines = text.split("\n")
    drop: set[int] = set()
    opened_at: int | None = None
    fence = ""
    for index, line in enumerate(lines):
        found = _FENCE.match(line)
        if opened_at is None:
            if found:
                opened_at, fence = index, found.group(1)
        elif found and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            if not any(lines[i].strip() for i in range(opened_at + 1, index)):
                drop.update((opened_at, index))
            opened_at = None
    if opened_at is not None:
        drop.add(opened_at)
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)


def _shape(line: str) -> str:
    return _DIGITS.sub("#", plain(line).lower())


def _edge_lines(text: str) -> tuple[int | None, int | None]:
    """Indexes of the first and last non-blank lines of a page."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        return None, None
    return filled[0], filled[-1]


def drop_running_lines(pages: list[str]) -> list[str]:
    """Drop page numbers and running headers/footers from the first and last line of pages.

    A first (or last) line goes when it is a bare page number, or when its shape (digits
    replaced) starts (or ends) at least three pages and it is short.
    """
    heads: Counter[str] = Counter()
    feet: Counter[str] = Counter()
    for text in pages:
        first, last = _edge_lines(text)
        if first is None or last is None:
            continue
        lines = text.split("\n")
        heads[_shape(lines[first])] += 1
        feet[_shape(lines[last])] += 1
    result: list[str] = []
    for text in pages:
        first, last = _edge_lines(text)
        if first is None or last is None:
            result.append(text)
            continue
        lines = text.split("\n")
        drop = set()
        for index, counts in ((first, heads), (last, feet)):
            line = plain(lines[index])
            if not line or lines[index].lstrip().startswith(("#", "|", "```", "~~~")):
                continue
            if _PAGE_NUMBER.match(line) or (len(line) <= 80 and counts[_shape(line)] >= 3):
                drop.add(index)
        result.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return result


def page_kind(text: str, previous: str | None = None) -> str | None:
    """``"contents"`` or ``"index"`` when a page is a table of contents or an index.

    Most lines of such a page end with page references: after a dot leader, or (on a page
    that says "contents") after the entry's title. At least five such lines are needed,
    one when the ``previous`` page was of that kind (the last page of an index).
    """
    lines = [
        plain(line)
        for line in text.split("\n")
        if line.strip() and not line.lstrip().startswith(("|", "```"))
    ]
    lines = [line for line in lines if len(line) > 2]  # not the letters heading an index
    if not lines:
        return None
    says_contents = "contents" in text.lower()
    entries = [
        line
        for line in lines
        if _LEADER_ENTRY.search(line) or (says_contents and _NUMBER_ENTRY.search(line))
    ]
    if len(entries) < (1 if previous else 5) or len(entries) < 0.5 * len(lines):
        return None
    if previous:
        return previous
    lists = sum(1 for line in entries if _INDEX_PAGES.search(line))
    return "index" if lists >= 3 else "contents"
