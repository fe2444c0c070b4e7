"""The embedded engine: Qdrant Edge, one in-process shard per collection under ``vectors/``.

Every update goes through the shard's write-ahead log before ``update`` returns, so a
process killed right after an upsert finds the points again on the next open. One process
at a time holds a library: a lock file beside the shards says which.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import qdrant_edge as qe

from archivist.index.edge_config import (
    edge_config,
    has_current_graph_settings,
    search_params,
    upgrade_config,
)
from archivist.index.sparse import SparseVector
from archivist.index.vectors import (
    DENSE,
    RRF_K,
    SPARSE,
    UNSEARCHED_KINDS,
    UPSERT_BATCH,
    DiskFull,
    LibraryInUse,
    QueryVectors,
    VectorHit,
    VectorStoreUnreadable,
    child_payload,
    point_id,
    ranked,
)
from archivist.settings import SearchMode
from archivist.types import Child

log = logging.getLogger(__name__)

_CONFIG_FILE = "edge_config.json"
# Keyword indexes: documents are filtered by id, and every search leaves out some kinds.
# Without an index on ``kind`` each search read every point's payload (seconds at 100k).
_INDEXED_FIELDS = ("document_id", "kind")
#: Free space kept for deletes (a rollback writes to the log too) and the catalog.
RESERVE_BYTES = 2 * 1024 * 1024
# Facets return at most ``limit`` values; a collection never holds more documents than this.
_MAX_DOCUMENTS = 10_000_000


class DirectoryLock:
    """An exclusive advisory lock on a file; the OS drops it when the process dies."""

    def __init__(self, path: Path, holder: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise LibraryInUse(
                f"the library in {holder} is in use by another Archivist process "
                "(start `archivist serve` on it and the CLI goes through the server, "
                "or run Qdrant as a server and set ARCHIVIST_STORAGE__QDRANT_URL)"
            ) from None

    def release(self) -> None:
        """Give the lock back (safe to repeat)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


