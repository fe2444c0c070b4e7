"""What keeps search and reopening fast at scale without changing answers or durability.

Every search leaves out some kinds of children (a filter on ``kind``) and keeps only ready
documents (``Catalog.ready_ids``): the first needs a payload index in the engine, the second
is cached between searches and must follow every change, from this process or another.
Closing a store optimizes its shards (a large write segment becomes a read-only one, with
no HNSW graph, so dense search stays exact), and a shard from before that is upgraded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import qdrant_edge as qe

from archivist.index.catalog import Catalog
from archivist.index.edge_store import EdgeVectorStore
from archivist.index.sparse import SparseVector
from archivist.index.vectors import DENSE, SPARSE
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
    assert config["hnsw_config"]["m"] == 0 and config["hnsw_config"]["payload_m"] == 0
    reopened = qe.EdgeShard.load(str(root / "default"))  # both stay: logged and flushed
    assert "kind" in reopened.info().payload_schema
    reopened.close()


def test_closing_optimizes_a_large_shard_and_search_stays_exact(tmp_path: Path) -> None:
    dim, docs, per_doc = 384, 70, 100  # 7,000 chunks: past the engine's indexing threshold
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((docs * per_doc, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    store = EdgeVectorStore(tmp_path / "vectors")
    store.ensure("default", dim)
    for d in range(docs):
        children = [
            Child(child_id=f"d{d}-c{n}", parent_id=f"d{d}-p0", document_id=f"d{d}", position=n,
                  text=f"chunk {n} of document {d}", heading_path=[], page_start=None,
                  page_end=None)
            for n in range(per_doc)
        ]
        dense = matrix[d * per_doc : (d + 1) * per_doc].tolist()
        sparse = [SparseVector([d, 1000 + n], [1.0, 1.0]) for n in range(per_doc)]
        store.upsert("default", children, dense, sparse, f"d{d}.md")
    query = matrix[0] * 0.6 + matrix[1234] * 0.4  # near two known chunks, no ties
    best = np.argsort(-(matrix @ query))[:10]
    expected = [f"d{i // per_doc}-c{i % per_doc}" for i in best]
    assert store._shard("default").info().segments_count == 1  # type: ignore[union-attr]
    store.close()

    store = EdgeVectorStore(tmp_path / "vectors")
    info = store._shard("default").info()  # type: ignore[union-attr]
    assert info.segments_count >= 2  # the read-only segment, and a new write segment
    assert store.count("default") == docs * per_doc
    assert store.document_ids("default") == {f"d{d}" for d in range(docs)}
    hits = store.query("default", "dense", 10, query.tolist(), None)
    assert [h.payload["child_id"] for h in hits] == expected  # exact, as brute force
    bm25 = store.query("default", "bm25", 3, None, SparseVector([5], [1.0]))
    assert {h.payload["document_id"] for h in bm25} == {"d5"}
    store.close()


def test_ready_ids_follow_every_change(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    catalog = Catalog(path)
    catalog.add_pending(_record("a1"), [], [])
    assert catalog.ready_ids("c") == set()
    catalog.set_status("c", {"a1": "ready"})
    assert catalog.ready_ids("c") == {"a1"}
    mine = catalog.ready_ids("c")
    mine.add("not-there")  # a caller narrowing its copy does not touch the cache
    assert catalog.ready_ids("c") == {"a1"}
    other = Catalog(path)  # another connection (another process, with a Qdrant server)
    other.add_pending(_record("b2"), [], [])
    other.set_status("c", {"b2": "ready"})
    assert catalog.ready_ids("c") == {"a1", "b2"}
    other.set_status("c", {"a1": "removing"})
    assert catalog.ready_ids("c") == {"b2"}
    catalog.delete_document("c", "b2")
    assert catalog.ready_ids("c") == set() == other.ready_ids("c")
    other.close()
    catalog.close()
