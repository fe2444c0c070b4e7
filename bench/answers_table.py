"""One Markdown table comparing ``eval answers`` runs (agent, naive RAG, closed-book).

Usage::

    python bench/answers_table.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR holds the ``answers.jsonl`` of one ``archivist eval answers --out RUN_DIR``
run; its folder name labels the row. Only the items present in every run are compared, so
a run that is still going (or was cut short) shrinks the table's n, never skews it.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

METRICS = ("correct", "citation_accuracy", "gold_page_recall_cited", "supporting_recall",
           "abstention_accuracy", "exact_match", "f1")


def _records(run: Path) -> dict[str, dict[str, Any]]:
    path = run / "answers.jsonl"
    out: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line of a run in progress
            if not record.get("error"):
                out[str(record["item_id"])] = record
    return out


def _cell(values: list[float | None]) -> str:
    defined = [v for v in values if v is not None]
    if not defined:
        return "n/a"
    mean = statistics.fmean(defined)
    if all(v in (0.0, 1.0) for v in defined):
        return f"{mean:.2f} ({sum(defined):g}/{len(defined)})"
    return f"{mean:.2f} (n {len(defined)})"


def table(runs: list[Path]) -> str:
    """The comparison table (Markdown) over the items every run finished."""
    loaded = {run.name: _records(run) for run in runs}
    common = set.intersection(*(set(r) for r in loaded.values())) if loaded else set()
    lines = [
        f"n = {len(common)} items answered by every run",
        "",
        "| system | correct | citation accuracy | gold-page recall (cited) | supporting-passage "
        "recall (retrieved) | abstention accuracy | EM | token F1 | LLM calls / item | "
        "tokens in / out per item | latency median / max (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, records in loaded.items():
        chosen = [records[i] for i in sorted(common)]
        cells = [_cell([r["scores"].get(m) for r in chosen]) for m in METRICS]
        stats = [r.get("stats", {}) for r in chosen]
        calls = statistics.fmean(float(s.get("llm_calls", 0)) for s in stats) if stats else 0
        tin = statistics.fmean(float(s.get("tokens_in", 0)) for s in stats) if stats else 0
        tout = statistics.fmean(float(s.get("tokens_out", 0)) for s in stats) if stats else 0
        walls = [float(s.get("eval_seconds", s.get("wall_seconds", 0))) for s in stats]
        latency = f"{statistics.median(walls):.0f} / {max(walls):.0f}" if walls else "n/a"
        lines.append(
            f"| {name} | {' | '.join(cells)} | {calls:.1f} | {tin:.0f} / {tout:.0f} | {latency} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    """Print the table for the run folders given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args()
    print(table(args.runs))


if __name__ == "__main__":
    main()
