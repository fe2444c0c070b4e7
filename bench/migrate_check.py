"""``archivist migrate --to postgresql://...`` on a real library: counts, rerun, same searches.

    python bench/migrate_check.py [--library DIR] [--collection pdfs] [--conversations 3]
                                  [--json bench/results/migrate.json]

1. Copies the embedded library ``--library`` (made by ``archivist ingest``; never changed)
   to a temp folder (without one, ingests the evaluation PDFs there) and gives the copy a
   few conversations (two turns each, the scripted model, through a real ``archivist
   serve``) and a rating of each, so conversations, checkpoints, turns and feedback have
   something to copy.
2. Starts a throwaway PostgreSQL with pgvector (``archivist.testing.postgres``) and runs
   ``archivist migrate --to`` on the copy. Then counts every table on both sides, the
   checkpoints and their writes, and the vectors, and compares each stored dense vector and
   BM25 term weight with the embedded engine's (nothing is embedded again).
3. Runs ``archivist migrate`` again: it must succeed and change no count.
4. Asks ``QUESTIONS`` (hybrid, top 5) of the embedded library and of the PostgreSQL one
   (pgvector) and counts the questions whose top 5 are the same ids in the same order, and
   as sets. For each question it also compares the two lists that are fused (dense and
   BM25, 40 deep), and the pgvector top 5 searched exactly (restricted to all documents,
   which keeps PostgreSQL off the HNSW graph), to tell approximation from a difference in
   scoring.

Exit code 1 when a count differs, a rerun changes one, or the migration fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from pdfs_library import (  # noqa: E402
    API_KEY,
    QUESTIONS,
    archivist,
    copy_library,
    environment,
    load,
    serving,
)

from archivist.application import Application  # noqa: E402
from archivist.index.embeddings import embed_queries  # noqa: E402
from archivist.index.engines import open_vector_store  # noqa: E402
from archivist.migrate import NOT_COPIED, _stored_points  # noqa: E402
from archivist.settings import Settings  # noqa: E402
from archivist.storage.schema import metadata  # noqa: E402
from archivist.testing.postgres import ThrowawayPostgres  # noqa: E402

DEPTH = 40  # each fused list's depth (prefetch_k)


def sql_url(url: str) -> str:
    """A ``postgresql://`` URL as SQLAlchemy takes it with psycopg 3."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def seed_conversations(library: Path, collection: str, count: int) -> None:
    """``count`` conversations of two turns each, each answer rated, via a real server."""
    env = environment(library, collection, api_keys=API_KEY)
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with serving(env) as server, httpx.Client(base_url=server.url, headers=headers,
                                              timeout=300) as client:
        for i in range(count):
            thread = client.post("/v1/conversations").json()["thread_id"]
            for question in (QUESTIONS[i], QUESTIONS[-1 - i]):
                client.post(f"/v1/conversations/{thread}/messages",
                            json={"message": question}).raise_for_status()
            client.post(f"/v1/conversations/{thread}/feedback",
                        json={"rating": "up" if i % 2 else "down"}).raise_for_status()


def table_counts(url: str) -> dict[str, int]:
    """Rows of every copied table, and the checkpoints with their writes."""
    engine = sa.create_engine(url)
    present = set(sa.inspect(engine).get_table_names())
    names = [t.name for t in metadata.sorted_tables if t.name not in NOT_COPIED]
    names += [n for n in ("checkpoints", "writes", "checkpoint_writes") if n in present]
    with engine.connect() as conn:
        counts = {n: int(conn.execute(sa.text(f'SELECT count(*) FROM "{n}"')).scalar() or 0)
                  if n in present else 0 for n in names}
    engine.dispose()
    counts["checkpoint writes"] = counts.pop("writes", 0) + counts.pop("checkpoint_writes", 0)
    return counts


Stored = dict[str, tuple[list[float], dict[int, float]]]


def embedded_vectors(library: Path, collection: str) -> Stored:
    """Every child's dense vector and BM25 weights in the embedded engine."""
    settings = Settings(data_dir=library, collection=collection, llm={"model": "scripted"})
    edge = open_vector_store(settings)
    catalog_url = f"sqlite:///{library / 'archivist.sqlite'}"
    engine = sa.create_engine(catalog_url)
    with engine.connect() as conn:
        documents = conn.execute(sa.text("SELECT document_id FROM documents WHERE "
                                         "collection = :c"), {"c": collection}).scalars().all()
    engine.dispose()
    found: Stored = {}
    try:
        for document_id in documents:
            points = _stored_points(edge, collection, document_id)  # type: ignore[arg-type]
            found.update({child: (dense, dict(zip(sparse.indices, sparse.values, strict=True)))
                          for child, (dense, sparse) in points.items()})
    finally:
        edge.close()
    return found


