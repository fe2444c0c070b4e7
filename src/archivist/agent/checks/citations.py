"""Where an answer's citations point, mended by code: the claim check decides.

A small model leaves a sentence uncited (:func:`attribute_uncited`), cites the wrong
number or one of the two units a joined claim rests on (:func:`recite_unsupported`), or
cites four units for a sentence one of them states (:func:`prune_citations`). Each
mending changes only which units a sentence cites, never what it says, and a unit counts
only when it passes the check every citation passes (``claims.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from archivist.agent.checks.claims import (
    CITATION,
    SUPPORT_THRESHOLD,
    Claim,
    check_claim,
    missing_facts,
    parse_citations,
    split_claims,
    strip_citations,
    word_coverage,
)
from archivist.agent.evidence.units import QueryEmbedder, dot


def best_support(
    claim: str, units: Sequence[str], embedder: QueryEmbedder | None, *, question: str = "",
    threshold: float = SUPPORT_THRESHOLD,
) -> int | None:
    """The number of the unit that supports ``claim`` best, or ``None`` when none passes.

    A unit passes as a cited one would: it holds the claim's numbers and names and its
    support score reaches ``threshold``.
    """
    candidates = [(n, u) for n, u in enumerate(units, start=1)
                  if not missing_facts(claim, u, question)]
    if not candidates:
        return None
    cosines = [1.0] * len(candidates)  # unused without a model: coverage alone
    if embedder is not None:  # the claim and the units embedded once, in one batch
        vectors = embedder.embed_documents([claim, *(u for _, u in candidates)])
        cosines = [max(dot(vectors[0], v), 0.0) for v in vectors[1:]]
    best, best_score = None, threshold
    for (number, unit), cosine in zip(candidates, cosines, strict=True):
        coverage = word_coverage(claim, unit)
        score = coverage if embedder is None else round((cosine + coverage) / 2, 4)
        if score >= best_score:
            best, best_score = number, score
    return best


def attribute_uncited(
    answer: str, units: Sequence[str], embedder: QueryEmbedder | None, *, question: str = "",
    threshold: float = SUPPORT_THRESHOLD,
) -> tuple[str, int]:
    """``answer`` with each sentence that cites nothing given the unit that supports it.

    A sentence with no ``[n]`` of its own counts, even where :func:`split_claims` would lend
    it the number closing its paragraph (a composed answer put one [n] after two parts
    from two documents). A small model often leaves out the ``[n]``; code finds
    the one unit that holds what the sentence states (the same test a citation must pass)
    and cites it. A sentence no unit supports stays uncited, and is flagged as such.
    Returns the answer and how many sentences were given a citation.
    """
    given = 0
    at = 0  # where the next sentence is looked for: a sentence may repeat an earlier one's start
    for sentence, _ in split_claims(answer):
        words = sentence.split()
        where = re.compile(r"\s+".join(map(re.escape, words))).search(answer, at) \
            if words else None
        if where is None:
            continue
        at = where.end()
        if parse_citations(sentence):  # its own [n]; one borrowed from the next is a guess
            continue
        number = best_support(strip_citations(sentence), units, embedder, question=question,
                              threshold=threshold)
        if number is None:
            continue
        end = where.end()
        while end > where.start() and answer[end - 1] in ".!?:;":
            end -= 1
        marker = f" [{number}]"
        answer = f"{answer[:end]}{marker}{answer[end:]}"
        at += len(marker)
        given += 1
    return answer, given


def union_support(
    claim: str, cited: list[int], units: Sequence[str], embedder: QueryEmbedder | None, *,
    question: str = "", threshold: float = SUPPORT_THRESHOLD,
) -> list[int] | None:
    """The units that support ``claim`` where its cited ones alone do not, or ``None``.

    First the one unit that supports it best (:func:`best_support`): the model cited the
    wrong number. Else the cited units joined by the one other unit that completes them: a
    claim that joins two facts ("the man who resigned in 2000 was born in 1924") is held by
    two units, one for each. The joined units pass the test cited ones must pass: they hold
    every number and name of the claim, its support score (the best cosine of one of
    them, averaged with their word coverage) reaches ``threshold``.
    """
    single = best_support(claim, units, embedder, question=question, threshold=threshold)
    if single is not None and check_claim(claim, [single], units, embedder, question=question,
                                          threshold=threshold).supported:
        return [single]
    base = [n for n in dict.fromkeys(cited) if 1 <= n <= len(units)]
    others = [n for n in range(1, len(units) + 1) if n not in base]
    if not base or not others:
        return None
    held = "\n".join(units[n - 1] for n in base)
    lacking = missing_facts(claim, held, question)
    candidates = [n for n in others if not lacking
                  or not missing_facts(claim, held + "\n" + units[n - 1], question)]
    if not candidates:
        return None
    cosine = dict.fromkeys([*base, *candidates], 1.0)
    if embedder is not None:  # the claim and every unit involved embedded once
        vectors = embedder.embed_documents([claim, *(units[n - 1] for n in cosine)])
        cosine = {n: max(dot(vectors[0], v), 0.0) for n, v in zip(cosine, vectors[1:],
                                                                    strict=True)}
    scored = []
    for n in candidates:
        coverage = word_coverage(claim, held + "\n" + units[n - 1])
        score = coverage if embedder is None else round(
            (max(cosine[m] for m in (*base, n)) + coverage) / 2, 4)
        if score >= threshold:
            scored.append((score, n))
    # the best pair that passes the whole check: "Orla Venn is the oldest [2]" is completed
    # by Piet Castellan's unit, which gives his year, not by another on Venn
    for _score, n in sorted(scored, key=lambda pair: (-pair[0], -pair[1])):
        if check_claim(claim, [*base, n], units, embedder, question=question,
                       threshold=threshold).supported:
            return [*base, n]
    return None


def recite_unsupported(
    answer: str, units: Sequence[str], embedder: QueryEmbedder | None, *, question: str = "",
    threshold: float = SUPPORT_THRESHOLD,
) -> tuple[str, int]:
    """``answer`` with each claim its citations do not support given the units that do.

    A model cites the wrong number, or one of the two units a joined claim rests on
    (:func:`union_support`). The claim's own ``[n]`` markers are replaced; a claim no unit
    or pair of units supports keeps them, and fails the check. Returns the answer and how
    many claims were given other citations.
    """
    given = 0
    for sentence, citations in split_claims(answer):
        if not citations or sentence not in answer:
            continue
        text = strip_citations(sentence)
        if check_claim(sentence, citations, units, embedder, question=question,
                       threshold=threshold).supported:
            continue
        numbers = union_support(text, citations, units, embedder, question=question,
                                threshold=threshold)
        if numbers is None:  # what it returns passes the whole check
            continue
        answer = cite_again(answer, sentence, numbers)
        given += 1
    return answer, given


def cite_again(answer: str, sentence: str, numbers: Sequence[int]) -> str:
    """``answer`` with ``sentence``'s own ``[n]`` markers replaced by ``numbers``."""
    body = " ".join(CITATION.sub("", sentence).split())
    body = re.sub(r"\s+([.,;:!?])", r"\1", body)
    stop = len(body.rstrip(".!?:;"))
    markers = "".join(f"[{n}]" for n in numbers)
    return answer.replace(sentence, f"{body[:stop]} {markers}{body[stop:]}", 1)


