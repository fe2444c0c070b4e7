"""Ranking metrics with graded relevance, following BEIR / trec_eval (pytrec_eval) conventions.

Inputs: ``ranked_ids`` is a ranking, best first; ``qrels`` maps a document id to its graded
relevance (``score > 0`` means relevant; 0 or negative means judged not relevant).

Conventions, all as in pytrec_eval as BEIR uses it:

* **Gain** for nDCG is the grade itself (linear gain, trec_eval's ``ndcg_cut``), discounted
  by ``log2(rank + 1)``; the ideal DCG ranks every relevant judged document by grade.
* **Relevant** for recall, precision and MRR means a grade of at least 1.
* **No relevant documents**: a query whose qrels hold no positive grade has no defined
  score; every function returns ``None`` and :func:`mean` leaves it out of the average
  (pytrec_eval only evaluates queries present in the qrels; BEIR drops queries without
  judgements before evaluating).
* **Ranks are taken as given**: the functions never re-sort; a document id that appears
  again later in the list is ignored (only its first, best rank counts).
  :func:`rank_by_score` turns a ``{id: score}`` mapping into a ranking with a
  deterministic tie-break (higher score first, then ascending id).
* **Fewer than k results**: the missing ranks count as non-relevant; precision still
  divides by ``k`` (trec_eval's ``P_k``), recall by the number of relevant documents.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "mean",
    "mrr_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "rank_by_score",
    "recall_at_k",
]


def _top_k(ranked_ids: Sequence[str], k: int) -> list[str]:
    """The first ``k`` distinct ids, in rank order."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    seen: set[str] = set()
    out: list[str] = []
    for doc_id in ranked_ids:
        if doc_id in seen:
            continue
        seen.add(doc_id)
        out.append(doc_id)
        if len(out) == k:
            break
    return out


def _relevant(qrels: Mapping[str, int]) -> set[str]:
    return {doc_id for doc_id, grade in qrels.items() if grade > 0}


def ndcg_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float | None:
    """Normalised discounted cumulative gain over the top ``k`` (linear gain)."""
    top = _top_k(ranked_ids, k)
    grades = sorted((g for g in qrels.values() if g > 0), reverse=True)
    if not grades:
        return None
    dcg = sum(max(qrels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(top))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(grades[:k]))
    return dcg / idcg


def recall_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float | None:
    """The share of relevant documents found in the top ``k``."""
    relevant = _relevant(qrels)
    if not relevant:
        return None
    return len(relevant.intersection(_top_k(ranked_ids, k))) / len(relevant)


def precision_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float | None:
    """The share of the top ``k`` ranks holding a relevant document (divides by ``k``)."""
    relevant = _relevant(qrels)
    if not relevant:
        return None
    return len(relevant.intersection(_top_k(ranked_ids, k))) / k


def mrr_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float | None:
    """Reciprocal rank of the first relevant document in the top ``k`` (0 when none)."""
    relevant = _relevant(qrels)
    if not relevant:
        return None
    for rank, doc_id in enumerate(_top_k(ranked_ids, k), start=1):
        if doc_id in relevant:
            return 1.0 / rank
    return 0.0


def rank_by_score(scores: Mapping[str, float]) -> list[str]:
    """Ids by descending score; equal scores are ordered by ascending id (deterministic)."""
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def mean(values: Iterable[float | None]) -> float:
    """The average of the defined values (``None`` = query not evaluated); 0.0 when none."""
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else 0.0
