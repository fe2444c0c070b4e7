"""Retrieval benchmark: BEIR SciFact (all modes) and HotpotQA-100 supporting-passage recall.

    python bench/retrieval_bench.py [--eval-dir DIR] [--data-dir DIR] [--out DIR]
                                    [--only scifact|hotpotqa] [--limit N]

The corpora are ingested into ``beir_<name>`` collections of the library in ``--data-dir``
(default ``$ARCHIVIST_DATA_DIR`` or ``/tmp/archivist-bench``) and reused on later runs.
Prints one table per dataset; ``--out`` also writes retrieval.md/json/png per dataset.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from archivist.application import Application  # noqa: E402
from archivist.evaluation.report import write_retrieval_report  # noqa: E402
from archivist.evaluation.retrieval import RetrievalReport, evaluate_retrieval  # noqa: E402
from archivist.settings import Settings  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
console = Console(highlight=False)

# name -> (folder, modes, metrics, published reference)
DATASETS = {
    "scifact": (
        "scifact",
        ("bm25", "dense", "hybrid", "multihop", "graph"),
        ("ndcg@10", "recall@10", "recall@100", "mrr@10"),
        "published nDCG@10: BM25 0.679 (Anserini), BGE-base 0.741",
    ),
    "hotpotqa": (
        "hotpotqa_train100",
        ("bm25", "dense", "hybrid", "multihop", "graph"),
        ("recall@2", "recall@5", "recall@10", "ndcg@10"),
        "reference: a BM25 run scores Recall@5 0.755 on the supporting passages",
    ),
}


def show(report: RetrievalReport, note: str) -> None:
    table = Table(
        title=f"{report.dataset}: {report.query_count} queries, {report.corpus_size} documents"
    )
    table.add_column("metric")
    for mode in report.modes:
        table.add_column(mode, justify="right")
    for metric, values in report.table():
        table.add_row(metric, *(f"{v:.4f}" for v in values))
    table.add_row("seconds", *(f"{r.seconds:.1f}" for r in report.modes.values()))
    medians = [statistics.median(q.seconds for q in r.queries) for r in report.modes.values()]
    table.add_row("p50 ms/query", *(f"{1000 * m:.0f}" for m in medians))
    console.print(table)
    counts = ", ".join(f"{k} {v}" for k, v in report.ingest_counts.items() if v)
    timings = ", ".join(f"{k} {v:.1f} s" for k, v in report.ingest_timings.items())
    console.print(f"ingest {report.ingest_seconds:.1f} s ({counts}; {timings})")
    console.print(f"[dim]{note}[/dim]\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--eval-dir",
        type=Path,
        default=Path(os.environ.get("ARCHIVIST_EVAL_DIR", REPO.parent / "shared" / "eval")),
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("ARCHIVIST_DATA_DIR", "/tmp/archivist-bench")),
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--only", choices=sorted(DATASETS), action="append")
    parser.add_argument("--limit", type=int, default=None, help="first N queries only")
    args = parser.parse_args()
    names = args.only or list(DATASETS)
    with Application(Settings(data_dir=args.data_dir)) as library:
        for name in names:
            folder, modes, metrics, note = DATASETS[name]
            path = args.eval_dir / folder
            if not path.is_dir():
                console.print(f"[red]error:[/red] missing dataset folder {path}")
                return 2
            started = time.perf_counter()
            with console.status(f"{name}: ingest (first run only) and search"):
                report = evaluate_retrieval(
                    library, path, modes=modes, metrics=metrics, limit_queries=args.limit
                )
            show(report, f"{note}; total {time.perf_counter() - started:.0f} s")
            if args.out:
                write_retrieval_report(report, args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
