"""A Qdrant server (``qdrant_url``): the same collections and queries as the embedded engine.

One Qdrant collection ``archivist_<collection>`` per Archivist collection, with the same
named vectors (cosine dense, BM25 sparse with the IDF modifier), the same keyword index on
``document_id``, the same two prefetches fused by RRF k=60 and the same filters.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from qdrant_client import QdrantClient, models

from archivist.index.sparse import SparseVector
from archivist.index.vectors import (
    DENSE,
    GRAPH_THRESHOLD_KB,
    RRF_K,
    SEARCH_EF,
    SPARSE,
    UNSEARCHED_KINDS,
    UPSERT_BATCH,
    QueryVectors,
    VectorHit,
    child_payload,
    point_id,
    ranked,
)
from archivist.settings import SearchMode
from archivist.types import Child

# Facets return at most ``limit`` values; a collection never holds more documents than this.
_MAX_DOCUMENTS = 10_000_000


def connect(url: str, api_key: str | None = None) -> QdrantClient:
    """A client for the Qdrant server at ``url``."""
    return QdrantClient(url=url, api_key=api_key)


class QdrantServerStore:
    """``VectorStore`` on a ``QdrantClient`` (a server; tests also use ``":memory:"``)."""

    def __init__(self, client: QdrantClient) -> None:
        self.client = client
        self.opening_notes: list[str] = []

    @staticmethod
    def name(collection: str) -> str:
        """The Qdrant collection behind an Archivist collection."""
        return f"archivist_{collection}"

    def exists(self, collection: str) -> bool:
        """Whether the collection has been created."""
        return bool(self.client.collection_exists(self.name(collection)))

    def dense_size(self, collection: str) -> int | None:
        """The dense vector size of an existing collection."""
        if not self.exists(collection):
            return None
        vectors = self.client.get_collection(self.name(collection)).config.params.vectors
        if isinstance(vectors, dict) and DENSE in vectors:
            return int(vectors[DENSE].size)
        return None

    def ensure(self, collection: str, dimension: int) -> None:
        """Create the collection with named dense + sparse (IDF) vectors if missing."""
        if self.exists(collection):
            return
        name = self.name(collection)
        self.client.create_collection(
            name,
            vectors_config={
                DENSE: models.VectorParams(size=dimension, distance=models.Distance.COSINE)
            },
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            # the embedded engine's graph threshold: exact search below it, a graph above
            hnsw_config=models.HnswConfigDiff(full_scan_threshold=GRAPH_THRESHOLD_KB),
            optimizers_config=models.OptimizersConfigDiff(indexing_threshold=GRAPH_THRESHOLD_KB),
        )
        with warnings.catch_warnings():  # qdrant-client's local mode says it needs no index
            warnings.simplefilter("ignore", UserWarning)
            for field in ("document_id", "kind"):  # filtered by id; searches leave kinds out
                self.client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD)

    def drop(self, collection: str) -> None:
        """Delete a whole collection."""
        if self.exists(collection):
            self.client.delete_collection(self.name(collection))

    def upsert(
        self,
        collection: str,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int = UPSERT_BATCH,
    ) -> None:
        """Store children with both vectors; acknowledged by the server when this returns."""
        name = self.name(collection)
        for start in range(0, len(children), batch):
            points = [
                models.PointStruct(
                    id=point_id(child.child_id),
                    vector={
                        DENSE: [float(x) for x in vec],
                        SPARSE: models.SparseVector(indices=sp.indices, values=sp.values),
                    },
                    payload=child_payload(child, document_name),
                )
                for child, vec, sp in zip(
                    children[start : start + batch],
                    dense[start : start + batch],
                    sparse[start : start + batch],
                    strict=True,
                )
            ]
            self.client.upsert(name, points=points, wait=True)

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete every child of a document."""
        if not self.exists(collection):
            return
        self.client.delete(
            self.name(collection),
            points_selector=models.FilterSelector(filter=_document_filter([document_id])),
            wait=True,
        )

    def rename_document(self, collection: str, document_id: str, name: str) -> None:
        """Change the document name stored with every child of a document."""
        if not self.exists(collection):
            return
        self.client.set_payload(
            self.name(collection), payload={"document_name": name},
            points=models.FilterSelector(filter=_document_filter([document_id])), wait=True,
        )

    def document_ids(self, collection: str) -> set[str]:
        """Every document id that has vectors, from the keyword index."""
        if not self.exists(collection):
            return set()
        facets = self.client.facet(
            self.name(collection), "document_id", limit=_MAX_DOCUMENTS, exact=True
        )
        return {str(hit.value) for hit in facets.hits if hit.count > 0}

    def count(self, collection: str, document_id: str | None = None) -> int:
        """How many children are stored (for one document, or in all)."""
        if not self.exists(collection):
            return 0
        flt = _document_filter([document_id]) if document_id else None
        return int(self.client.count(self.name(collection), count_filter=flt, exact=True).count)

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
        """Several searches of one mode in one request (``query_batch_points``)."""
        if not self.exists(collection):
            return [[] for _ in queries]
        flt = _search_filter(document_ids)
        requests = [_request(mode, limit, d, s, flt, prefetch_limit) for d, s in queries]
        planned = [r for r in requests if r is not None]
        responses = iter(
            self.client.query_batch_points(self.name(collection), planned) if planned else []
        )
        return [
            ranked([VectorHit(dict(p.payload or {}), float(p.score))
                    for p in next(responses).points])
            if r is not None
            else []
            for r in requests
        ]

    def close(self) -> None:
        """Close the client."""
        self.client.close()


def _request(
    mode: SearchMode,
    limit: int,
    dense: Sequence[float] | None,
    sparse: SparseVector | None,
    flt: models.Filter,
    prefetch_limit: int,
) -> models.QueryRequest | None:
    """One search as the server takes it; ``None`` for BM25 without a known term."""
    dense_query = [float(x) for x in dense or []]
    graph = models.SearchParams(hnsw_ef=max(SEARCH_EF, limit, prefetch_limit))
    sparse_query = (
        models.SparseVector(indices=sparse.indices, values=sparse.values)
        if sparse is not None and sparse.indices
        else None
    )
    if mode == "dense":
        return models.QueryRequest(
            query=dense_query, using=DENSE, filter=flt, limit=limit, with_payload=True,
            params=graph,
        )
    if mode == "bm25":
        if sparse_query is None:
            return None
        return models.QueryRequest(
            query=sparse_query, using=SPARSE, filter=flt, limit=limit, with_payload=True
        )
    depth = max(prefetch_limit, limit)
    prefetch = [
        models.Prefetch(query=dense_query, using=DENSE, filter=flt, limit=depth, params=graph)
    ]
    if sparse_query is not None:
        prefetch.append(models.Prefetch(query=sparse_query, using=SPARSE, filter=flt, limit=depth))
    return models.QueryRequest(
        prefetch=prefetch,
        query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
        limit=limit,
        with_payload=True,
    )


def _search_filter(document_ids: list[str] | None) -> models.Filter:
    """Only the given documents (all when None), never a table of contents or an index."""
    return models.Filter(
        must=_document_filter(document_ids).must if document_ids else None,
        must_not=[
            models.FieldCondition(key="kind", match=models.MatchAny(any=list(UNSEARCHED_KINDS)))
        ],
    )


def _document_filter(document_ids: list[str]) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=document_ids))]
    )
