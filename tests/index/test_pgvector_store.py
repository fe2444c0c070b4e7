"""What only the pgvector engine has to show: its graph is used, filters never lose hits."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import psycopg
import pytest

from archivist.index.pgvector_store import PgVectorStore
from archivist.index.sparse import BM25Encoder
from archivist.index.vectors import VectorStore
from archivist.testing.postgres import ThrowawayPostgres
from archivist.types import Child

DIM = 32
ROWS = 2000


@pytest.fixture(scope="module")
def filled_url(postgres_cluster: ThrowawayPostgres) -> str:
    return postgres_cluster.create_database("pgvector_filled")


@pytest.fixture(scope="module")
def filled(filled_url: str) -> Iterator[tuple[PgVectorStore, np.ndarray]]:
    """2,000 children in 20 documents (read only: filled once for the module)."""
    store = PgVectorStore(filled_url)
    matrix = np.random.default_rng(7).standard_normal((ROWS, DIM)).astype(np.float32)
    store.ensure("default", DIM)
    children = [
        Child(child_id=f"c{n}", parent_id=f"p{n // 10}", document_id=f"d{n // 100}",
              position=n, text=f"passage {n}", heading_path=[], page_start=None, page_end=None)
        for n in range(ROWS)
    ]
    bm25 = BM25Encoder()
    store.upsert("default", children, matrix.tolist(),
                 [bm25.encode_document(c.text) for c in children], "doc.md")
    with psycopg.connect(filled_url, autocommit=True) as conn:
        conn.execute("ANALYZE vectors_1")
    yield store, matrix
    store.close()


def _exact(matrix: np.ndarray, query: np.ndarray, rows: range, k: int) -> list[str]:
    normed = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = normed[list(rows)] @ (query / np.linalg.norm(query))
    return [f"c{rows[i]}" for i in np.argsort(-scores)[:k]]


def test_a_dense_search_walks_the_graph_and_finds_the_true_neighbours(
    filled: tuple[PgVectorStore, np.ndarray], filled_url: str
) -> None:
    store, matrix = filled
    with psycopg.connect(filled_url) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(str(row[0]) for row in conn.execute(
            "EXPLAIN SELECT payload FROM vectors_1 WHERE kind NOT IN ('contents', 'index') "
            "ORDER BY embedding <=> %s::vector LIMIT 10", (str(matrix[0].tolist()),)))
    assert "vectors_1_graph" in plan
    found = 0
    for n in range(20):
        query = matrix[n * 50] + 0.3 * matrix[n * 50 + 1]
        hits = store.query("default", "dense", 10, query.tolist(), None)
        truth = _exact(matrix, query, range(ROWS), 10)
        found += len({h.payload["child_id"] for h in hits} & set(truth))
    assert found / 200 >= 0.95


def test_a_search_within_documents_is_exact_even_far_from_the_query(
    filled: tuple[PgVectorStore, np.ndarray],
) -> None:
    store, matrix = filled
    query = -matrix[1500:1600].mean(axis=0)  # points away from document d15
    hits = store.query("default", "dense", 20, query.tolist(), None, document_ids=["d15"])
    assert [h.payload["child_id"] for h in hits] == _exact(matrix, query, range(1500, 1600), 20)


def test_workers_creating_one_collection_at_once_make_it_once(postgres_url: str) -> None:
    stores: list[VectorStore] = [PgVectorStore(postgres_url) for _ in range(4)]
    errors: list[BaseException] = []

    def create(store: VectorStore) -> None:
        try:
            store.ensure("shared", DIM)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert all(s.exists("shared") and s.dense_size("shared") == DIM for s in stores)
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute("SELECT count(*) FROM vector_collections").fetchone() == (1,)
    finally:
        for store in stores:
            store.close()


def test_a_collection_rebuilt_by_another_worker_is_seen_at_once(postgres_url: str) -> None:
    one, other = PgVectorStore(postgres_url), PgVectorStore(postgres_url)
    try:
        child = Child(child_id="c0", parent_id="p0", document_id="d0", position=0,
                      text="glacier valley", heading_path=[], page_start=None, page_end=None)
        one.ensure("shared", DIM)
        assert one.query("shared", "dense", 5, [1.0] * DIM, None) == []  # tables now known
        other.drop("shared")  # e.g. `archivist reindex` run against another worker
        other.ensure("shared", DIM)
        other.upsert("shared", [child], [[1.0] * DIM], [BM25Encoder().encode_document(
            child.text)], "d0.md")
        assert one.count("shared") == 1 and one.exists("shared")
        assert [h.payload["child_id"] for h in one.query("shared", "hybrid", 5, [1.0] * DIM,
                BM25Encoder().encode_query("glacier"))] == ["c0"]
        other.drop("shared")
        assert one.query("shared", "hybrid", 5, [1.0] * DIM, None) == []
    finally:
        one.close()
        other.close()
