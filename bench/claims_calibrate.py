"""Calibrate the claim checker's threshold on one half of the labelled set, report the other.

Usage::

    python bench/claims_calibrate.py [bench/data/claims_labelled.jsonl]

Each line of the set is a hand-checked pair ``{claim, evidence: [unit texts], supported}``
(collected by ``bench/claims_collect.py`` from real answers). The pairs are split in two
by a hash of the claim (a claim's pairs stay together): on the calibration half the
threshold with the best recall for "unsupported" at a precision of at least 0.9 is
chosen; precision and recall are then reported on the other half, and on the whole set
at the threshold in use (:data:`archivist.agent.checks.claims.SUPPORT_THRESHOLD`).
Per corpus, the figures are printed for each bare-answer rule
(:func:`archivist.agent.checks.claims.unsaid_subjects`: off, years, subjects), on every
pair and on the pairs of a claim and the units it cites.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from archivist.agent.checks.claims import (
    BARE_ANSWER_RULE,
    SUPPORT_THRESHOLD,
    BareAnswerRule,
    missing_facts,
    support_score,
)
from archivist.index.embeddings import SentenceTransformerEmbedder

DEFAULT = Path(__file__).resolve().parents[1] / "bench" / "data" / "claims_labelled.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    """The labelled pairs."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def half(pair: dict[str, Any]) -> str:
    """``"calibration"`` or ``"report"``, by a hash of the claim."""
    digest = hashlib.sha1(pair["claim"].encode("utf-8")).digest()
    return "calibration" if digest[0] % 2 == 0 else "report"


Row = tuple[float, bool, bool]
#: The bare-answer rules measured side by side (see :func:`unsaid_subjects`).
RULES: tuple[BareAnswerRule, ...] = ("off", "years", "subjects")


def scored(pairs: list[dict[str, Any]], embedder: Any) -> dict[BareAnswerRule, list[Row]]:
    """``(support score, facts all present, labelled supported)`` per pair, per bare-answer
    rule.

    "Facts all present" is the check besides the score's: the claim's numbers and names are
    in the evidence, and what a bare answer leaves to the question, by the rule.
    """
    out: dict[BareAnswerRule, list[Row]] = {rule: [] for rule in RULES}
    for pair in pairs:
        evidence = list(pair["evidence"])
        question = pair.get("question", "")
        score = support_score(pair["claim"], evidence, embedder)
        held = "\n".join(evidence)
        for rule in RULES:
            facts = not missing_facts(pair["claim"], held, question, bare_answer=rule)
            out[rule].append((score, facts, bool(pair["supported"])))
    return out


def precision_recall(rows: list[Row], threshold: float) -> tuple[float, float]:
    """Precision and recall of the checker's "unsupported" verdicts at ``threshold``."""
    flagged = [(not facts or score < threshold, label) for score, facts, label in rows]
    true_positive = sum(1 for flag, label in flagged if flag and not label)
    predicted = sum(1 for flag, _ in flagged if flag)
    actual = sum(1 for _, label in flagged if not label)
    return (true_positive / predicted if predicted else 1.0,
            true_positive / actual if actual else 1.0)


def by_corpus(pairs: list[dict[str, Any]], rows: list[Row], threshold: float) -> list[str]:
    """One line per corpus of the set (then all of it): pairs, unsupported, precision, recall."""
    lines = []
    for corpus in [*sorted({p["corpus"] for p in pairs}), "all"]:
        picked = [r for r, p in zip(rows, pairs, strict=True) if corpus in ("all", p["corpus"])]
        precision, recall = precision_recall(picked, threshold)
        lines.append(f"  {corpus:<22} {len(picked):>4} pairs, {sum(not r[2] for r in picked):>3} "
                     f"unsupported: precision {precision:.3f} recall {recall:.3f}")
    return lines


def calibrate(rows: list[Row], floor: float = 0.9) -> float:
    """The threshold with the best recall at precision ≥ ``floor`` (ties: the lowest)."""
    best = (-1.0, 0.0)
    for step in range(20, 91):
        threshold = step / 100
        precision, recall = precision_recall(rows, threshold)
        if precision >= floor and recall > best[0]:
            best = (recall, threshold)
    return best[1]


def main() -> None:
    """Calibrate, then report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labelled", type=Path, nargs="?", default=DEFAULT)
    args = parser.parse_args()
    pairs = load(args.labelled)
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    started = time.perf_counter()
    by_rule = scored(pairs, embedder)
    whole = by_rule[BARE_ANSWER_RULE]
    seconds = time.perf_counter() - started
    parts = {name: [p for p in pairs if half(p) == name] for name in ("calibration", "report")}
    rows = {name: [r for r, p in zip(whole, pairs, strict=True) if half(p) == name]
            for name in parts}
    chosen = calibrate(rows["calibration"])
    print(f"pairs: {len(pairs)} ({sum(not p['supported'] for p in pairs)} unsupported); "
          f"calibration {len(parts['calibration'])}, report {len(parts['report'])}")
    print(f"threshold chosen on the calibration half: {chosen:.2f}")
    for name in ("calibration", "report"):
        precision, recall = precision_recall(rows[name], chosen)
        print(f"  {name}: precision {precision:.3f} recall {recall:.3f} (unsupported)")
    print(f"at the threshold in use ({SUPPORT_THRESHOLD}, set before the labels existed):")
    for name in ("calibration", "report"):
        precision, recall = precision_recall(rows[name], SUPPORT_THRESHOLD)
        print(f"  {name}: precision {precision:.3f} recall {recall:.3f} (unsupported)")
    every = rows["calibration"] + rows["report"]
    print(f"cost: no model call; {1000 * seconds / len(pairs):.0f} ms "
          "per pair on average (embedding and word checks, this machine)")
    for rule, rows_of in by_rule.items():
        in_use = " (in use)" if rule == BARE_ANSWER_RULE else ""
        print(f"per corpus, at the threshold in use ({SUPPORT_THRESHOLD}), bare-answer rule "
              f"{rule!r}{in_use}:")
        print("\n".join(by_corpus(pairs, rows_of, SUPPORT_THRESHOLD)))
        for kinds, what in ((("cited", "cited-one"), "the units they cite, together or one"),
                            (("cited",), "all the units they cite together")):
            cited = [(r, p) for r, p in zip(rows_of, pairs, strict=True) if p["pair"] in kinds]
            print(f"claims against {what}, per corpus, rule {rule!r}:")
            print("\n".join(by_corpus([p for _, p in cited], [r for r, _ in cited],
                                       SUPPORT_THRESHOLD)))
    precision, recall = precision_recall(every, SUPPORT_THRESHOLD)
    print(f"whole set, rule in use: precision {precision:.3f} recall {recall:.3f}")
    for step in (30, 40, 50, 60, 70, 80):
        precision, recall = precision_recall(every, step / 100)
        print(f"  threshold {step / 100:.2f}: precision {precision:.3f} recall {recall:.3f}")


if __name__ == "__main__":
    main()
