"""The claim checker with a model's yes/no verification call, on the labelled set.

Usage (the model comes from the settings, as for the CLI)::

    ARCHIVIST_LLM__MODEL=local:1.5b python bench/claims_verify.py [bench/data/claims_labelled.jsonl]

Each pair the code checks pass (``bench/claims_calibrate.py``) is put to the model as the
agent's ``verify_claims`` setting puts a sentence (``agent/checks/verifier.py``); a "no" flags it.
Reports precision and recall for "unsupported" with and without the call, the calls made
and their median time: whether the call earns its cost on that model.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from claims_calibrate import DEFAULT, load, precision_recall, scored

from archivist.agent.checks.claims import SUPPORT_THRESHOLD
from archivist.agent.checks.verifier import model_verifier
from archivist.agent.state import Evidence
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.llm import make_chat_model
from archivist.settings import load_settings


def main() -> None:
    """Check every pair by code, then the code's passes by the model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labelled", type=Path, nargs="?", default=DEFAULT)
    args = parser.parse_args()
    pairs = load(args.labelled)
    rows = scored(pairs, SentenceTransformerEmbedder("all-MiniLM-L6-v2"))
    verify = model_verifier(make_chat_model(load_settings()))
    seconds: list[float] = []
    verified = []
    for pair, (score, facts, label) in zip(pairs, rows, strict=True):
        passed = facts and score >= SUPPORT_THRESHOLD
        if passed:
            started = time.perf_counter()
            units = [Evidence(text=text, heading_path=[], document_name="passage")  # type: ignore[typeddict-item]
                     for text in pair["evidence"]]
            passed = verify(pair.get("question", ""), pair["claim"], units)
            seconds.append(time.perf_counter() - started)
            print(f"{'pass' if passed else 'VETO'} (labelled {label}): {pair['claim'][:90]}")
        # flagged when not passed: the same shape precision_recall reads
        verified.append((score if passed else 0.0, facts, label))
    for name, data in (("code checks alone", rows), ("with the model's call", verified)):
        precision, recall = precision_recall(data, SUPPORT_THRESHOLD)
        print(f"{name}: precision {precision:.3f} recall {recall:.3f} (unsupported)")
    if seconds:
        print(f"calls: {len(seconds)}, median {statistics.median(seconds):.1f} s")


if __name__ == "__main__":
    main()
