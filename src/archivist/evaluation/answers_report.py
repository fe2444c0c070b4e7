"""Answer-evaluation reports (Markdown + JSON) and the regression gate against a baseline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archivist.evaluation.answers import AnswersSummary
from archivist.evaluation.beir import DatasetError
from archivist.evaluation.report import write_json

__all__ = ["Regression", "answers_markdown", "compare_to_baseline", "write_answers_report"]


@dataclass
class Regression:
    """A quality metric that fell by more than the tolerance."""

    metric: str
    baseline: float
    current: float

    def __str__(self) -> str:
        return f"{self.metric}: {self.baseline:.4f} -> {self.current:.4f}"


def answers_markdown(summary: AnswersSummary) -> str:
    """Averages (with how many items define each), judge scores and costs as tables."""
    lines = [
        f"# Answer evaluation: {summary.dataset}",
        "",
        f"{summary.items} items, {summary.answered} answered, {summary.clarifications} asked "
        f"back (clarification), {summary.errors} with errors; "
        f"collection `{summary.collection}`.",
        "",
        "| metric | mean | items |",
        "| --- | ---: | ---: |",
    ]
    for name, value in {**summary.metrics, **summary.judge}.items():
        count = summary.counts.get(name, summary.answered + summary.clarifications)
        lines.append(f"| {name} | {value:.4f} | {count} |")
    lines += ["", "| cost | total | per item |", "| --- | ---: | ---: |"]
    for key in sorted({k.rsplit("_", 1)[0] for k in summary.costs}):
        lines.append(
            f"| {key} | {summary.costs[f'{key}_total']:g} | {summary.costs[f'{key}_mean']:g} |"
        )
    return "\n".join(lines) + "\n"


def write_answers_report(
    summary: AnswersSummary, records: Sequence[dict[str, Any]], out_dir: Path
) -> list[Path]:
    """``answers.md`` and ``answers_report.json`` (the summary and every per-item score)."""
    md = out_dir / "answers.md"
    md.write_text(answers_markdown(summary), encoding="utf-8")
    per_item = [
        {
            "item_id": r["item_id"],
            "scores": r.get("scores", {}),
            "judge": r.get("judge", {}),
            "error": r.get("error"),
            "status": r.get("status"),
        }
        for r in records
    ]
    data = {"summary": summary.to_dict(), "items": per_item}
    return [md, write_json(out_dir / "answers_report.json", data)]


def _baseline_metrics(path: Path) -> dict[str, float]:
    if not path.is_file():
        raise DatasetError(f"missing file: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc.msg})") from exc
    summary = data.get("summary", data) if isinstance(data, dict) else None
    if not isinstance(summary, dict) or "metrics" not in summary:
        raise DatasetError(f"{path}: not an answers report (no summary metrics)")
    return {**summary.get("metrics", {}), **summary.get("judge", {})}


def compare_to_baseline(
    summary: AnswersSummary, baseline: Path, tolerance: float
) -> tuple[list[Regression], list[str]]:
    """Metrics (in both reports) that dropped by more than ``tolerance``, and those skipped."""
    before = _baseline_metrics(baseline)
    now = {**summary.metrics, **summary.judge}
    regressions = [
        Regression(name, float(before[name]), now[name])
        for name in before
        if name in now and float(before[name]) - now[name] > tolerance + 1e-12
    ]
    skipped = sorted(set(before) - set(now))
    return regressions, skipped