def pgvector_vectors(url: str, collection: str) -> Stored:
    """Every child's dense vector and BM25 weights in pgvector."""
    import psycopg

    with psycopg.connect(url) as conn:
        (table_id,) = conn.execute("SELECT id FROM vector_collections WHERE name = %s",
                                   (collection,)).fetchone() or (None,)
        if table_id is None:
            return {}
        rows = conn.execute(f"SELECT point_id, payload->>'child_id', embedding::text "
                            f"FROM vectors_{table_id}").fetchall()
        terms = conn.execute(f"SELECT point_id, term, weight FROM vectors_{table_id}_terms"
                             ).fetchall()
    child_of = {point: child for point, child, _ in rows}
    found: Stored = {child: (json.loads(dense), {}) for _, child, dense in rows}
    for point, term, weight in terms:
        found[child_of[point]][1][int(term)] = float(weight)
    return found


def compare_vectors(embedded: Stored, shared: Stored) -> dict[str, Any]:
    """How far pgvector's stored vectors are from the embedded engine's."""
    both = embedded.keys() & shared.keys()
    dense_gap = max((float(np.max(np.abs(np.asarray(embedded[c][0]) - np.asarray(shared[c][0]))))
                     for c in both), default=0.0)
    term_gap = max((abs(w - shared[c][1].get(t, float("inf")))
                    for c in both for t, w in embedded[c][1].items()), default=0.0)
    return {"children": [len(embedded), len(shared)],
            "missing": len(embedded.keys() - shared.keys()),
            "extra": len(shared.keys() - embedded.keys()),
            "same_term_sets": sum(embedded[c][1].keys() == shared[c][1].keys() for c in both),
            "max_dense_difference": dense_gap, "max_bm25_weight_difference": term_gap}


def migrate(library: Path, collection: str, url: str) -> dict[str, Any]:
    code, output, seconds = archivist(environment(library, collection), "migrate", "--to", url)
    lines = [line for line in output.splitlines() if line.strip()]
    print(f"  archivist migrate: exit {code} in {seconds:.1f} s (load {load()}): "
          f"{lines[-2:] if lines else output!r}")
    return {"exit": code, "seconds": round(seconds, 1), "load": load(), "output": lines[-3:]}


def ids(hits: Any) -> list[str]:
    return [str(h.child_id if hasattr(h, "child_id") else h.payload["child_id"]) for h in hits]


def only_ties(ours: Any, theirs: Any) -> bool:
    """Whether two rankings differ only in the order of hits with equal scores in ``ours``."""
    rank = {child: r for r, child in enumerate(ids(ours))}
    return all(child in rank and ours[rank[child]].score == ours[r].score
               for r, child in enumerate(ids(theirs)) if ids(ours)[r] != child)


def repeated_orders(app: Application, question: str, collection: str, times: int = 20) -> int:
    """How many different top 5 one engine gives the same search asked ``times`` times."""
    return len({tuple(ids(app.searcher.search(question, 5, "hybrid", collection)))
                for _ in range(times)})


def cause(row: dict[str, Any]) -> str:
    """Why a top 5 differs, from the fused lists compared in :func:`compare_searches`."""
    if row["embedded"] == row["pgvector"]:
        return ""
    if row["dense_same_order"] and row["bm25_same_order"]:
        return "tie in the fused (RRF) scores"
    if not row["bm25_same_order"] and row["bm25_only_ties"]:
        return "tie in the BM25 scores, ordered differently by each engine"
    if not row["dense_same_order"] and row["embedded"] == row["pgvector_exact"]:
        return "HNSW approximation (exact pgvector search agrees)"
    return "not explained by ties or the HNSW graph"


