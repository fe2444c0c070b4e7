"""One contract, three engines: embedded Qdrant Edge, a Qdrant server, PostgreSQL + pgvector.

pgvector runs on a real PostgreSQL 16 (the throwaway cluster of ``tests/conftest.py``).

No Qdrant server can run on this machine (no registry package ships its binary; no Docker
daemon or image registry), so the server store runs on qdrant-client's own in-process implementation
(``QdrantClient(":memory:")``): the same client calls, request models and result parsing
as against a server. What that leaves untested is the network path (HTTP/gRPC transport,
``api_key``, timeouts) and the server's own Rust engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from archivist.index.edge_store import EdgeVectorStore
from archivist.index.pgvector_store import PgVectorStore
from archivist.index.qdrant_store import QdrantServerStore
from archivist.index.sparse import BM25Encoder
from archivist.index.vectors import RRF_K, VectorStore
from archivist.types import Child

DIM = 8
BM25 = BM25Encoder()

# (document, text, dense axis): each child's dense vector points mostly along one axis, so
# the dense ranking of a query along an axis is known in advance.
CHILDREN = [
    ("doc-a", "The kettle boils water for tea in the kitchen.", 0),
    ("doc-a", "Green tea leaves steep for three minutes.", 1),
    ("doc-a", "A teapot keeps the brew warm.", 2),
    ("doc-b", "The glacier carved a deep valley over centuries.", 3),
    ("doc-b", "Moraines mark where the ice once stopped.", 4),
    ("doc-c", "The compiler reports error QX-9 on a missing semicolon.", 5),
    ("doc-c", "Linkers join object files into one program.", 6),
    ("doc-c", "A debugger steps through the program line by line.", 7),
]


def _dense(axis: int) -> list[float]:
    noise = random.Random(axis)  # small, distinct off-axis parts: no ties between children
    vec = [noise.uniform(0.0, 0.3) for _ in range(DIM)]
    vec[axis] = 1.0
    return vec


def _children() -> dict[str, list[Child]]:
    by_doc: dict[str, list[Child]] = {}
    for n, (doc, text, _axis) in enumerate(CHILDREN):
        by_doc.setdefault(doc, []).append(
            Child(
                child_id=f"{doc}-c{n}",
                parent_id=f"{doc}-p0",
                document_id=doc,
                position=n,
                text=text,
                heading_path=["Notes", doc] if n % 2 == 0 else [],
                page_start=n + 1 if doc != "doc-b" else None,
                page_end=n + 1 if doc != "doc-b" else None,
            )
        )
    return by_doc


def fill(store: VectorStore, collection: str = "default") -> None:
    store.ensure(collection, DIM)
    axis = {f"{doc}-c{n}": a for n, (doc, _t, a) in enumerate(CHILDREN)}
    for doc, children in _children().items():
        store.upsert(
            collection,
            children,
            [_dense(axis[c.child_id]) for c in children],
            [BM25.encode_document(c.text) for c in children],
            f"{doc}.md",
        )


@pytest.fixture(params=["edge", "server", "pgvector"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    made: VectorStore
    if request.param == "edge":
        made = EdgeVectorStore(tmp_path / "vectors")
    elif request.param == "pgvector":
        made = PgVectorStore(request.getfixturevalue("postgres_url"))
    else:
        made = QdrantServerStore(QdrantClient(":memory:"))
    yield made
    made.close()


def test_missing_collection_is_empty_not_an_error(store: VectorStore) -> None:
    assert not store.exists("nothing")
    assert store.dense_size("nothing") is None
    assert store.count("nothing") == 0
    assert store.document_ids("nothing") == set()
    assert store.query("nothing", "hybrid", 5, _dense(0), BM25.encode_query("tea")) == []
    store.delete_document("nothing", "doc-a")  # no error


def test_ensure_creates_once_with_its_dimension(store: VectorStore) -> None:
    store.ensure("default", DIM)
    store.ensure("default", DIM)
    assert store.exists("default") and store.dense_size("default") == DIM
    assert store.count("default") == 0


def test_upsert_counts_and_document_ids(store: VectorStore) -> None:
    fill(store)
    assert store.count("default") == len(CHILDREN)
    assert store.count("default", "doc-c") == 3
    assert store.document_ids("default") == {"doc-a", "doc-b", "doc-c"}
    fill(store)  # the same children again: same point ids, nothing doubles
    assert store.count("default") == len(CHILDREN)


def test_payload_round_trips(store: VectorStore) -> None:
    fill(store)
    hit = store.query("default", "dense", 1, _dense(4), None)[0]
    assert hit.payload == {
        "child_id": "doc-b-c4",
        "parent_id": "doc-b-p0",
        "document_id": "doc-b",
        "document_name": "doc-b.md",
        "text": CHILDREN[4][1],
        "heading_path": ["Notes", "doc-b"],
        "page_start": None,
        "page_end": None,
        "kind": "body",
    }


def test_contents_and_index_children_are_stored_but_never_found(store: VectorStore) -> None:
    fill(store)
    index_entry = Child(
        child_id="doc-d-c0",
        parent_id="doc-d-p0",
        document_id="doc-d",
        position=0,
        text="kettle, 3; tea, 1, 2; teapot, 4",
        heading_path=["Index"],
        page_start=9,
        page_end=9,
        kind="index",
    )
    sparse = [BM25.encode_document(index_entry.text)]
    store.upsert("default", [index_entry], [_dense(0)], sparse, "doc-d.md")
    assert store.count("default", "doc-d") == 1
    for mode in ("dense", "bm25", "hybrid"):
        hits = store.query("default", mode, 20, _dense(0), BM25.encode_query("kettle tea"))
        assert hits and all(h.payload["kind"] == "body" for h in hits), mode


def test_delete_document_removes_only_that_document(store: VectorStore) -> None:
    fill(store)
    store.delete_document("default", "doc-a")
    assert store.count("default", "doc-a") == 0
    assert store.count("default") == len(CHILDREN) - 3
    assert store.document_ids("default") == {"doc-b", "doc-c"}
    hits = store.query("default", "hybrid", 10, _dense(0), BM25.encode_query("tea kettle"))
    assert hits and all(h.payload["document_id"] != "doc-a" for h in hits)


def test_rename_document_changes_only_its_name(store: VectorStore) -> None:
    fill(store)
    store.rename_document("default", "doc-b", "renamed.md")
    hits = store.query("default", "dense", len(CHILDREN), _dense(4), None)
    names = {h.payload["document_id"]: h.payload["document_name"] for h in hits}
    assert names == {"doc-a": "doc-a.md", "doc-b": "renamed.md", "doc-c": "doc-c.md"}
    assert store.count("default") == len(CHILDREN)
    store.rename_document("nothing", "doc-b", "x.md")  # no collection: no error


def test_dense_ranks_by_cosine(store: VectorStore) -> None:
    fill(store)
    hits = store.query("default", "dense", 3, _dense(6), None)
    assert hits[0].payload["child_id"] == "doc-c-c6"
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert hits[0].score >= hits[1].score >= hits[2].score


def test_bm25_matches_terms_with_idf(store: VectorStore) -> None:
    fill(store)
    hits = store.query("default", "bm25", 5, None, BM25.encode_query("error QX-9"))
    assert [h.payload["child_id"] for h in hits] == ["doc-c-c5"]
    # no query term known: BM25 finds nothing rather than everything
    assert store.query("default", "bm25", 5, None, BM25.encode_query("zebra")) == []
    assert store.query("default", "bm25", 5, None, BM25.encode_query("the of and")) == []


def test_hybrid_is_rrf_over_two_prefetches(store: VectorStore) -> None:
    fill(store)
    # dense points at child 1 (tea leaves); BM25 only knows "kettle" (child 0)
    hits = store.query("default", "hybrid", 3, _dense(1), BM25.encode_query("kettle"))
    by_id = {h.payload["child_id"]: h.score for h in hits}
    # Qdrant counts ranks from 0: 1 / (k + rank), the best hit scoring 1 / k.
    # child 1: dense rank 0, absent from BM25; child 0: BM25 rank 0 plus its dense rank
    assert by_id["doc-a-c1"] == pytest.approx(1 / RRF_K, rel=1e-3)
    dense_rank_of_0 = next(
        i
        for i, h in enumerate(store.query("default", "dense", 8, _dense(1), None), start=1)
        if h.payload["child_id"] == "doc-a-c0"
    )
    expected = 1 / RRF_K + 1 / (RRF_K + dense_rank_of_0 - 1)
    assert by_id["doc-a-c0"] == pytest.approx(expected, rel=1e-3)
    assert hits[0].payload["child_id"] == "doc-a-c0"


def test_hybrid_without_sparse_terms_is_dense_alone(store: VectorStore) -> None:
    fill(store)
    hits = store.query("default", "hybrid", 2, _dense(3), BM25.encode_query("the of"))
    assert hits[0].payload["child_id"] == "doc-b-c3"
    assert hits[0].score == pytest.approx(1 / RRF_K, rel=1e-3)


def test_hybrid_has_no_score_threshold(store: VectorStore) -> None:
    fill(store)
    hits = store.query("default", "hybrid", 100, _dense(0), BM25.encode_query("tea"))
    assert len(hits) == len(CHILDREN)


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_filter_by_document_in_every_mode(store: VectorStore, mode: str) -> None:
    fill(store)
    hits = store.query(
        "default",
        mode,  # type: ignore[arg-type]
        10,
        _dense(0),
        BM25.encode_query("program tea glacier"),
        document_ids=["doc-b", "doc-c"],
    )
    assert hits and {h.payload["document_id"] for h in hits} <= {"doc-b", "doc-c"}


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_batch_of_searches_answers_as_each_search_alone(store: VectorStore, mode: str) -> None:
    fill(store)
    queries = [
        (_dense(0), BM25.encode_query("kettle")),
        (_dense(3), BM25.encode_query("zebra")),  # no known term: BM25 finds nothing
        (_dense(5), BM25.encode_query("program error")),
    ]
    batch = store.query_many(
        "default", mode, 4, queries, document_ids=["doc-a", "doc-c"]  # type: ignore[arg-type]
    )
    alone = [
        store.query("default", mode, 4, d, s, ["doc-a", "doc-c"])  # type: ignore[arg-type]
        for d, s in queries
    ]
    ids = [[(h.payload["child_id"], round(h.score, 5)) for h in hits] for hits in batch]
    assert ids == [[(h.payload["child_id"], round(h.score, 5)) for h in a] for a in alone]
    assert len(batch) == 3 and batch[0] and batch[2]
    assert (batch[1] == []) == (mode == "bm25")
    assert store.query_many("nothing", mode, 4, queries) == [[], [], []]  # type: ignore[arg-type]


def test_collections_are_separate_and_droppable(store: VectorStore) -> None:
    fill(store, "one")
    store.ensure("two", DIM)
    assert store.count("one") == len(CHILDREN) and store.count("two") == 0
    store.drop("one")
    assert not store.exists("one") and store.count("one") == 0 and store.exists("two")


@pytest.mark.parametrize("other", ["server", "pgvector"])
def test_every_engine_gives_the_embedded_ranking_and_scores(
    request: pytest.FixtureRequest, tmp_path: Path, other: str
) -> None:
    edge = EdgeVectorStore(tmp_path / "vectors")
    server: VectorStore = (
        QdrantServerStore(QdrantClient(":memory:"))
        if other == "server"
        else PgVectorStore(request.getfixturevalue("postgres_url"))
    )
    try:
        fill(edge)
        fill(server)
        asked = [(0, "tea kettle"), (5, "debugger program")]
        queries = [(_dense(a), BM25.encode_query(q)) for a, q in asked]
        for mode in ("dense", "bm25", "hybrid"):
            for dense, sparse in queries:
                a = edge.query("default", mode, 5, dense, sparse)  # type: ignore[arg-type]
                b = server.query("default", mode, 5, dense, sparse)  # type: ignore[arg-type]
                assert [h.payload["child_id"] for h in a] == [h.payload["child_id"] for h in b]
                for x, y in zip(a, b, strict=True):
                    assert math.isclose(x.score, y.score, rel_tol=1e-3, abs_tol=1e-5), mode
    finally:
        edge.close()
        server.close()


def test_equal_fused_scores_come_in_child_id_order_every_time(store: VectorStore) -> None:
    # c2 is first by dense and second by BM25, c1 the other way round: equal fused scores
    texts = {"doc-t-c2": "The kettle sits on the old stove in the corner of the cold kitchen.",
             "doc-t-c1": "Kettle, kettle."}
    children = [Child(child_id=cid, parent_id="doc-t-p0", document_id="doc-t", position=n,
                      text=text, heading_path=[], page_start=None, page_end=None)
                for n, (cid, text) in enumerate(texts.items())]
    leaning = _dense(0)
    leaning[1] = 1.0
    store.ensure("ties", DIM)
    store.upsert("ties", children, [_dense(0), leaning],
                 [BM25.encode_document(c.text) for c in children], "doc-t.md")
    query = (_dense(0), BM25.encode_query("kettle"))
    assert [h.payload["child_id"] for h in store.query("ties", "dense", 2, *query)] == [
        "doc-t-c2", "doc-t-c1"]
    assert [h.payload["child_id"] for h in store.query("ties", "bm25", 2, *query)] == [
        "doc-t-c1", "doc-t-c2"]
    for _ in range(20):
        hits = store.query("ties", "hybrid", 2, *query)
        assert [h.payload["child_id"] for h in hits] == ["doc-t-c1", "doc-t-c2"]
        assert hits[0].score == hits[1].score
