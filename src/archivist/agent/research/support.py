"""A claim whose cited passages lack a name or number it states is searched for, in code.

A sentence saying that a hall belongs to a university in some city, over a unit naming
only the university, fails its check; one search for the sentence itself (no model call)
finds the university's own article. A passage found this way counts only when it is linked to a
unit the claim cites (either names the other's section, :func:`linked_to`), and the
claim must then pass the check every citation passes (:func:`union_support`). A claim
no linked passage backs stays as it was, and fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from archivist.agent.checks.citations import cite_again, union_support
from archivist.agent.checks.claims import (
    check_claim,
    missing_facts,
    parse_citations,
    split_claims,
    strip_citations,
)
from archivist.agent.evidence.units import QueryEmbedder, select_units, unit_evidence
from archivist.agent.state import Evidence
from archivist.agent.text import title

#: Claims of one answer searched for, at most (each search is one query, no model call).
SEARCHED_CLAIMS = 2
#: Tokens of the found passages' sentences a claim is checked against.
FOUND_TOKENS = 300


def search_support(
    question: str, answer: str, units: Sequence[Evidence],
    search: Callable[[str], list[Evidence]], embedder: QueryEmbedder | None,
) -> tuple[str, list[Evidence]]:
    """``answer`` with claims backed by passages a search for them found, and those units.

    The units come after ``units`` (their numbers continue the count), and a claim backed
    cites its own units and the new one that completes them.
    """
    units = list(units)
    added: list[Evidence] = []
    searched = 0
    for sentence, _ in split_claims(answer):
        own = [n for n in parse_citations(sentence) if 1 <= n <= len(units)]
        if not own or sentence not in answer or searched >= SEARCHED_CLAIMS:
            continue
        texts = [u.get("text", "") for u in [*units, *added]]
        claim = strip_citations(sentence)
        cited = [units[n - 1] for n in own]
        if check_claim(sentence, own, texts, embedder, question=question).supported:
            continue
        if not missing_facts(claim, "\n".join(texts[n - 1] for n in own), question):
            continue  # it fails on its wording, not on a fact no cited unit states
        searched += 1
        found = linked_to(cited, [h for h in search(claim)
                                  if h.get("parent_id") not in {u.get("parent_id")
                                                                for u in [*units, *added]}])
        if not found:
            continue
        selection = select_units(claim, found, embedder, budget_tokens=FOUND_TOKENS)
        candidates = [unit_evidence(selection, found, n)
                      for n in range(1, len(selection.units) + 1)]
        pool = [*texts, *(c.get("text", "") for c in candidates)]
        numbers = union_support(claim, own, pool, embedder, question=question)
        if numbers is None or all(n <= len(texts) for n in numbers):
            continue
        renumbered = []
        for n in numbers:
            if n > len(texts):
                added.append(candidates[n - len(texts) - 1])
                n = len(units) + len(added)
            renumbered.append(n)
        answer = cite_again(answer, sentence, renumbered)
    return answer, added


def linked_to(cited: list[Evidence], seen: Iterable[Evidence]) -> list[Evidence]:
    """The passages of ``seen`` linked to a cited one: either names the other's section.

    A title counts without its qualifier ("Springfield" of "Springfield, Oregon"), as
    written and whole, and only in a passage of another section: a section's own
    sentences link nothing.
    """
    sections = {item.get("parent_id") for item in cited}
    others = [item for item in seen if item.get("parent_id") not in sections]
    cited_titles = _titles(cited)
    cited_text = " ".join(" ".join(item.get("text", "").split()) for item in cited)
    linked = []
    for item in others:
        text = " ".join(item.get("text", "").split())
        if (cited_titles and cited_titles.search(text)) or (
                (own := _titles([item])) and own.search(cited_text)):
            linked.append(item)
    return linked


def _titles(items: Iterable[Evidence]) -> re.Pattern[str] | None:
    """A pattern for the section titles of ``items`` (without qualifiers), or None."""
    titles = {name for item in items if len(name := title(item.get("heading_path"))) >= 4}
    if not titles:
        return None
    return re.compile("|".join(rf"(?<!\w){re.escape(t)}(?!\w)" for t in sorted(titles)))