def compare_searches(library: Path, collection: str, url: str, scratch: Path) -> dict[str, Any]:
    """The same questions on both engines: top 5 and the fused lists, side by side."""
    embedded = Application(Settings(data_dir=library, collection=collection,
                                    llm={"model": "scripted"}))
    shared = Application(Settings(
        data_dir=scratch,
        collection=collection,
        llm={"model": "scripted"},
        storage={"database_url": url, "vector_engine": "pgvector"},
    ))
    rows = []
    try:
        everything = sorted(embedded.store.catalog.ready_ids(collection))
        vectors = list(embed_queries(embedded.store.embedder, QUESTIONS))
        for question, dense in zip(QUESTIONS, vectors, strict=True):
            sparse = embedded.store.bm25.encode_query(question)
            row: dict[str, Any] = {"question": question}
            top = {name: ids(app.searcher.search(question, 5, "hybrid", collection))
                   for name, app in (("embedded", embedded), ("pgvector", shared))}
            exact = ids(shared.searcher.search(question, 5, "hybrid", collection, everything))
            row.update(top, pgvector_exact=exact)
            for mode, query in (("dense", (dense, None)), ("bm25", (None, sparse))):
                lists = [app.store.vectors.query_many(collection, mode, DEPTH, [query])[0]
                         for app in (embedded, shared)]
                row[f"{mode}_same_order"] = ids(lists[0]) == ids(lists[1])
                row[f"{mode}_same_set"] = set(ids(lists[0])) == set(ids(lists[1]))
                row[f"{mode}_only_ties"] = only_ties(lists[0], lists[1])
            exact_dense = shared.store.vectors.query_many(collection, "dense", DEPTH,
                                                          [(dense, None)], everything)[0]
            row["dense_exact_same_order"] = ids(exact_dense) == ids(
                embedded.store.vectors.query_many(collection, "dense", DEPTH, [(dense, None)])[0])
            row["cause"] = cause(row)
            if row["cause"]:
                row["embedded_orders_in_20_runs"] = repeated_orders(embedded, question,
                                                                    collection)
                row["pgvector_orders_in_20_runs"] = repeated_orders(shared, question, collection)
            rows.append(row)
    finally:
        shared.close()
        embedded.close()
    same = sum(r["embedded"] == r["pgvector"] for r in rows)
    same_set = sum(set(r["embedded"]) == set(r["pgvector"]) for r in rows)
    exact_same = sum(r["embedded"] == r["pgvector_exact"] for r in rows)
    return {"questions": len(rows), "same_top5_in_order": same, "same_top5_as_set": same_set,
            "same_top5_pgvector_exact": exact_same,
            "dense40_same_order": sum(r["dense_same_order"] for r in rows),
            "dense40_same_set": sum(r["dense_same_set"] for r in rows),
            "dense40_exact_pgvector_same_order": sum(r["dense_exact_same_order"] for r in rows),
            "bm25_40_same_order": sum(r["bm25_same_order"] for r in rows),
            "bm25_40_same_set": sum(r["bm25_same_set"] for r in rows),
            "bm25_40_differ_only_in_ties": sum(r["bm25_only_ties"] for r in rows),
            "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=None, help="an embedded library "
                        "(default: the evaluation PDFs, ingested into a temp folder)")
    parser.add_argument("--collection", default="pdfs")
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report: dict[str, Any] = {"load_start": load()}
    with tempfile.TemporaryDirectory(prefix="migrate-check-") as tmp, \
            ThrowawayPostgres() as cluster:
        library = copy_library(args.library, Path(tmp), args.collection)
        seed_conversations(library, args.collection, args.conversations)
        url = cluster.create_database("library")
        source = table_counts(f"sqlite:///{library / 'archivist.sqlite'}")
        report["first"] = migrate(library, args.collection, url)
        if report["first"]["exit"] != 0:
            return 1
        target = table_counts(sql_url(url))
        local, remote = embedded_vectors(library, args.collection), pgvector_vectors(
            url, args.collection)
        report["vectors"] = compare_vectors(local, remote)
        report["second"] = migrate(library, args.collection, url)
        again = table_counts(sql_url(url))
        rerun_vectors = len(pgvector_vectors(url, args.collection))
        report["counts"] = {n: [source[n], target[n], again[n]] for n in source}
        report["counts"]["vectors"] = [len(local), len(remote), rerun_vectors]
        report["search"] = compare_searches(library, args.collection, url, Path(tmp) / "pg")
    report["load_end"] = load()

    print(f"\ncounts (embedded / PostgreSQL after the first run / after the second run), "
          f"load {report['load_start']} -> {report['load_end']}:")
    bad = []
    for name, (a, b, c) in report["counts"].items():
        flag = "" if a == b == c else "   <- differs"
        bad += [name] if flag else []
        print(f"  {name:<20} {a:>6} {b:>6} {c:>6}{flag}")
    v = report["vectors"]
    print(f"vectors as stored: {v['children']} children, {v['missing']} missing, "
          f"{v['extra']} extra, same BM25 terms for {v['same_term_sets']}, largest difference "
          f"dense {v['max_dense_difference']:.2g}, BM25 weight "
          f"{v['max_bm25_weight_difference']:.2g}")
    s = report["search"]
    n = s["questions"]
    print(f"searches (hybrid, top 5), {n} questions: same ids in order {s['same_top5_in_order']}"
          f"/{n}, as sets {s['same_top5_as_set']}/{n}; pgvector searched exactly: "
          f"{s['same_top5_pgvector_exact']}/{n} in order")
    print(f"  fused lists ({DEPTH} deep): dense same order {s['dense40_same_order']}/{n} "
          f"(as sets {s['dense40_same_set']}/{n}; pgvector searched exactly "
          f"{s['dense40_exact_pgvector_same_order']}/{n}), "
          f"BM25 same order {s['bm25_40_same_order']}/{n} "
          f"(as sets {s['bm25_40_same_set']}/{n}, differing only in tied scores "
          f"{s['bm25_40_differ_only_in_ties']}/{n})")
    for row in s["rows"]:
        if row["cause"]:
            print(f"  differs: {row['question']!r}: {row['cause']}; the same search 20 times "
                  f"gives {row['embedded_orders_in_20_runs']} different top 5 embedded, "
                  f"{row['pgvector_orders_in_20_runs']} on pgvector")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2))
    failed = bad or report["first"]["exit"] or report["second"]["exit"] or v["missing"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
