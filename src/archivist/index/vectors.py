"""Where child vectors live: one ``VectorStore`` protocol, two engines with one meaning.

Every collection holds child chunks with a named dense vector (cosine) and a named BM25
sparse vector whose IDF the engine applies. Hybrid search runs two prefetches (dense and
BM25, each ``max(prefetch_limit, limit)`` deep, both with the same document filter) and
fuses them with reciprocal rank fusion, k=60. The embedded engine (Qdrant Edge, in this
process) and a Qdrant server (``qdrant_url``) implement exactly that; the contract tests in
``tests/index`` run the same suite against both.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from archivist.index.sparse import SparseVector
from archivist.settings import SearchMode
from archivist.types import ArchivistError, Child

if TYPE_CHECKING:
    pass

# Reciprocal rank fusion constant: 1 / (k + rank). Qdrant's own default is small, which
# leans on each list's first few ranks; the classic k=60 measured better on SciFact
# (SciFact nDCG@10 0.723 vs 0.714).
RRF_K = 60
#: Candidates a graph (HNSW) search keeps, on both engines. On SciFact's real embeddings
#: (24.7k chunks, 300 queries) it finds 99.5% of the exact top 10 and 98.8% of the top 40.
SEARCH_EF = 128
#: Below this many KB of dense vectors a segment stays plain and is searched exactly; past it
#: the segment gets an HNSW graph when the store is optimized (both engines). 50 MB is about
#: 33,000 chunks of 384 floats: at 20k chunks an exact search takes a few ms, and SciFact's
#: 24.7k chunks kept nDCG@10 0.7209 exact against 0.7187 on a graph.
#: Qdrant's default, 10 MB (about 6,500 chunks), put such libraries on the graph.
GRAPH_THRESHOLD_KB = 50_000
DENSE = "dense"
SPARSE = "bm25"
UPSERT_BATCH = 256
UNSEARCHED_KINDS = ("contents", "index")
"""Children of these kinds (a table of contents, an index) are stored but never searched."""
_ID_NAMESPACE = uuid.UUID("6f1c1e9e-5a7e-4c55-9a43-6a7c0b1d2e3f")


class LibraryInUse(ArchivistError):
    """Another process holds this library's embedded vector store."""


class VectorStoreUnreadable(ArchivistError):
    """The stored vectors cannot be opened as they are (``archivist reindex`` rebuilds them)."""


class DiskFull(ArchivistError):
    """Not enough free disk space to write a document's vectors (nothing was written)."""


@dataclass
class VectorHit:
    """A raw hit: the child's payload and its score."""

    payload: dict[str, Any]
    score: float


QueryVectors = tuple["Sequence[float] | None", "SparseVector | None"]
"""One search's query vectors: dense and BM25 sparse (either may be absent)."""


class VectorStore(Protocol):
    """Child vectors of every collection in one library."""

    #: What opening the store did that the user should hear about (a migration, say).
    opening_notes: list[str]

    def exists(self, collection: str) -> bool:
        """Whether the collection has been created."""
        ...

    def dense_size(self, collection: str) -> int | None:
        """The dense vector size of an existing collection (``None`` if there is none)."""
        ...

    def ensure(self, collection: str, dimension: int) -> None:
        """Create the collection (named dense + IDF sparse vectors) if it is missing."""
        ...

    def upsert(
        self,
        collection: str,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int = UPSERT_BATCH,
    ) -> None:
        """Store children with both vectors; durable when this returns."""
        ...

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete every child of a document (a no-op when there is none)."""
        ...

    def drop(self, collection: str) -> None:
        """Delete a whole collection (``archivist reindex`` rebuilds it)."""
        ...

    def rename_document(self, collection: str, document_id: str, name: str) -> None:
        """Change the document name stored with every child of a document (a file rename)."""
        ...

    def document_ids(self, collection: str) -> set[str]:
        """Every document id that has vectors (for the consistency repair)."""
        ...

    def count(self, collection: str, document_id: str | None = None) -> int:
        """How many children are stored (for one document, or in all)."""
        ...

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
        ...

    def query_many(
        self,
        collection: str,
        mode: SearchMode,
        limit: int,
        queries: Sequence[QueryVectors],
        document_ids: list[str] | None = None,
        prefetch_limit: int = 40,
    ) -> list[list[VectorHit]]:
        """Several searches in one call (one result list per query, as ``query`` gives)."""
        ...

    def close(self) -> None:
        """Release files, locks and connections."""
        ...


def point_id(child_id: str) -> str:
    """A stable UUID for a child id (the same in both engines)."""
    return str(uuid.uuid5(_ID_NAMESPACE, child_id))


def child_payload(child: Child, document_name: str) -> dict[str, Any]:
    """What a stored child carries: enough to build a search hit without the catalog."""
    return {
        "child_id": child.child_id,
        "parent_id": child.parent_id,
        "document_id": child.document_id,
        "document_name": document_name,
        "text": child.text,
        "heading_path": child.heading_path,
        "page_start": child.page_start,
        "page_end": child.page_end,
        "kind": child.kind,
        **({} if child.sections is None else {"sections": child.sections}),
    }


def ranked(hits: Sequence[VectorHit]) -> list[VectorHit]:
    """Best first, equal scores in child id order.

    Every engine, and every run, then orders ties alike (Qdrant's fusion orders equal fused
    scores differently from one search to the next).
    """
    return sorted(hits, key=lambda hit: (-hit.score, str(hit.payload.get("child_id", ""))))


def rrf(lists: Sequence[Sequence[VectorHit]], limit: int) -> list[VectorHit]:
    """Reciprocal rank fusion, as Qdrant computes it: the sum of ``1 / (k + rank)``, rank from 0."""
    fused: dict[str, VectorHit] = {}
    for hits in lists:
        for rank, hit in enumerate(hits):
            key = str(hit.payload["child_id"])
            seen = fused.get(key)
            score = 1.0 / (RRF_K + rank)
            if seen is None:
                fused[key] = VectorHit(hit.payload, score)
            else:
                seen.score += score
    return ranked(list(fused.values()))[:limit]
