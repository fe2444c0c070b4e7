"""PostgreSQL + pgvector against the embedded engine, side by side on one corpus.

    python bench/pgvector_bench.py [--data-dir DIR] [--beir DIR] [--postgres-url URL]
                                   [--sizes 2000,20000] [--seconds 20] [--workers 1,3]
                                   [--skip-ndcg] [--synthetic] [--json PATH]

1. Quality: BEIR SciFact (all 300 test queries) in the library of ``--data-dir`` (the
   retrieval benchmark's, default ``$ARCHIVIST_DATA_DIR`` or ``/tmp/archivist-bench``;
   ingested there on the embedded engine if missing). Hybrid nDCG@10 on the embedded engine,
   then the same children and vectors copied into pgvector (no re-embedding) and the same
   evaluation through the same searcher.
2. Latency: for each size, the first N children of that library in a fresh embedded store
   and in pgvector. Each SciFact query (real query vectors) is searched as the searcher does
   it (``exists``, then one hybrid ``query_many``: ``search_k + 8`` hits, prefetch 40);
   p50/p95 per engine. Below 33,000 chunks the embedded engine searches exactly; pgvector
   walks its HNSW graph. ``--synthetic`` builds these libraries from SciFact's text with
   seeded random dense vectors instead (real BM25 vectors; no model, no ingested library).
3. Throughput on pgvector at the largest size: 1 and 3 processes each searching in a loop
   (direct store calls, the searcher's query; not ``/v1/search`` over HTTP), and the
   embedded engine in one process (it holds its library alone).

PostgreSQL is a throwaway cluster (``archivist.testing.postgres``) unless ``--postgres-url``.
The load average is printed beside every figure: on a busy machine times are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import qdrant_edge as qe  # noqa: E402

from archivist.application import Application  # noqa: E402
from archivist.evaluation.beir import collection_for, load_beir  # noqa: E402
from archivist.evaluation.retrieval import evaluate_retrieval  # noqa: E402
from archivist.index.edge_store import EdgeVectorStore  # noqa: E402
from archivist.index.embeddings import embed_queries  # noqa: E402
from archivist.index.pgvector_store import PgVectorStore  # noqa: E402
from archivist.index.sparse import BM25Encoder, SparseVector  # noqa: E402
from archivist.index.vectors import VectorStore  # noqa: E402
from archivist.settings import Settings  # noqa: E402
from archivist.types import Child  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("ARCHIVIST_EVAL_DIR", REPO.parent / "shared" / "eval"))
Point = tuple[dict[str, Any], list[float], SparseVector]


def load() -> float:
    return round(os.getloadavg()[0], 1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def edge_points(shard_dir: Path, limit: int | None = None) -> Iterator[Point]:
    """Every child of an embedded collection with both its vectors, in id order."""
    shard = qe.EdgeShard.load(str(shard_dir))
    try:
        offset, given = None, 0
        while limit is None or given < limit:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=1000, with_payload=True, with_vector=True)
            )
            for record in records:
                vectors = record.vector
                assert isinstance(vectors, dict)
                sparse = vectors["bm25"]
                yield (
                    dict(record.payload or {}),
                    list(vectors["dense"]),  # type: ignore[arg-type]
                    SparseVector(list(sparse.indices), list(sparse.values)),  # type: ignore[union-attr]
                )
                given += 1
                if limit is not None and given >= limit:
                    return
            if offset is None:
                return
    finally:
        shard.close()


def synthetic_vector(text: str, dimension: int = 384) -> list[float]:
    """A seeded random unit vector per text (as scale_bench.py): no model time."""
    rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
    vec = rng.standard_normal(dimension).astype(np.float32)
    return (vec / np.linalg.norm(vec)).tolist()


def synthetic_points(beir: Path, count: int) -> list[Point]:
    """SciFact abstracts cut in 500-character children (100 overlap), real BM25 vectors,
    synthetic dense vectors: a library of any size without the embedding model."""
    bm25 = BM25Encoder()
    points: list[Point] = []
    rows = [json.loads(line) for line in (beir / "corpus.jsonl").open()]
    for row in rows:
        text = f"{row['title']}. {row['text']}"
        for n, start in enumerate(range(0, max(1, len(text) - 100), 400)):
            piece = text[start : start + 500]
            payload = {"child_id": f"{row['_id']}-{n}", "parent_id": f"{row['_id']}-p",
                       "document_id": str(row["_id"]), "document_name": f"{row['_id']}.md",
                       "text": piece, "heading_path": [], "page_start": None,
                       "page_end": None, "kind": "body"}
            points.append((payload, synthetic_vector(piece), bm25.encode_document(piece)))
            if len(points) >= count:
                return points
    return points


def copy_points(points: list[Point], store: VectorStore, collection: str, dimension: int,
                writers: int = 1) -> float:
    """Write the points into ``store`` a document at a time (as ingest does), from
    ``writers`` threads (workers ingesting side by side); seconds."""
    store.ensure(collection, dimension)
    by_document: dict[str, list[Point]] = defaultdict(list)
    for point in points:
        by_document[point[0]["document_id"]].append(point)

    def write(group: list[Point]) -> None:
        children = [
            Child(child_id=p["child_id"], parent_id=p["parent_id"], document_id=p["document_id"],
                  position=n, text=p["text"], heading_path=p["heading_path"],
                  page_start=p["page_start"], page_end=p["page_end"], kind=p["kind"])
            for n, (p, _d, _s) in enumerate(group)
        ]
        store.upsert(collection, children, [d for _p, d, _s in group],
                     [s for _p, _d, s in group], group[0][0]["document_name"])

    started = time.perf_counter()
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(write, by_document.values()))
    return time.perf_counter() - started


def search_once(store: VectorStore, collection: str, query: tuple[Any, Any], k: int) -> None:
    """What ``HybridSearcher`` asks the engine for one hybrid search."""
    if store.exists(collection):
        store.query_many(collection, "hybrid", k + 8, [query], prefetch_limit=max(40, k))


def latency(store: VectorStore, collection: str, queries: list[Any], k: int) -> dict[str, float]:
    for query in queries[:20]:  # warm caches
        search_once(store, collection, query, k)
    times = []
    for query in queries:
        started = time.perf_counter()
        search_once(store, collection, query, k)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 2), "p95_ms": round(percentile(times, 0.95), 2),
            "mean_ms": round(statistics.fmean(times), 2), "load": load()}


def _search_loop(url: str, collection: str, queries: list[Any], k: int, start_at: float,
                 seconds: float, counts: Any, slot: int) -> None:
    store = PgVectorStore(url, max_connections=1)
    try:
        search_once(store, collection, queries[0], k)
        while time.time() < start_at:
            time.sleep(0.005)
        done, deadline = 0, start_at + seconds
        while time.time() < deadline:
            search_once(store, collection, queries[done % len(queries)], k)
            done += 1
        counts[slot] = done
    finally:
        store.close()


def throughput(url: str, collection: str, queries: list[Any], k: int, workers: int,
               seconds: float) -> dict[str, float]:
    """Searches per second from ``workers`` processes, each with its own connection."""
    context = multiprocessing.get_context("spawn")
    counts = context.Array("l", workers)
    start_at = time.time() + 15  # every process connected and warm before the clock starts
    procs = [context.Process(target=_search_loop, args=(url, collection, queries, k, start_at,
                                                       seconds, counts, n))
             for n in range(workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    if any(proc.exitcode != 0 for proc in procs):
        raise RuntimeError("a search process failed")
    return {"searches_per_s": round(sum(counts) / seconds, 1), "load": load()}


def edge_throughput(store: VectorStore, collection: str, queries: list[Any], k: int,
                    seconds: float) -> dict[str, float]:
    done, deadline = 0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        search_once(store, collection, queries[done % len(queries)], k)
        done += 1
    return {"searches_per_s": round(done / seconds, 1), "load": load()}


def hybrid_ndcg(settings: Settings, dataset: Any, collection: str, engine: str,
                vectors: VectorStore | None = None) -> dict[str, Any]:
    """Hybrid nDCG@10 of the dataset through the searcher, on the given vector store."""
    app = Application(settings, vectors=vectors)
    try:
        report = evaluate_retrieval(app, dataset, modes=["hybrid"], collection=collection)
    finally:
        app.close()
    result = report.modes["hybrid"]
    figure = {"ndcg@10": round(result.aggregates["ndcg@10"], 4), "load": load(),
              "search_s": round(result.seconds, 1)}
    print(f"{dataset.name} hybrid nDCG@10, {engine}: {figure}", flush=True)
    return figure


def quality(data_dir: Path, beir: Path, url: str) -> dict[str, Any]:
    """SciFact hybrid nDCG@10 on both engines, on the same children and vectors."""
    dataset = load_beir(beir)
    collection = collection_for(dataset)
    settings = Settings(data_dir=data_dir)
    edge_figure = hybrid_ndcg(settings, dataset, collection, "embedded")
    points = list(edge_points(settings.vectors_path / collection))
    pg = PgVectorStore(url)
    pg.drop(collection)
    copy_s = copy_points(points, pg, collection, len(points[0][1]), writers=4)
    print(f"copied {len(points)} children into pgvector in {copy_s:.0f} s (load {load()})",
          flush=True)
    pg_figure = hybrid_ndcg(settings, dataset, collection, "pgvector", pg)
    return {"children": len(points), "copy_s": round(copy_s, 1), "embedded": edge_figure,
            "pgvector": pg_figure,
            "difference": round(pg_figure["ndcg@10"] - edge_figure["ndcg@10"], 4)}


def query_vectors(data_dir: Path, beir: Path) -> list[tuple[list[float], SparseVector]]:
    dataset = load_beir(beir)
    texts = [query.text for query in dataset.judged_queries()]
    app = Application(Settings(data_dir=data_dir))
    try:
        store = app.store
        dense = embed_queries(store.embedder, texts)
        return [(list(map(float, d)), store.bm25.encode_query(t))
                for d, t in zip(dense, texts, strict=True)]
    finally:
        app.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path(
        os.environ.get("ARCHIVIST_DATA_DIR", "/tmp/archivist-bench")))
    parser.add_argument("--beir", type=Path, default=EVAL / "scifact")
    parser.add_argument("--postgres-url")
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", default="1,3")
    parser.add_argument("--skip-ndcg", action="store_true")
    parser.add_argument("--synthetic", action="store_true",
                        help="latency on SciFact text with synthetic dense vectors (no model)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {"load_at_start": load()}
    with ExitStack() as stack:
        url = args.postgres_url
        if url is None:
            from archivist.testing.postgres import ThrowawayPostgres

            url = stack.enter_context(ThrowawayPostgres()).create_database("bench")
        if not args.skip_ndcg:
            results["scifact"] = quality(args.data_dir, args.beir, url)
        sizes = [int(s) for s in args.sizes.split(",")]
        if args.synthetic:
            bm25 = BM25Encoder()
            texts = [q.text for q in load_beir(args.beir).judged_queries()]
            queries = [(synthetic_vector("query: " + t), bm25.encode_query(t)) for t in texts]
            points = synthetic_points(args.beir, max(sizes))
        else:
            queries = query_vectors(args.data_dir, args.beir)
            shard_dir = args.data_dir / "vectors" / collection_for(load_beir(args.beir))
            points = list(edge_points(shard_dir, max(sizes)))
        results["dense_vectors"] = "synthetic" if args.synthetic else "all-MiniLM-L6-v2"
        dimension = len(points[0][1])
        k = Settings().index.search_k
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pgvec-bench-")))
        pg = PgVectorStore(url)
        stack.callback(pg.close)
        for size in sizes:
            name = f"scale_{size}"
            edge = EdgeVectorStore(work / f"edge-{size}" / "vectors")
            copy_points(points[:size], edge, name, dimension)
            edge.close()  # optimized and flushed, as a server leaves it
            edge = EdgeVectorStore(work / f"edge-{size}" / "vectors")
            pg.drop(name)
            pg_write = copy_points(points[:size], pg, name, dimension, writers=4)
            row = {"chunks": size, "pgvector_write_s_4_writers": round(pg_write, 1),
                   "embedded": latency(edge, name, queries, k),
                   "pgvector": latency(pg, name, queries, k)}
            if size == max(sizes):
                row["embedded_1_process"] = edge_throughput(edge, name, queries, k, args.seconds)
                for workers in (int(w) for w in args.workers.split(",")):
                    row[f"pgvector_{workers}_processes"] = throughput(
                        url, name, queries, k, workers, args.seconds)
            edge.close()
            print(json.dumps(row), flush=True)
            results[name] = row
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
