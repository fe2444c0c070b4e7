"""The claim checker keeps its precision and recall on the hand-labelled set.

``bench/data/claims_labelled.jsonl`` holds (claim, evidence, supported?) pairs from real
answers of the local 1.5B model, each label checked by hand: each claim with the units it
cites, and with a unit it does not cite (``bench/claims_calibrate.py`` reports them per
corpus). Two groups are held apart:

* dev pairs (corpora ``pdfs`` and ``hotpotqa``, 155 pairs): the checker measured precision
  0.978 and recall 0.854 for "unsupported" at the threshold in use (0.989 and 0.845
  before a bare answer had to hold the question's year);
* validation pairs (``*-validation``: HotpotQA questions 50-99 and MuSiQue, 182 pairs),
  never read to set a rule (only counted): precision 1.000, recall 0.586 (0.572 before).

The floors are those figures less a margin: a change that makes the checker flag supported
sentences, or miss more unsupported ones, fails here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from archivist.index.embeddings import SentenceTransformerEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from claims_calibrate import DEFAULT, load, precision_recall, scored  # noqa: E402

from archivist.agent.checks.claims import BARE_ANSWER_RULE, SUPPORT_THRESHOLD  # noqa: E402

#: (precision floor, recall floor) for "unsupported", per group.
FLOORS = {"dev": (0.95, 0.82), "validation": (0.95, 0.5)}


def group(pair: dict[str, Any]) -> str:
    """``"validation"`` for pairs drawn from validation runs, else ``"dev"``."""
    return "validation" if pair["corpus"].endswith("-validation") else "dev"


@pytest.fixture(scope="module")
def checked(embedder: SentenceTransformerEmbedder) -> dict[str, list[tuple[float, bool, bool]]]:
    """Every labelled pair scored once, split into its group."""
    pairs = load(DEFAULT)
    assert all(isinstance(p["supported"], bool) for p in pairs)
    rows = scored(pairs, embedder)[BARE_ANSWER_RULE]
    return {name: [r for r, p in zip(rows, pairs, strict=True) if group(p) == name]
            for name in FLOORS}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_the_checker_keeps_its_precision_and_recall(
    checked: dict[str, list[tuple[float, bool, bool]]], name: str,
) -> None:
    rows = checked[name]
    assert len(rows) >= 150  # both groups are large enough to measure
    assert sum(label for _, _, label in rows) >= 10  # both kinds, to measure either way
    precision, recall = precision_recall(rows, SUPPORT_THRESHOLD)
    floor_precision, floor_recall = FLOORS[name]
    assert precision >= floor_precision and recall >= floor_recall, (name, precision, recall)