class EdgeVectorStore:
    """``VectorStore`` on Qdrant Edge shards in ``root`` (``root/<collection>``)."""

    def __init__(
        self, root: Path, lock: DirectoryLock | None = None,
        graph_threshold_kb: int | None = None,
    ) -> None:
        self.root = root
        self._graph_threshold_kb = graph_threshold_kb
        root.mkdir(parents=True, exist_ok=True)
        self._lock = lock or DirectoryLock(root.parent / "library.lock", str(root.parent))
        self._shards: dict[str, qe.EdgeShard] = {}
        self._guard = threading.Lock()
        self.opening_notes: list[str] = []

    # --- shards --------------------------------------------------------------------------
    def _path(self, collection: str) -> Path:
        return self.root / collection

    def exists(self, collection: str) -> bool:
        """Whether the collection has been created."""
        return collection in self._shards or (self._path(collection) / _CONFIG_FILE).is_file()

    def _shard(self, collection: str) -> qe.EdgeShard | None:
        """The open shard of a collection, loaded on first use; ``None`` if there is none."""
        shard = self._shards.get(collection)
        if shard is not None:
            return shard
        with self._guard:
            if collection not in self._shards:
                if not self.exists(collection):
                    return None
                try:
                    shard = self._load(collection)
                except Exception as exc:  # the engine raises a bare Exception with its reason
                    raise VectorStoreUnreadable(
                        f"cannot open the vectors of collection '{collection}' in "
                        f"{self._path(collection)}: {exc}; run `archivist reindex` to rebuild "
                        "them from the catalog"
                    ) from exc
                _index_fields(shard)  # a shard made before an index was added gets it now
                self._shards[collection] = shard
            return self._shards[collection]

    def _load(self, collection: str) -> qe.EdgeShard:
        """Load a shard; one made with other graph settings gets ours written first.

        Its read-only segments get the graph the next time the shard is optimized (on
        close): the optimizer rebuilds a segment whose index differs from the settings.
        """
        path = self._path(collection)
        config = json.loads((path / _CONFIG_FILE).read_text(encoding="utf-8"))
        if has_current_graph_settings(config):
            return qe.EdgeShard.load(str(path))
        return qe.EdgeShard.load(str(path), upgrade_config(config))

    def dense_size(self, collection: str) -> int | None:
        """The dense vector size of an existing collection."""
        if not self.exists(collection):
            return None
        config = json.loads((self._path(collection) / _CONFIG_FILE).read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])

    def ensure(self, collection: str, dimension: int) -> None:
        """Create the collection with named dense + sparse (IDF) vectors if missing."""
        with self._guard:
            if collection in self._shards or (self._path(collection) / _CONFIG_FILE).is_file():
                return
            path = self._path(collection)
            if path.exists():  # a creation that died before writing its config
                shutil.rmtree(path)
            shard = qe.EdgeShard.create(
                str(path), edge_config(dimension, self._graph_threshold_kb)
            )
            _index_fields(shard)
            self._shards[collection] = shard

    def drop(self, collection: str) -> None:
        """Delete a whole collection."""
        with self._guard:
            shard = self._shards.pop(collection, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self._path(collection), ignore_errors=True)

    # --- writes --------------------------------------------------------------------------
    def upsert(
        self,
        collection: str,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int = UPSERT_BATCH,
    ) -> None:
        """Store children with both vectors; in the write-ahead log when this returns.

        Refused with :class:`DiskFull` before anything is written when the disk has too
        little room: Qdrant Edge writes through memory maps, and a full disk under a memory
        map kills the process (SIGBUS) instead of raising an error.
        """
        shard = self._shard(collection)
        if shard is None:
            raise VectorStoreUnreadable(f"collection '{collection}' has no vector store yet")
        self._check_space(children, dense, sparse)
        for start in range(0, len(children), batch):
            points = [
                qe.Point(
                    point_id(child.child_id),
                    {
                        DENSE: [float(x) for x in vec],
                        SPARSE: qe.SparseVector(list(sp.indices), list(sp.values)),
                    },
                    child_payload(child, document_name),
                )
                for child, vec, sp in zip(
                    children[start : start + batch],
                    dense[start : start + batch],
                    sparse[start : start + batch],
                    strict=True,
                )
            ]
            shard.update(qe.UpdateOperation.upsert_points(points))

    def _check_space(
        self, children: Sequence[Child], dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
    ) -> None:
        """Raise :class:`DiskFull` unless the points (and the reserve) fit on the disk."""
        needed = RESERVE_BYTES + sum(
            needed_bytes(len(vec), len(sp.indices), len(child.text.encode("utf-8")))
            for child, vec, sp in zip(children, dense, sparse, strict=True)
        )
        free = shutil.disk_usage(self.root).free
        if free < needed:
            raise DiskFull(
                f"disk full: its {len(children)} passages need about {_mb(needed)} MB for "
                f"vectors, {_mb(free)} MB free in {self.root}"
            )

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete every child of a document."""
        shard = self._shard(collection)
        if shard is not None:
            shard.update(
                qe.UpdateOperation.delete_points_by_filter(_document_filter([document_id]))
            )

    def rename_document(self, collection: str, document_id: str, name: str) -> None:
        """Change the document name stored with every child of a document."""
        shard = self._shard(collection)
        if shard is not None:
            shard.update(qe.UpdateOperation.set_payload_by_filter(
                _document_filter([document_id]), {"document_name": name}))

    # --- reads ---------------------------------------------------------------------------
    def document_ids(self, collection: str) -> set[str]:
        """Every document id that has vectors, from the keyword index (no scan)."""
        shard = self._shard(collection)
        if shard is None:
            return set()
        facets = shard.facet(qe.FacetRequest(key="document_id", limit=_MAX_DOCUMENTS, exact=True))
        return {str(hit.value) for hit in facets.hits if hit.count > 0}

    def count(self, collection: str, document_id: str | None = None) -> int:
        """How many children are stored (for one document, or in all)."""
        shard = self._shard(collection)
        if shard is None:
            return 0
        flt = _document_filter([document_id]) if document_id else None
        return int(shard.count(qe.CountRequest(exact=True, filter=flt)))

    def query(
        self,
        collection: str,
        mode: SearchMode,
        limit: int,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        document_ids: list[str] | None = None,
        prefetch_limit: int = 40,
    ) -> list[VectorHit]:
        """Dense, BM25 or hybrid (RRF over both) search; no threshold on scores."""
        return self.query_many(
            collection, mode, limit, [(dense, sparse)], document_ids, prefetch_limit
        )[0]

    def query_many(
        self,
        collection: str,
        mode: SearchMode,
        limit: int,
        queries: Sequence[QueryVectors],
        document_ids: list[str] | None = None,
        prefetch_limit: int = 40,
    ) -> list[list[VectorHit]]:
        """Several searches of one mode as one planned batch (one pass over the segments)."""
        shard = self._shard(collection)
        if shard is None:
            return [[] for _ in queries]
        flt = _search_filter(document_ids)
        requests = [_request(mode, limit, d, s, flt, prefetch_limit) for d, s in queries]
        planned = [r for r in requests if r is not None]
        results = iter(shard.query_batch(qe.QueryBatchRequest(planned)) if planned else [])
        return [
            ranked([VectorHit(dict(p.payload or {}), float(p.score)) for p in next(results)])
            if r is not None
            else []
            for r in requests
        ]

    # --- lifecycle -----------------------------------------------------------------------
    def close_shards(self) -> None:
        """Optimize, flush and close every shard, keeping the library lock.

        ``optimize`` turns a write segment that has grown past the engine's indexing
        threshold (about 6,500 chunks of 384 dimensions) into a read-only segment with an
        HNSW graph, which opens several times faster and searches without scanning every
        vector; smaller libraries are left as they are (0.1 ms). Building the graph is the
        cost (docs/results.md, "Search at scale"). It holds the interpreter for its whole run,
        so it cannot run in a background thread of ``archivist serve``: a server builds it
        when it stops. It is crash-safe: the engine builds the new segment beside the old
        one and swaps them; a kill leaves the old one.
        """
        with self._guard:
            for shard in self._shards.values():
                shard.optimize()
                shard.flush()
                shard.close()
            self._shards.clear()

    def close(self) -> None:
        """Flush and close every shard, then release the library lock."""
        self.close_shards()
        self._lock.release()


def _index_fields(shard: qe.EdgeShard) -> None:
    """Create the keyword indexes the shard lacks (each one a logged update, then flushed)."""
    present = set(shard.info().payload_schema)
    missing = [field for field in _INDEXED_FIELDS if field not in present]
    for field in missing:
        shard.update(qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))
    if missing:
        shard.flush()


def _request(
    mode: SearchMode,
    limit: int,
    dense: Sequence[float] | None,
    sparse: SparseVector | None,
    flt: qe.Filter,
    prefetch_limit: int,
) -> qe.QueryRequest | None:
    """One search as the engine takes it; ``None`` for BM25 without a known term."""
    dense_query = qe.Query.Nearest([float(x) for x in dense or []], using=DENSE)
    graph = search_params(max(limit, prefetch_limit))
    sparse_query = (
        qe.Query.Nearest(qe.SparseVector(list(sparse.indices), list(sparse.values)), SPARSE)
        if sparse is not None and sparse.indices
        else None
    )
    if mode == "dense":
        return qe.QueryRequest(
            limit=limit, query=dense_query, filter=flt, with_payload=True, params=graph
        )
    if mode == "bm25":
        if sparse_query is None:
            return None
        return qe.QueryRequest(limit=limit, query=sparse_query, filter=flt, with_payload=True)
    depth = max(prefetch_limit, limit)
    prefetches = [qe.Prefetch(limit=depth, query=dense_query, filter=flt, params=graph)]
    if sparse_query is not None:
        prefetches.append(qe.Prefetch(limit=depth, query=sparse_query, filter=flt))
    return qe.QueryRequest(
        limit=limit,
        prefetches=prefetches,
        query=qe.Fusion.Rrf(k=RRF_K),  # type: ignore[arg-type]  # the stub omits it
        with_payload=True,
    )


def _search_filter(document_ids: list[str] | None) -> qe.Filter:
    """Only the given documents (all when None), never a table of contents or an index."""
    return qe.Filter(
        must=_document_filter(document_ids).must if document_ids else None,
        must_not=[qe.FieldCondition(key="kind", match=qe.MatchAny(list(UNSEARCHED_KINDS)))],
    )


def _document_filter(document_ids: list[str]) -> qe.Filter:
    return qe.Filter(
        must=[qe.FieldCondition(key="document_id", match=qe.MatchAny(list(document_ids)))]
    )


def needed_bytes(dimension: int, sparse_terms: int, text_bytes: int) -> int:
    """A generous estimate of the disk one point takes.

    Vector and payload, in the write-ahead log and again in a segment (measured: about
    5.7 KB for 384 dimensions and a 500-character passage; this gives about 7.5 KB).
    """
    return 3 * 4 * dimension + 2 * text_bytes + 16 * sparse_terms + 1024


def _mb(size: int) -> str:
    return f"{size / 1_048_576:.1f}"
