"""What keeps search and reopening fast at scale without changing answers or durability.

Every search leaves out some kinds of children (a filter on ``kind``) and keeps only ready
documents (``Catalog.ready_ids``): the first needs a payload index in the engine, the second
is cached between searches and must follow every change, from this process or another.
Closing a store optimizes its shards: a write segment past the graph threshold becomes a
read-only one with an HNSW graph whose searches find what an exact scan finds; a smaller
one stays plain (exact). Shards made with other graph settings are upgraded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import qdrant_edge as qe

from archivist.index.catalog import Catalog
from archivist.index.edge_config import GRAPH_M
from archivist.index.edge_store import EdgeVectorStore
from archivist.index.sparse import SparseVector
from archivist.index.vectors import DENSE, GRAPH_THRESHOLD_KB, SPARSE
from archivist.storage import Database
from archivist.types import Child, DocumentRecord


def _record(document_id: str) -> DocumentRecord:
    return DocumentRecord(document_id=document_id, collection="c", path=f"/x/{document_id}",
                          name=f"{document_id}.md", content_hash=document_id, size_bytes=1,
                          page_count=0, parent_count=0, child_count=0, added_at="")


def test_new_shards_index_document_id_and_kind(tmp_path: Path) -> None:
    store = EdgeVectorStore(tmp_path / "vectors")
    store.ensure("default", 4)
    schema = store._shard("default").info().payload_schema  # type: ignore[union-attr]
    assert set(schema) == {"document_id", "kind"}
    store.close()


def test_a_shard_of_the_first_edge_release_is_upgraded_on_open(tmp_path: Path) -> None:
    root = tmp_path / "vectors"
    first = qe.EdgeConfig(  # as the first Edge release made them: default HNSW, one index
        vectors={DENSE: qe.EdgeVectorParams(size=4, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    old = qe.EdgeShard.create(str(root / "default"), first)
    old.update(qe.UpdateOperation.create_field_index("document_id", qe.PayloadSchemaType.Keyword))
    old.flush()
    old.close()
    store = EdgeVectorStore(root)
    assert set(store._shard("default").info().payload_schema) == {"document_id", "kind"}  # type: ignore[union-attr]
    store.close()
    config = json.loads((root / "default" / "edge_config.json").read_text())
    assert config["hnsw_config"]["m"] == GRAPH_M and config["hnsw_config"]["payload_m"] == 0
    # it had the engine's default threshold (10 MB): it gets ours, so a library of SciFact's
    # size (24.7k chunks, 37 MB of vectors) stays exact
    assert config["optimizers"]["indexing_threshold"] == GRAPH_THRESHOLD_KB
    assert config["hnsw_config"]["full_scan_threshold"] == GRAPH_THRESHOLD_KB
    reopened = qe.EdgeShard.load(str(root / "default"))  # both stay: logged and flushed
    assert "kind" in reopened.info().payload_schema
    reopened.close()


DIM, PER_DOC = 32, 100
THRESHOLD_KB = 200  # 1,600 chunks of 32 floats: 2,000 pass it, 1,000 do not


def _unit_rows(count: int, seed: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((count, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _fill(store: EdgeVectorStore, matrix: np.ndarray) -> None:
    store.ensure("default", DIM)
    for d in range(len(matrix) // PER_DOC):
        children = [
            Child(child_id=f"d{d}-c{n}", parent_id=f"d{d}-p0", document_id=f"d{d}", position=n,
                  text=f"chunk {n} of document {d}", heading_path=[], page_start=None,
                  page_end=None)
            for n in range(PER_DOC)
        ]
        dense = matrix[d * PER_DOC : (d + 1) * PER_DOC].tolist()
        sparse = [SparseVector([d, 1000 + n], [1.0, 1.0]) for n in range(PER_DOC)]
        store.upsert("default", children, dense, sparse, f"d{d}.md")


def _dense_indexes(shard_dir: Path) -> list[str]:
    """The dense index type of every segment that holds points ("plain" or "hnsw")."""
    kinds = []
    for segment in sorted((shard_dir / "segments").glob("*/segment.json")):
        config = json.loads(segment.read_text())["config"]["vector_data"][DENSE]
        kinds.append(config["index"]["type"])
    return kinds


def _exact_top(matrix: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    return [f"d{i // PER_DOC}-c{i % PER_DOC}" for i in np.argsort(-(matrix @ query))[:k]]


def test_closing_builds_a_graph_past_the_threshold_that_finds_the_exact_neighbours(
    tmp_path: Path,
) -> None:
    matrix = _unit_rows(2_000, seed=7)
    store = EdgeVectorStore(tmp_path / "vectors", graph_threshold_kb=THRESHOLD_KB)
    _fill(store, matrix)
    assert _dense_indexes(tmp_path / "vectors" / "default") == ["plain"]  # one write segment
    store.close()
    assert "hnsw" in _dense_indexes(tmp_path / "vectors" / "default")

    store = EdgeVectorStore(tmp_path / "vectors", graph_threshold_kb=THRESHOLD_KB)
    assert store.count("default") == len(matrix)
    assert store.document_ids("default") == {f"d{d}" for d in range(len(matrix) // PER_DOC)}
    found = 0
    queries = _unit_rows(30, seed=8)
    for q in queries:
        query = q * 0.5 + matrix[int(abs(q[0]) * 1999)] * 0.5  # a known chunk close by
        hits = store.query("default", "dense", 10, query.tolist(), None)
        expected = _exact_top(matrix, query, 10)
        assert hits[0].payload["child_id"] == expected[0]
        found += len({h.payload["child_id"] for h in hits} & set(expected))
    assert found / (10 * len(queries)) >= 0.97  # the graph misses (almost) nothing
    bm25 = store.query("default", "bm25", 3, None, SparseVector([5], [1.0]))
    assert {h.payload["document_id"] for h in bm25} == {"d5"}
    store.close()


def test_a_shard_below_the_threshold_stays_plain_and_exact(tmp_path: Path) -> None:
    matrix = _unit_rows(1_000, seed=9)
    store = EdgeVectorStore(tmp_path / "vectors", graph_threshold_kb=THRESHOLD_KB)
    _fill(store, matrix)
    store.close()
    assert set(_dense_indexes(tmp_path / "vectors" / "default")) == {"plain"}
    store = EdgeVectorStore(tmp_path / "vectors", graph_threshold_kb=THRESHOLD_KB)
    query = matrix[3] * 0.6 + matrix[444] * 0.4
    hits = store.query("default", "dense", 10, query.tolist(), None)
    assert [h.payload["child_id"] for h in hits] == _exact_top(matrix, query, 10)
    store.close()


def test_a_plain_shard_of_the_previous_release_gets_the_graph_on_close(tmp_path: Path) -> None:
    shard_dir = tmp_path / "vectors" / "default"
    previous = qe.EdgeConfig(  # as the previous release made them: no graph (m=0)
        vectors={DENSE: qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=THRESHOLD_KB,
                                       payload_m=0),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=THRESHOLD_KB),
    )
    qe.EdgeShard.create(str(shard_dir), previous).close()
    matrix = _unit_rows(2_000, seed=10)
    store = EdgeVectorStore(tmp_path / "vectors")  # loads it with the graph settings
    _fill(store, matrix)
    store.close()
    config = json.loads((shard_dir / "edge_config.json").read_text())
    assert config["hnsw_config"]["m"] == GRAPH_M
    assert config["hnsw_config"]["full_scan_threshold"] == THRESHOLD_KB  # its threshold kept
    assert "hnsw" in _dense_indexes(shard_dir)
    store = EdgeVectorStore(tmp_path / "vectors")
    query = matrix[17] * 0.6 + matrix[1500] * 0.4
    sparse = SparseVector([0, 1017], [1.0, 1.0])  # only d0-c17 has both terms
    hits = store.query("default", "hybrid", 5, query.tolist(), sparse)
    assert hits[0].payload["child_id"] == "d0-c17"  # first in both lists
    assert store.count("default") == len(matrix)
    store.close()


def test_ready_ids_follow_every_change(database: Database) -> None:
    catalog = Catalog(database)
    catalog.add_pending(_record("a1"), [], [])
    assert catalog.ready_ids("c") == set()
    catalog.set_status("c", {"a1": "ready"})
    assert catalog.ready_ids("c") == {"a1"}
    mine = catalog.ready_ids("c")
    mine.add("not-there")  # a caller narrowing its copy does not touch the cache
    assert catalog.ready_ids("c") == {"a1"}
    other_database = Database(database_url_of(database))  # another process's connection
    other = Catalog(other_database)
    other.add_pending(_record("b2"), [], [])
    other.set_status("c", {"b2": "ready"})
    assert catalog.ready_ids("c") == {"a1", "b2"}
    other.set_status("c", {"a1": "removing"})
    assert catalog.ready_ids("c") == {"b2"}
    catalog.delete_document("c", "b2")
    assert catalog.ready_ids("c") == set() == other.ready_ids("c")
    other_database.close()


def database_url_of(database: Database) -> str:
    return database.url.render_as_string(hide_password=False)
