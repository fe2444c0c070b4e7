"""Ingest the real PDFs, re-ingest them unchanged, and time searches.

Prints pages/s and chunks/s, how ingest time splits between conversion, embedding and
indexing, the time of a no-change re-ingest, and search latency p50/p95 per mode.
``--graph`` switches the entity graph on (``entity_graph = true``) and prints what it
costs against the rest of the same ingest: its seconds (the ``graph`` step runs after the
documents are written) and its storage (the ``graph_*`` tables against everything else).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from archivist.application import Application
from archivist.settings import Settings
from archivist.storage import database_file

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "how do I read a CSV file into a data frame",
    "what is the difference between a list and a vector",
    "how to install a package from CRAN",
    "streaming revenue growth",
    "number of paid memberships at the end of the year",
    "risk factors related to competition",
    "adjusted earnings per share guidance",
    "free cash flow outlook",
    "how to write a function with default arguments",
    "import data from a spreadsheet",
    "why are there unwanted borders in PDF plots",
    "content obligations and commitments",
    "how to fit a linear model",
    "net sales by segment",
    "regular expressions in R",
    "share repurchase program",
    "how do factors work",
    "database connections from R",
    "debt and liquidity",
    "how to save the workspace",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def disk_bytes(path: Path) -> int:
    """Blocks in use under ``path`` (a file or a folder)."""
    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    return sum(f.stat().st_blocks * 512 for f in files)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the conversion pool)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def graph_table_bytes(path: Path) -> int:
    """Bytes of the entity graph's tables and indexes in the library's SQLite file."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        row = conn.execute("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'graph%' "
                           "OR name LIKE 'sqlite_autoindex_graph%'").fetchone()
    return int(row[0] or 0)


def graph_cost(workdir: Path, timings: dict[str, float], ingest_s: float) -> dict[str, float]:
    """The entity graph's seconds and bytes against the rest of the same ingest."""
    graph_s = timings.get("graph", 0.0)
    graph_b = graph_table_bytes(database_file(workdir))
    plain_b = disk_bytes(workdir) - graph_b
    return {
        "graph_s": graph_s,
        "plain_s": ingest_s - graph_s,
        "time_ratio": graph_s / max(ingest_s - graph_s, 1e-9),
        "graph_mb": graph_b / 2**20,
        "plain_mb": plain_b / 2**20,
        "storage_ratio": graph_b / max(plain_b, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pdfs", type=Path, default=REPO.parent / "shared" / "eval" / "pdfs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--graph", action="store_true", help="entity graph on; print its cost")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="archivist-bench-"))
    graph: dict[str, float] = {}
    try:
        library = Application(Settings(data_dir=workdir, index={"entity_graph": args.graph}))
        library.store.embedder.embed_query("warm up")  # model load is not ingest time
        if args.graph:
            library.store.graph_indexer.extractor.extract(["Warm up."])  # nor spaCy's
        started, cpu_started = time.perf_counter(), cpu_seconds()
        report = library.ingest.files([args.pdfs])
        ingest_s = time.perf_counter() - started
        ingest_cpu_s = cpu_seconds() - cpu_started
        pages = sum(r.pages for r in report.results)
        chunks = sum(r.chunks for r in report.results)
        started = time.perf_counter()
        again = library.ingest.files([args.pdfs])
        reingest_s = time.perf_counter() - started
        latency: dict[str, dict[str, float]] = {}
        for mode in ("hybrid", "bm25", "dense"):
            times = []
            for _ in range(3):
                for query in QUERIES:
                    t0 = time.perf_counter()
                    library.searcher.search(query, k=5, mode=mode)  # type: ignore[arg-type]
                    times.append((time.perf_counter() - t0) * 1000)
            latency[mode] = {"p50_ms": percentile(times, 0.5), "p95_ms": percentile(times, 0.95)}
        library.close()
        if args.graph:
            graph = graph_cost(workdir, report.timings, ingest_s)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    figures = {
        "files": len(report.results),
        "failed": report.counts["failed"],
        "pages": pages,
        "chunks": chunks,
        "ingest_s": ingest_s,
        "ingest_cpu_s": ingest_cpu_s,
        "pages_per_s": pages / ingest_s,
        "chunks_per_s": chunks / ingest_s,
        "split_s": report.timings,
        "reingest_unchanged_s": reingest_s,
        "reingest_unchanged_files": again.counts["unchanged"],
        "search_latency": latency,
        "entity_graph": graph or None,
    }
    print(
        f"ingest: {len(report.results)} PDFs, {pages} pages, {chunks} chunks in {ingest_s:.1f} s"
        f" ({ingest_cpu_s:.1f} CPU s)"
    )
    print(f"  throughput: {pages / ingest_s:.1f} pages/s, {chunks / ingest_s:.1f} chunks/s")
    split = ", ".join(f"{k} {v:.1f} s ({v / ingest_s:.0%})" for k, v in report.timings.items())
    print(f"  split: {split}")
    print(
        f"re-ingest, nothing changed: {reingest_s * 1000:.0f} ms "
        f"({again.counts['unchanged']} files unchanged)"
    )
    for mode, lat in latency.items():
        print(f"search {mode:<6} p50 {lat['p50_ms']:.1f} ms  p95 {lat['p95_ms']:.1f} ms")
    print(f"  (search median over {len(QUERIES) * 3} queries, k=5)")
    if graph:
        print(
            f"entity graph: {graph['graph_s']:.1f} s against {graph['plain_s']:.1f} s for the"
            f" rest of the ingest ({graph['time_ratio']:.2f}x); {graph['graph_mb']:.1f} MB"
            f" against {graph['plain_mb']:.1f} MB ({graph['storage_ratio']:.2f}x)"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0 if report.counts["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
