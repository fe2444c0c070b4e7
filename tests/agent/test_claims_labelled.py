"""The claim checker keeps its precision and recall on the hand-labelled set.

``tests/data/claims_labelled.jsonl`` holds (claim, cited evidence, supported?) pairs from
real answers of the local 1.5B model, each label checked by hand (how they were collected
and calibrated: ``bench/claims_collect.py``, ``bench/claims_calibrate.py``). The floors are
what the checker measured on the set when its threshold was chosen, less a small margin:
a change that makes it flag supported sentences, or miss unsupported ones, fails here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from archivist.index.embeddings import SentenceTransformerEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from claims_calibrate import DEFAULT, load, precision_recall, scored  # noqa: E402

from archivist.agent.claims import SUPPORT_THRESHOLD  # noqa: E402

PRECISION_FLOOR = 0.85
RECALL_FLOOR = 0.65


def test_the_checker_keeps_its_precision_and_recall(
    embedder: SentenceTransformerEmbedder,
) -> None:
    pairs = load(DEFAULT)
    assert len(pairs) >= 100 and all(isinstance(p["supported"], bool) for p in pairs)
    assert sum(not p["supported"] for p in pairs) >= 20  # enough of both kinds to measure
    precision, recall = precision_recall(scored(pairs, embedder), SUPPORT_THRESHOLD)
    assert precision >= PRECISION_FLOOR and recall >= RECALL_FLOOR, (precision, recall)
