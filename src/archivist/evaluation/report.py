"""Write evaluation reports: Markdown tables, a bar chart (matplotlib, Agg) and full JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from archivist.evaluation.retrieval import RetrievalReport
from archivist.types import ArchivistError

__all__ = ["retrieval_markdown", "write_json", "write_retrieval_report"]


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as indented UTF-8 JSON (atomically: temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def retrieval_markdown(report: RetrievalReport) -> str:
    """The aggregate table, modes side by side, with what was measured and how."""
    modes = list(report.modes)
    lines = [
        f"# Retrieval evaluation: {report.dataset}",
        "",
        f"{report.query_count} queries, {report.corpus_size} documents, collection "
        f"`{report.collection}`, embedding model `{report.settings.get('embedding_model')}`.",
        f"Document ranking = best child per document over the top "
        f"{report.depth * report.child_factor} children (depth {report.depth}).",
        "",
        "| metric | " + " | ".join(modes) + " |",
        "| --- | " + " | ".join("---:" for _ in modes) + " |",
    ]
    for metric, values in report.table():
        best = max(values) if values else 0.0
        cells = [f"**{v:.4f}**" if v == best and len(values) > 1 else f"{v:.4f}" for v in values]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    lines.append(
        "| seconds | " + " | ".join(f"{r.seconds:.1f}" for r in report.modes.values()) + " |"
    )
    counts = ", ".join(f"{k} {v}" for k, v in report.ingest_counts.items() if v)
    lines += ["", f"Ingest: {report.ingest_seconds:.1f} s ({counts or 'nothing to do'})."]
    return "\n".join(lines) + "\n"


def _bar_chart(report: RetrievalReport, path: Path) -> Path:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ArchivistError("the chart needs matplotlib: pip install 'archivist[eval]'") from exc
    modes = list(report.modes)
    metrics = report.metrics
    width = 0.8 / max(len(modes), 1)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(metrics)), 4.0))
    try:
        for i, mode in enumerate(modes):
            xs = [m + i * width for m in range(len(metrics))]
            values = [report.modes[mode].aggregates[m] for m in metrics]
            bars = ax.bar(xs, values, width, label=mode)
            ax.bar_label(bars, fmt="%.3f", fontsize=7)
        ax.set_xticks([m + width * (len(modes) - 1) / 2 for m in range(len(metrics))], metrics)
        ax.set_ylim(0, 1.15)
        ax.set_ylabel("score")
        ax.set_title(f"{report.dataset}: {report.query_count} queries")
        ax.legend(loc="upper center", ncol=max(len(modes), 1), frameon=False)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)
    return path


def write_retrieval_report(report: RetrievalReport, out_dir: Path) -> list[Path]:
    """Write ``retrieval.md``, ``retrieval.json`` and ``retrieval.png`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "retrieval.md"
    md.write_text(retrieval_markdown(report), encoding="utf-8")
    written = [md, write_json(out_dir / "retrieval.json", report.to_dict())]
    written.append(_bar_chart(report, out_dir / "retrieval.png"))
    return written
