"""A claim whose cited passages lack a name or number it states is searched for, in code.

The 1.5B model wrote "Wren House belongs to a university in the city of Dunmore [1]"
over a unit saying it is a hall of the Northern Coastal University; no
unit it was shown says where that university is, so the claim failed and the answer
became an abstention. One search for the claim itself (no model call) finds the
university's own article. A passage found this way counts only when it is linked to a
unit the claim cites (either names the other's section, :func:`linked_to`), and the
claim must then pass the check every citation passes (:func:`union_support`). A claim
no linked passage backs stays as it was, and fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from archivist.agent.citations import cite_again, union_support
from archivist.agent.claims import (
    check_claim,
    missing_facts,
    parse_citations,
    split_claims,
    strip_citations,
)
from archivist.agent.policy.answer import linked_to
from archivist.agent.state import Evidence
from archivist.agent.units import QueryEmbedder, select_units, unit_evidence

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
