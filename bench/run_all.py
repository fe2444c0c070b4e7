"""``make bench``: every benchmark in turn, each printing its own figures.

Results are also written as JSON to ``bench/results/`` where a benchmark supports it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

BENCHMARKS = [
    (
        "ingest and search on the real PDFs",
        ["ingest_bench.py", "--json", str(RESULTS / "ingest.json")],
    ),
    (
        "ingest speed: Archivist against the naive path, side by side",
        ["ingest_speed_bench.py", "--json", str(RESULTS / "ingest_speed.json")],
    ),
    ("agent overhead and fan-out (scripted model)", ["agent_bench.py"]),
    (
        "HTTP load: 50 concurrent conversations with 2 keys, 20 uploads meanwhile",
        ["load_bench.py", "--conversations", "50", "--keys", "--uploads", "20",
         "--out", str(RESULTS / "load.json")],
    ),
    ("retrieval quality: SciFact and HotpotQA-100", ["retrieval_bench.py", "--out", str(RESULTS)]),
    (
        "PostgreSQL + pgvector against the embedded engine: SciFact, latency, throughput",
        ["pgvector_bench.py", "--json", str(RESULTS / "pgvector.json")],
    ),
    (
        "archivist migrate of the PDFs library to PostgreSQL: counts, rerun, same top 5",
        ["migrate_check.py", "--json", str(RESULTS / "migrate.json")],
    ),
    (
        "/v1/search over HTTP: 1 and 3 workers on PostgreSQL, the embedded engine",
        ["search_throughput.py", "--json", str(RESULTS / "search_throughput.json")],
    ),
    (
        "scale: 2k, 20k and 100k chunks on the embedded engine",
        ["scale_bench.py", "--legacy-sizes", "2000", "--json", str(RESULTS / "scale.json")],
    ),
    ("web UI: first paint, a 50-turn conversation (Chromium)",
     ["ui_bench.py", "--out", str(RESULTS / "ui.json")]),
    (
        "local model speed (Qwen2.5-Coder-1.5B in-process)",
        ["local_llm_bench.py", "--json", str(RESULTS / "local_llm.json")],
    ),
    (
        "the agent's scenarios on the real 1.5B model, 3 runs: pass rates",
        ["scenarios_bench.py", "--runs", "3", "--json", str(RESULTS / "scenarios.json")],
    ),
    (
        "FinanceBench validation over one shared store: naive and agent side by side",
        ["filings_bench.py", "--out", str(RESULTS / "financebench"), "naive", "agent"],
    ),
]


def main() -> int:
    RESULTS.mkdir(exist_ok=True)
    failed = []
    for title, command in BENCHMARKS:
        script = HERE / command[0]
        print(f"\n=== {title} ({command[0]}) ===", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *command[1:]])
        print(f"--- {command[0]} finished in {time.perf_counter() - started:.0f} s, exit {code}")
        if code != 0:
            failed.append(command[0])
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
