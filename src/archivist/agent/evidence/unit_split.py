"""Cutting text into units: sentences, list items, table rows and code blocks.

A Markdown (or PDF-extracted) section is cut into the units a writer sees and a claim
is checked against (:mod:`archivist.agent.evidence.units` chooses among them): a paragraph's
sentences (an abbreviation does not end one), list items, table rows under their header,
and fenced code blocks, each under the heading it stands under.
"""

from __future__ import annotations

import re

from archivist.agent.text import PERIOD_YEAR

_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "fig", "no", "p", "pp", "cf", "mr", "mrs", "dr",
                  "st", "inc", "ltd", "co", "jr", "sr", "u.s", "approx", "al", "ca")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9`*])")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FIGURE = re.compile(r"^\(?[-−–]?\$?\d[\d,]*(?:\.\d+)?\)?%?$")
_YEARS_HEADER = re.compile(rf"^[^\d]{{0,80}}?({PERIOD_YEAR}\b[\s,|]*){{2,}}.{{0,40}}$")


def split_sentences(paragraph: str) -> list[str]:
    """A paragraph cut into sentences.

    Abbreviations such as "e.g." and "p." do not end one, nor do those a bracket or a
    quote opens: "(c. 1020 – c. 1069)".
    """
    pieces = _SENTENCE_END.split(" ".join(paragraph.split()))
    out: list[str] = []
    for piece in pieces:
        last = out[-1].rsplit(None, 1)[-1].lower().rstrip(".").lstrip("([{\"'") if out else ""
        if out and (last in _ABBREVIATIONS or len(last) == 1):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return [s.strip() for s in out if s.strip()]


def text_sentences(text: str) -> list[str]:
    """The sentences of each line of ``text`` (a unit, a passage), in order."""
    return [sentence for line in text.splitlines() for sentence in split_sentences(line)]


def is_list_item(line: str) -> bool:
    """Whether ``line`` opens with a list mark ("- ", "* ", "2. ", "3) ")."""
    return bool(_LIST_ITEM.match(line))


def _is_figure_row(line: str) -> bool:
    """A PDF table line: a label followed by two or more figures, no sentence ending."""
    tokens = line.split()
    figures = 0
    for token in reversed(tokens):
        if token in ("$", "%") or _FIGURE.match(token):
            figures += token not in ("$", "%")
        else:
            break
    return figures >= 2 and not line.rstrip().endswith(".")


def split_units(text: str) -> list[tuple[str, str, str]]:
    """``(kind, text, context)`` for each unit of a Markdown (or PDF-extracted) section.

    Headings are not units; a Markdown table's first row and a line of years are a
    header, the context of the rows below it; a fenced code block is one unit.
    """
    return [(kind, unit, context) for kind, unit, context, _ in split_headed_units(text)]


def split_headed_units(text: str) -> list[tuple[str, str, str, str]]:
    """:func:`split_units` with the heading each unit stands under ("" before any)."""
    units: list[tuple[str, str, str]] = []
    headings: list[str] = []  # units[i] stands under headings[i]
    heading = ""
    paragraph: list[str] = []
    header = ""
    in_code: list[str] | None = None

    def flush() -> None:
        if paragraph:
            units.extend(("sentence", s, "") for s in split_sentences(" ".join(paragraph)))
            paragraph.clear()

    for raw in text.split("\n"):
        headings += [heading] * (len(units) - len(headings))
        line = raw.rstrip()
        stripped = line.strip()
        if in_code is not None:
            if stripped.startswith("```"):
                units.append(("code", "\n".join(in_code).strip(), ""))
                in_code = None
            else:
                in_code.append(line)
            continue
        if stripped.startswith("```"):
            flush()
            in_code = []
        elif not stripped:
            flush()  # a header of years holds across the blank lines between PDF rows
        elif _HEADING.match(line):
            flush()
            headings += [heading] * (len(units) - len(headings))
            header = ""
            heading = _HEADING.sub("", stripped).strip(" *#")
        elif stripped.startswith("|"):
            flush()
            if _TABLE_SEPARATOR.match(stripped):
                continue
            if not header.startswith("|"):
                header = stripped
            else:
                units.append(("row", stripped, header))
        elif _YEARS_HEADER.match(stripped) and not stripped.endswith("."):
            flush()
            header = stripped
        elif _is_figure_row(stripped):
            flush()
            units.append(("row", stripped, header))
        elif is_list_item(line):
            flush()
            units.append(("item", stripped, ""))
        elif units and units[-1][0] == "item" and not paragraph and raw.startswith((" ", "\t")):
            kind, item, context = units[-1]
            units[-1] = (kind, f"{item} {stripped}", context)
        else:
            if stripped.endswith(".") or len(stripped) > 100:
                header = ""  # prose: the table above has ended
            paragraph.append(stripped)
    flush()
    if in_code:
        units.append(("code", "\n".join(in_code).strip(), ""))
    headings += [heading] * (len(units) - len(headings))
    return [(*u, h) for u, h in zip(units, headings, strict=True) if re.search(r"\w", u[1])]
