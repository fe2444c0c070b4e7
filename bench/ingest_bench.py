"""Ingest the real PDFs, re-ingest them unchanged, and time searches.

Prints pages/s and chunks/s, how ingest time splits between conversion, embedding and
indexing, the time of a no-change re-ingest, and search latency p50/p95 per mode.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from archivist.application import Application
from archivist.settings import Settings

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pdfs", type=Path, default=REPO.parent / "shared" / "eval" / "pdfs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="archivist-bench-"))
    try:
        library = Application(Settings(data_dir=workdir))
        library.store.embedder.embed_query("warm up")  # model load is not ingest time
        started = time.perf_counter()
        report = library.ingest.files([args.pdfs])
        ingest_s = time.perf_counter() - started
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
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    figures = {
        "files": len(report.results),
        "failed": report.counts["failed"],
        "pages": pages,
        "chunks": chunks,
        "ingest_s": ingest_s,
        "pages_per_s": pages / ingest_s,
        "chunks_per_s": chunks / ingest_s,
        "split_s": report.timings,
        "reingest_unchanged_s": reingest_s,
        "reingest_unchanged_files": again.counts["unchanged"],
        "search_latency": latency,
    }
    print(f"ingest: {len(report.results)} PDFs, {pages} pages, {chunks} chunks in {ingest_s:.1f} s")
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
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0 if report.counts["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
