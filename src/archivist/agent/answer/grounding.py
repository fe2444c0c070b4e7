"""An answer written from numbered evidence units, made final by code.

Each research sub-agent numbers its own units from 1; :func:`gather_units` shifts the
citations of each sub-answer so that every number names one unit of the whole turn. After
the claims are checked (``claims.py``), :func:`cite_sources` turns the cited units into the
Sources list and rewrites every ``[n]`` in the answer and in the claims into the number of
its line in that list, so ``[2]`` means the same thing in the text, the claims, the CLI,
the API and the web UI. :func:`no_supported_answer` is the honest abstention that replaces
an answer none of whose claims is supported: it says what was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict

from archivist.agent.answer.sources import MAX_SOURCES, to_source
from archivist.agent.checks.claims import CITATION, CheckedAnswer, parse_citations
from archivist.agent.prompts import ABSTAIN_PREFIX
from archivist.agent.state import Evidence, SubAnswer
from archivist.events import Source

FOUND_CHARS = 160


def shift_citations(text: str, offset: int) -> str:
    """``text`` with every ``[n]`` marker's numbers raised by ``offset``."""
    if not offset:
        return text
    return CITATION.sub(
        lambda m: "".join(f"[{n + offset}]" for n in parse_citations(m.group(0))), text
    )


def gather_units(subs: Sequence[SubAnswer]) -> tuple[list[str], list[Evidence]]:
    """Each sub-answer's text with turn-wide unit numbers, and all the turn's units."""
    texts: list[str] = []
    units: list[Evidence] = []
    for sub in subs:
        texts.append(shift_citations(sub["answer"], len(units)))
        units += list(sub.get("units") or [])
    return texts, units


def _key(item: Evidence) -> tuple[str, str]:
    return (item["document_id"], item["pages"])


def cite_sources(
    text: str, checked: CheckedAnswer, units: Sequence[Evidence]
) -> tuple[str, list[Source], list[dict[str, object]]]:
    """The answer, its Sources and its claims, with ``[n]`` renumbered to Sources lines.

    Units from the same place (document and pages) share one Sources line, whose passage
    holds their texts. A number that names no unit is dropped from the text.
    """
    line_of: dict[int, int] = {}
    places: dict[tuple[str, str], int] = {}
    passages: list[list[str]] = []
    firsts: list[Evidence] = []
    numbers = [*checked.cited(), *parse_citations(text)]
    for n in dict.fromkeys(numbers):
        if not 1 <= n <= len(units):
            continue
        item = units[n - 1]
        key = _key(item)
        if key not in places:
            if len(firsts) >= MAX_SOURCES:
                continue
            places[key] = len(firsts) + 1
            firsts.append(item)
            passages.append([])
        line_of[n] = places[key]
        passages[places[key] - 1].append(" ".join(item.get("text", "").split()))

    def renumber(match: re.Match[str]) -> str:
        lines = [line_of[n] for n in parse_citations(match.group(0)) if n in line_of]
        return "".join(f"[{n}]" for n in dict.fromkeys(lines))

    final = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", CITATION.sub(renumber, text))
    final = re.sub(r"[ \t]+([.,;:!?])", r"\1", final)
    sources = []
    for item, texts in zip(firsts, passages, strict=True):
        source = to_source(item)
        source.passage = " … ".join(dict.fromkeys(texts))
        sources.append(source)
    claims = []
    for claim in checked.claims:
        data = asdict(claim)
        data["citations"] = list(dict.fromkeys(line_of[n] for n in claim.citations
                                               if n in line_of))
        claims.append(data)
    return final, sources, claims


def no_supported_answer(question: str, units: Sequence[Evidence],
                        cited: Sequence[int] = ()) -> str:
    """The abstention for an answer with no supported claim: what the closest units say.

    The units its claims ``cited`` (numbers, from 1) come first: a vetoed "Old Norse [3]" shows
    the passage it was read from.
    """
    first = [n for n in dict.fromkeys(cited) if 1 <= n <= len(units)]
    ordered = [units[n - 1] for n in first] + [u for n, u in enumerate(units, 1)
                                               if n not in first]
    found = []
    for item in ordered[:2]:
        text = " ".join(item.get("text", "").split())
        text = text if len(text) <= FOUND_CHARS else text[:FOUND_CHARS].rstrip() + "…"
        where = f"{item['document_name']}, {item['pages']}" if item["pages"] else \
            item["document_name"]
        found.append(f'"{text}" ({where})')
    closest = f" The closest passages found: {'; '.join(found)}." if found else ""
    return (f"{ABSTAIN_PREFIX} a statement I could check against them for: {question}"
            f"{closest}")
