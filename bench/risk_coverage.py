"""Risk-coverage of answer runs: accuracy among the answered items at each share answered.

Usage::

    python bench/risk_coverage.py DATASET RUN_DIR [RUN_DIR ...]

Every item gets a score; answering the items scored at least a threshold gives a coverage
(the share answered) and an accuracy (the share of those answered whose answer states the
reference). For the agent the score is its decision's (``answer/decision.py``: supported
share times addressing), read from the run's ``decision`` step, and the answer judged is
the draft before the decision (what it would have said); an item that ended before the
answer stage (nothing relevant found, a year no passage names) scores 0. For naive RAG,
which has no decision, its answer's word coverage by the passages it read, times the share
of the question's subjects they name: the same measures, so both are read one way. The
table gives, for each agent strictness level and at fixed shares of items answered, what
answering costs.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from archivist.agent.answer import STRICTNESS
from archivist.agent.answer.decision import subjects_named
from archivist.agent.checks.claims import word_coverage
from archivist.agent.question import parse_question
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.evaluation.qa_metrics import abstained, facts_found, without_citations


def _records(run: Path) -> list[dict[str, Any]]:
    out = []
    for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def _agent_point(record: dict[str, Any], facts: list[str]) -> tuple[float, float | None]:
    """(score, whether the draft states the reference) of an agent record."""
    decision = next((s for s in record.get("steps") or [] if s.get("kind") == "decision"), None)
    if decision is None:
        right = None if abstained(record["answer"]) else facts_found(
            without_citations(record["answer"]), facts)
        return (1.0 if right is not None else 0.0), right
    draft = str(decision.get("draft", ""))
    return float(decision.get("score", 0.0)), facts_found(without_citations(draft), facts)


def _naive_point(record: dict[str, Any], question: str,
                 facts: list[str]) -> tuple[float, float | None]:
    answer = without_citations(record["answer"])
    if not answer or abstained(answer):
        return 0.0, None
    texts = [e.get("text", "") for c in record.get("contexts") or []
             for e in c.get("evidence") or []]
    units = [{"text": t} for t in texts]
    score = word_coverage(answer, "\n".join(texts)) * subjects_named(
        parse_question(question), units, answer)  # type: ignore[arg-type]
    return score, facts_found(answer, facts)


def points(run: Path, items: dict[str, Any]) -> list[tuple[float, float]]:
    """(score, 1.0 if right else 0.0) per item of a run; an abstention is never right."""
    out = []
    for record in _records(run):
        item = items.get(str(record["item_id"]))
        if item is None or not item.key_facts:
            continue
        if record.get("system") == "naive" or run.name.startswith("naive"):
            score, right = _naive_point(record, item.question, item.key_facts)
        else:
            score, right = _agent_point(record, item.key_facts)
        out.append((score, float(right or 0.0)))
    return out


def curve(rows: list[tuple[float, float]], threshold: float) -> tuple[float, float, int]:
    """(coverage, accuracy among answered, right answers) at ``threshold``."""
    answered = [right for score, right in rows if score >= threshold and score > 0]
    if not rows:
        return 0.0, 0.0, 0
    accuracy = sum(answered) / len(answered) if answered else 0.0
    return len(answered) / len(rows), accuracy, int(sum(answered))


def main() -> None:
    """Print the risk-coverage table of each run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("runs", type=Path, nargs="+")
    args = parser.parse_args()
    items = {i.item_id: i for i in load_qa_dataset(args.dataset)}
    for run in args.runs:
        rows = points(run, items)
        print(f"\n{run.name}: {len(rows)} items")
        print("| threshold | share answered | accuracy among answered | right answers |")
        print("| --- | ---: | ---: | ---: |")
        named = {v: k for k, v in STRICTNESS.items()}
        for threshold in (0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9):
            coverage, accuracy, right = curve(rows, threshold)
            label = f"{threshold:.2f}" + (f" ({named[threshold]})" if threshold in named else "")
            print(f"| {label} | {coverage:.2f} | {accuracy:.2f} | {right} |")


if __name__ == "__main__":
    main()
