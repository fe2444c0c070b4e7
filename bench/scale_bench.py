"""Scale benchmark: libraries of 2k, 20k and 100k chunks on the embedded engine.

    python bench/scale_bench.py [--sizes 2000,20000,100000] [--queries 100]
                                [--legacy-sizes 2000] [--workdir DIR] [--json PATH]

Each library is built through the product's own ingest (chunking, catalog, BM25, vector
writes) from SciFact abstracts (real text, so BM25 sees real term statistics), repeated
with shifted windows past the corpus' ~20k chunks. Dense vectors are synthetic: a seeded
random unit vector per text, so the embedding model's time is left out of every figure
(its query embedding is timed once, on its own). Every size runs in a fresh process, so
its RSS is its own.

Per size: build time, open time (first open after the build, consistency check included)
and reopen time, hybrid top-5 p50/p95 (``Library.search``), the agent's search p50/p95
(a ``search_documents`` call: top ``tool_result_hits`` plus reading the best hit's parent),
RSS and size on disk; then the growth ratio largest/smallest. ``--legacy-sizes`` also runs
the old engine (qdrant-client's local mode) on those sizes, fewer queries, for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("ARCHIVIST_EVAL_DIR", REPO.parent / "shared" / "eval"))
DIMENSION = 384
DOCS_PER_CALL = 200


class SyntheticEmbedder:
    """A seeded random unit vector per text: the engine's work without the model's."""

    name = "synthetic-384"
    dimension = DIMENSION

    @staticmethod
    def _vector(text: str) -> list[float]:
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
        vec = rng.standard_normal(DIMENSION).astype(np.float32)
        return (vec / np.linalg.norm(vec)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector("query: " + text)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def scifact_documents() -> Iterator[tuple[str, str]]:
    """Markdown documents of 8 abstracts each; later rounds shift every abstract's start."""
    rows = [json.loads(line) for line in (EVAL / "scifact" / "corpus.jsonl").open()]
    for rnd in range(1000):
        for start in range(0, len(rows), 8):
            parts = []
            for row in rows[start : start + 8]:
                text = row["text"][(rnd * 37) % max(1, len(row["text"]) // 3) :]
                parts.append(f"## {row['title']}\n\n{text}")
            yield f"scifact-r{rnd}-{start}.md", "# SciFact abstracts\n\n" + "\n\n".join(parts)


def queries(count: int) -> list[str]:
    rows = [json.loads(line) for line in (EVAL / "scifact" / "queries.jsonl").open()]
    return [row["text"] for row in rows[:count]]


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def disk_mb(path: Path) -> float:
    """Blocks in use (preallocated but unwritten file space is not counted)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 2**20


def open_application(data_dir: Path, engine: str):  # type: ignore[no-untyped-def]
    from archivist.application import Application
    from archivist.settings import Settings

    settings = Settings(data_dir=data_dir, index={"embedding_model": SyntheticEmbedder.name})
    if engine == "legacy":
        from qdrant_client import QdrantClient

        from archivist.index.qdrant_store import QdrantServerStore

        client = QdrantClient(path=str(data_dir / "qdrant"))
        vectors = QdrantServerStore(client)
        return Application(settings, embedder=SyntheticEmbedder(), vectors=vectors)  # type: ignore[arg-type]
    return Application(settings, embedder=SyntheticEmbedder())  # type: ignore[arg-type]


def build(data_dir: Path, size: int, engine: str) -> tuple[int, float]:
    """Ingest until ``size`` chunks; (chunks, seconds). Recorded in ``build.json``."""
    shutil.rmtree(data_dir, ignore_errors=True)
    application = open_application(data_dir, engine)
    chunks = 0
    started = time.perf_counter()
    docs = scifact_documents()
    documents = 0
    while chunks < size:
        # a first small call measures how many chunks a document makes
        wanted = round((size - chunks) * documents / chunks) if documents else 10
        wanted = max(1, min(DOCS_PER_CALL, wanted))
        report = application.ingest.texts([next(docs) for _ in range(wanted)])
        chunks += sum(r.chunks for r in report.results)
        documents += wanted
    application.close()  # closing optimizes the shard: part of building
    build_s = time.perf_counter() - started
    load = os.getloadavg()[0]
    record = {"chunks": chunks, "build_s": build_s, "loadavg_after_build": load}
    (data_dir / "build.json").write_text(json.dumps(record))
    return chunks, build_s


def run_one(
    size: int, engine: str, query_count: int, workdir: Path, keep: bool = False,
    reuse: bool = False, build_only: bool = False,
) -> dict[str, float]:
    """Build (or reuse), open, reopen and query one library; figures as a dict."""
    data_dir = workdir / f"{engine}-{size}"
    baseline = rss_mb()
    built = data_dir / "build.json"
    if reuse and built.is_file():
        record = json.loads(built.read_text())
        chunks, build_s = int(record["chunks"]), float(record["build_s"])
    else:
        chunks, build_s = build(data_dir, size, engine)
    if build_only:
        return {"engine": engine, "size": size, "chunks": chunks, "build_s": build_s}
    started = time.perf_counter()
    application = open_application(data_dir, engine)
    open_s = time.perf_counter() - started
    texts = queries(query_count)
    searcher = application.searcher
    started = time.perf_counter()
    searcher.search(texts[0], k=5)
    first_query_ms = (time.perf_counter() - started) * 1000
    hybrid, agent = [], []
    retriever = searcher.retriever()
    agent_k = application.settings.agent.tool_result_hits
    for text in texts:
        t0 = time.perf_counter()
        searcher.search(text, k=5)
        hybrid.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        hits = retriever.search(text, k=agent_k)
        if hits:
            retriever.get_parent(hits[0].parent_id)
        agent.append((time.perf_counter() - t0) * 1000)
    rss = rss_mb()
    application.close()
    started = time.perf_counter()
    application = open_application(data_dir, engine)
    reopen_s = time.perf_counter() - started
    application.close()
    figures = {
        "engine": engine,
        "size": size,
        "chunks": chunks,
        "build_s": build_s,
        "open_s": open_s,
        "reopen_s": reopen_s,
        "first_query_ms": first_query_ms,
        "hybrid_p50_ms": percentile(hybrid, 0.5),
        "hybrid_p95_ms": percentile(hybrid, 0.95),
        "agent_p50_ms": percentile(agent, 0.5),
        "agent_p95_ms": percentile(agent, 0.95),
        "rss_mb": rss,
        "rss_growth_mb": rss - baseline,
        "disk_mb": disk_mb(data_dir),
        "queries": len(texts),
    }
    if not (keep or reuse):
        shutil.rmtree(data_dir, ignore_errors=True)
    return figures


def query_embedding_ms() -> float:
    """p50 of the real default model's query embedding (added to every real search)."""
    from archivist.index.embeddings import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    texts = queries(50)
    model.embed_query("warm up")
    times = []
    for text in texts:
        t0 = time.perf_counter()
        model.embed_query(text)
        times.append((time.perf_counter() - t0) * 1000)
    return percentile(times, 0.5)


def in_subprocess(
    size: int, engine: str, query_count: int, workdir: Path, extra: list[str]
) -> dict[str, float]:
    out = workdir / f"{engine}-{size}.json"
    command = [
        sys.executable,
        __file__,
        "--one",
        str(size),
        "--engine",
        engine,
        "--queries",
        str(query_count),
        "--workdir",
        str(workdir),
        "--json",
        str(out),
        *extra,
    ]
    subprocess.run(command, check=True)
    return json.loads(out.read_text())


def table(rows: list[dict[str, float]]) -> str:
    columns = [
        ("engine", "engine", "{}"),
        ("chunks", "chunks", "{:,}"),
        ("build_s", "build s", "{:.1f}"),
        ("open_s", "open s", "{:.2f}"),
        ("reopen_s", "reopen s", "{:.2f}"),
        ("hybrid_p50_ms", "top-5 p50 ms", "{:.1f}"),
        ("hybrid_p95_ms", "top-5 p95 ms", "{:.1f}"),
        ("agent_p50_ms", "agent p50 ms", "{:.1f}"),
        ("agent_p95_ms", "agent p95 ms", "{:.1f}"),
        ("rss_mb", "RSS MB", "{:.0f}"),
        ("disk_mb", "disk MB", "{:.0f}"),
    ]
    lines = [
        "| " + " | ".join(title for _, title, _ in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    for row in rows:
        lines.append("| " + " | ".join(fmt.format(row[key]) for key, _, fmt in columns) + " |")
    edge = [r for r in rows if r["engine"] == "edge"]
    if len(edge) >= 2:
        small, large = edge[0], edge[-1]
        ratios = ["edge", f"{large['chunks'] / small['chunks']:.0f}× data"]
        for key, _, _ in columns[2:]:
            ratios.append(f"{large[key] / small[key]:.1f}×" if small[key] else "-")
        lines.append("| " + " | ".join(["**growth**", *ratios[1:]]) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2000,20000,100000")
    parser.add_argument("--legacy-sizes", default="", help="also run the old engine on these")
    parser.add_argument("--legacy-queries", type=int, default=20)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the libraries (--workdir)")
    parser.add_argument(
        "--reuse", action="store_true",
        help="measure libraries already built in --workdir (their build.json); build missing",
    )
    parser.add_argument(
        "--build-only", action="store_true", help="build the libraries in --workdir and stop"
    )
    parser.add_argument("--no-embedding", action="store_true", help="skip the model's timing")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--engine", default="edge", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (EVAL / "scifact" / "corpus.jsonl").is_file():
        print(f"SciFact not found under {EVAL} (set ARCHIVIST_EVAL_DIR)", file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="archivist-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.one:
        figures = run_one(
            args.one, args.engine, args.queries, workdir, args.keep, args.reuse, args.build_only
        )
        args.json.write_text(json.dumps(figures, indent=2))
        return 0
    extra = [flag for flag, on in (("--keep", args.keep), ("--reuse", args.reuse),
                                   ("--build-only", args.build_only)) if on]
    rows = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        rows.append(in_subprocess(size, "edge", args.queries, workdir, extra))
        print(json.dumps(rows[-1]), flush=True)
    for size in [int(s) for s in args.legacy_sizes.split(",") if s]:
        rows.append(in_subprocess(size, "legacy", args.legacy_queries, workdir, extra))
        print(json.dumps(rows[-1]), flush=True)
    if args.build_only:
        return 0
    embed_ms = 0.0 if args.no_embedding else query_embedding_ms()
    load = os.getloadavg()
    print()
    print(table(rows))
    print(
        f"\nquery embedding with the real model (all-MiniLM-L6-v2) adds p50 {embed_ms:.1f} ms to "
        f"every search above. load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
        f"on {os.cpu_count()} CPUs"
    )
    if args.json:
        summary = {"rows": rows, "query_embedding_p50_ms": embed_ms, "loadavg": load}
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
