"""Ranking metrics against values computed by hand (arithmetic in the comments)."""

from __future__ import annotations

import math

import pytest

from archivist.evaluation.metrics import (
    mean,
    mrr_at_k,
    ndcg_at_k,
    precision_at_k,
    rank_by_score,
    recall_at_k,
)

LOG2_3 = math.log2(3)  # discount of rank 2
LOG2_4 = 2.0  # discount of rank 3


def test_ndcg_binary_relevance() -> None:
    # relevant: a, c. Ranking a, b, c.
    # DCG  = 1/log2(2) + 0 + 1/log2(4) = 1 + 0.5 = 1.5
    # IDCG = 1/log2(2) + 1/log2(3)     = 1 + 0.63093 = 1.63093
    value = ndcg_at_k(["a", "b", "c"], {"a": 1, "c": 1}, 10)
    assert value == pytest.approx(1.5 / (1 + 1 / LOG2_3))
    assert value == pytest.approx(0.919721, abs=1e-6)


def test_ndcg_graded_linear_gain() -> None:
    # grades a=2, b=1; ranking b, a.  (trec_eval ndcg_cut: gain = grade)
    # DCG  = 1/1 + 2/log2(3) = 1 + 1.26186 = 2.26186
    # IDCG = 2/1 + 1/log2(3) = 2 + 0.63093 = 2.63093
    value = ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 10)
    assert value == pytest.approx((1 + 2 / LOG2_3) / (2 + 1 / LOG2_3))
    assert value == pytest.approx(0.859719, abs=1e-6)


def test_ndcg_cutoff_truncates_ideal_too() -> None:
    # three relevant docs, k=1, ranking starts with a relevant one: DCG=1, IDCG@1=1
    assert ndcg_at_k(["x", "y"], {"x": 1, "y": 1, "z": 1}, 1) == pytest.approx(1.0)
    # k=2, ranking x, n (n not judged): DCG=1, IDCG@2 = 1 + 1/log2(3)
    assert ndcg_at_k(["x", "n"], {"x": 1, "y": 1, "z": 1}, 2) == pytest.approx(1 / (1 + 1 / LOG2_3))


def test_judged_non_relevant_and_negative_grades_count_as_zero() -> None:
    # b judged 0, c judged -1: neither adds gain nor counts as relevant
    qrels = {"a": 1, "b": 0, "c": -1}
    assert ndcg_at_k(["b", "c", "a"], qrels, 10) == pytest.approx(1 / LOG2_4)  # 0.5
    assert recall_at_k(["b", "c"], qrels, 10) == 0.0
    assert mrr_at_k(["b", "c", "a"], qrels, 10) == pytest.approx(1 / 3)


def test_recall_and_precision() -> None:
    qrels = {"a": 1, "b": 1, "c": 1, "d": 1}
    ranking = ["a", "x", "b", "y", "c"]
    # top-3 = a, x, b -> 2 of 4 relevant found; precision 2/3
    assert recall_at_k(ranking, qrels, 3) == pytest.approx(0.5)
    assert precision_at_k(ranking, qrels, 3) == pytest.approx(2 / 3)
    # top-5 -> a, b, c: recall 3/4, precision 3/5
    assert recall_at_k(ranking, qrels, 5) == pytest.approx(0.75)
    assert precision_at_k(ranking, qrels, 5) == pytest.approx(0.6)


def test_k_larger_than_results() -> None:
    # two results, k=10: missing ranks are non-relevant; precision still divides by 10
    qrels = {"a": 1, "b": 1}
    assert recall_at_k(["a"], qrels, 10) == pytest.approx(0.5)
    assert precision_at_k(["a", "x"], qrels, 10) == pytest.approx(0.1)
    # DCG = 1, IDCG = 1 + 1/log2(3)
    assert ndcg_at_k(["a"], qrels, 10) == pytest.approx(1 / (1 + 1 / LOG2_3))
    assert mrr_at_k([], qrels, 10) == 0.0
    assert ndcg_at_k([], qrels, 10) == 0.0


def test_mrr() -> None:
    qrels = {"c": 1, "d": 2}
    assert mrr_at_k(["a", "b", "c", "d"], qrels, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["a", "b", "c"], qrels, 2) == 0.0  # first relevant at rank 3 > k
    assert mrr_at_k(["d"], qrels, 1) == 1.0


def test_no_relevant_documents_is_undefined_and_left_out_of_the_mean() -> None:
    for metric in (ndcg_at_k, recall_at_k, precision_at_k, mrr_at_k):
        assert metric(["a"], {}, 10) is None
        assert metric(["a"], {"a": 0}, 10) is None
    # the mean skips None: (1.0 + 0.5) / 2
    assert mean([1.0, None, 0.5]) == pytest.approx(0.75)
    assert mean([None]) == 0.0
    assert mean([]) == 0.0


def test_ranks_as_given_and_duplicates_count_once() -> None:
    # a duplicate of a does not take rank 2; b is at rank 2 (dedup), c at rank 3
    ranking = ["a", "a", "b", "c"]
    qrels = {"c": 1}
    assert mrr_at_k(ranking, qrels, 10) == pytest.approx(1 / 3)
    assert recall_at_k(ranking, qrels, 3) == 1.0  # top-3 distinct: a, b, c


def test_rank_by_score_breaks_ties_by_id() -> None:
    assert rank_by_score({"b": 1.0, "a": 1.0, "c": 2.0, "d": 0.5}) == ["c", "a", "b", "d"]


def test_bad_k() -> None:
    with pytest.raises(ValueError):
        ndcg_at_k(["a"], {"a": 1}, 0)
