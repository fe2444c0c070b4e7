"""``/v1/search`` over HTTP: 1 and 3 server processes on PostgreSQL, and the embedded engine.

    python bench/search_throughput.py [--library DIR] [--collection pdfs] [--clients 8]
                                      [--requests 30] [--warmup 3] [--json PATH]

Copies the embedded library ``--library`` (never changed; without one, the evaluation PDFs
are ingested) to a temp folder, migrates the copy into a throwaway PostgreSQL with pgvector
(``archivist migrate --to``), then, one after the other on the same corpus:

- ``archivist serve --workers 1`` on PostgreSQL (pgvector),
- ``archivist serve --workers 3`` on PostgreSQL (pgvector),
- ``archivist serve`` on the embedded library (Qdrant Edge; one process is all it allows).

Each is a real server process on a free localhost port with an API key. ``--clients``
threads (httpx) each send ``--warmup`` searches, and then, all started together,
``--requests`` hybrid top-5 searches each (the questions of ``pdfs_library.QUESTIONS`` in
turn), each on a new connection so that the kernel spreads them over the workers. Reported:
searches per second over the whole timed phase, p50/p95 latency as the clients see it, and
the load average before and after. Before timing, every worker process must have loaded the
embedding model (read from ``/proc/<pid>/maps``).

The clients run on the same machine: with few cores, they and the servers share them, so
every figure is an upper bound on what the servers alone would take.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from pdfs_library import (
    API_KEY,
    QUESTIONS,
    Served,
    archivist,
    copy_library,
    environment,
    load,
    serving,
)

from archivist.testing.postgres import ThrowawayPostgres

MODEL_LIBRARIES = ("onnxruntime", "libtorch")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def model_loaded(pid: int) -> bool:
    """Whether process ``pid`` has loaded the embedding model's runtime."""
    maps = Path(f"/proc/{pid}/maps").read_text(errors="replace")
    return any(name in maps for name in MODEL_LIBRARIES)


def searches(url: str, clients: int, each: int, offset: int = 0) -> tuple[list[float], float,
                                                                            list[str]]:
    """``clients`` threads sending ``each`` searches: (latencies, wall seconds, errors)."""
    latencies: list[float] = []
    errors: list[str] = []
    guard = threading.Lock()
    start = threading.Barrier(clients + 1)

    def client(i: int) -> None:
        mine: list[float] = []
        limits = httpx.Limits(max_keepalive_connections=0)  # a new connection per search
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {API_KEY}"},
                          limits=limits, timeout=120) as http:
            start.wait()
            for j in range(each):
                question = QUESTIONS[(offset + i * each + j) % len(QUESTIONS)]
                began = time.perf_counter()
                try:
                    reply = http.get("/v1/search", params={"q": question, "k": 5,
                                                          "mode": "hybrid"})
                    reply.raise_for_status()
                    if len(reply.json()["hits"]) != 5:
                        raise ValueError(f"{len(reply.json()['hits'])} hits for {question!r}")
                except (httpx.HTTPError, ValueError) as exc:
                    with guard:
                        errors.append(repr(exc))
                    continue
                mine.append(time.perf_counter() - began)
        with guard:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - began, errors


def measure(served: Served, workers: int, clients: int, each: int, warmup: int) -> dict[str, Any]:
    """Warm every worker up, then time the searches."""
    warming, rounds = time.perf_counter(), 0
    while True:
        searches(served.url, clients, warmup, offset=7)
        rounds, pids = rounds + 1, served.worker_pids()
        if len(pids) == workers and all(model_loaded(pid) for pid in pids):
            break
        if rounds == 10:
            raise RuntimeError(f"not every worker loaded the model after warm-up: {pids}")
    warm_s = time.perf_counter() - warming
    load_before = load()
    latencies, wall, errors = searches(served.url, clients, each)
    return {
        "workers": workers, "clients": clients, "searches": len(latencies),
        "warmup_rounds": rounds, "warmup_s": round(warm_s, 1),
        "errors": len(errors), "first_errors": errors[:3],
        "searches_per_s": round(len(latencies) / wall, 1), "wall_s": round(wall, 2),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "load_before": load_before, "load_after": load(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=None, help="an embedded library "
                        "(default: the evaluation PDFs, ingested into a temp folder)")
    parser.add_argument("--collection", default="pdfs")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=30, help="timed searches per client")
    parser.add_argument("--warmup", type=int, default=3, help="searches per client before")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="search-throughput-") as tmp, \
            ThrowawayPostgres() as cluster:
        library = copy_library(args.library, Path(tmp), args.collection)
        url = cluster.create_database("library")
        code, output, _ = archivist(environment(library, args.collection), "migrate", "--to", url)
        if code != 0:
            print(output)
            return 1
        shared = environment(Path(tmp) / "shared", args.collection, database_url=url,
                             api_keys=API_KEY)
        runs = [("PostgreSQL + pgvector", shared, 1), ("PostgreSQL + pgvector", shared, 3),
                ("embedded (SQLite + Qdrant Edge)", environment(library, args.collection,
                                                                api_keys=API_KEY), 1)]
        for name, env, workers in runs:
            starting = time.perf_counter()
            with serving(env, workers) as served:
                started_s = time.perf_counter() - starting
                result = measure(served, workers, args.clients, args.requests, args.warmup)
            result.update(engine=name, started_s=round(started_s, 1))
            results.append(result)
            print(f"{name}, {workers} worker(s): {result['searches_per_s']} searches/s, "
                  f"p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, "
                  f"{result['searches']} searches, {result['errors']} errors "
                  f"(load {result['load_before']} -> {result['load_after']}; up in "
                  f"{result['started_s']} s, warm in {result['warmup_s']} s)", flush=True)
    print(f"\n{args.clients} clients x {args.requests} hybrid top-5 searches over HTTP, "
          "a new connection each; clients on the same machine: upper bounds")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