def needed_citations(
    claim: str, cited: Sequence[int], units: Sequence[str], embedder: QueryEmbedder | None,
    *, question: str = "", threshold: float = SUPPORT_THRESHOLD,
) -> list[int]:
    """The cited units ``claim`` rests on: those that hold it alone, else the fewest that do.

    A model cites four units for a sentence one of them states ("[1][2][3][4]"); a reader
    who opens the other three finds nothing of it there. Each cited unit that supports the
    claim alone is kept, and only those. When none does (a claim joining two facts), a
    unit is left out, weakest first, while the others still support the claim. Here a
    unit must hold the names the claim takes from the question too: "both A and B are
    British" needs the unit on A and the unit on B. A claim its citations do not support
    keeps them all, to fail its check as written, and so does a claim the pruned units
    would not support with the question read: "Orla Venn is the oldest" needs Piet
    Castellan's year beside Venn's, though Venn's unit holds every word of it.
    """
    def holds(numbers: Sequence[int], asked: str = "") -> Claim:
        return check_claim(claim, list(numbers), units, embedder, question=asked,
                           threshold=threshold)

    cited = list(dict.fromkeys(cited))
    if len(cited) < 2 or not holds(cited, question).supported:
        return cited
    cited = [n for n in cited if 1 <= n <= len(units)]  # a number naming no unit goes
    alone = {n: holds([n]) for n in cited}
    holders = [n for n in cited if alone[n].supported]
    if holders and holds(holders, question).supported:
        return holders
    kept = list(cited)
    for n in sorted(cited, key=lambda m: alone[m].score):
        rest = [m for m in kept if m != n]
        if rest and holds(rest).supported:
            kept = rest
    return kept if holds(kept, question).supported else cited


def prune_citations(
    answer: str, units: Sequence[str], embedder: QueryEmbedder | None, *, question: str = "",
    threshold: float = SUPPORT_THRESHOLD,
) -> tuple[str, int]:
    """``answer`` with each sentence citing only the units it rests on (:func:`needed_citations`).

    Only a sentence's own markers are pruned. Returns the answer and how many citations
    were dropped.
    """
    dropped = 0
    for sentence, _ in split_claims(answer):
        own = parse_citations(sentence)
        if len(own) < 2 or sentence not in answer:
            continue
        kept = needed_citations(strip_citations(sentence), own, units, embedder,
                                question=question, threshold=threshold)
        if len(kept) < len(own):
            answer = cite_again(answer, sentence, kept)
            dropped += len(own) - len(kept)
    return answer, dropped

