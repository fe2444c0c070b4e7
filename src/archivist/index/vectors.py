"""Qdrant: child chunks with a dense and a BM25 sparse vector; hybrid queries fused by RRF."""

from __future__ import annotations

import logging
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models

from archivist.index.sparse import SparseVector
from archivist.settings import SearchMode
from archivist.types import ArchivistError, Child

log = logging.getLogger(__name__)

# Reciprocal rank fusion constant: 1 / (k + rank). Qdrant's own default is small, which
# leans on each list's first few ranks; the classic k=60 measured better on SciFact
# (nDCG@10 0.723 vs 0.714, docs/benchmarks.md).
RRF_K = 60
DENSE = "dense"
SPARSE = "bm25"
_ID_NAMESPACE = uuid.UUID("6f1c1e9e-5a7e-4c55-9a43-6a7c0b1d2e3f")


@dataclass
class VectorHit:
    """A raw hit: the child's payload and its score."""

    payload: dict[str, Any]
    score: float


def open_client(url: str | None, path: Path, api_key: str | None = None) -> QdrantClient:
    """A Qdrant server by URL, else embedded Qdrant stored at ``path``."""
    if url:
        return QdrantClient(url=url, api_key=api_key)
    path.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            client = QdrantClient(path=str(path))
        for warning in caught:  # e.g. the embedded store's size advice: one log line
            log.warning("%s", str(warning.message).split(". Consider")[0])
        return client
    except RuntimeError as exc:
        if "already accessed" in str(exc):
            raise ArchivistError(
                f"the library in {path.parent} is in use by another Archivist process "
                "(embedded Qdrant allows one at a time; stop it, or run Qdrant as a server "
                "and set ARCHIVIST_QDRANT_URL)"
            ) from exc
        raise


def point_id(child_id: str) -> str:
    """A stable UUID for a child id."""
    return str(uuid.uuid5(_ID_NAMESPACE, child_id))


class VectorStore:
    """One Qdrant collection per Archivist collection."""

    def __init__(self, client: QdrantClient) -> None:
        self.client = client

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
        info = self.client.get_collection(self.name(collection))
        vectors = info.config.params.vectors
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
        )
        with warnings.catch_warnings():  # embedded Qdrant warns that it needs no index
            warnings.simplefilter("ignore", UserWarning)
            self.client.create_payload_index(name, "document_id", models.PayloadSchemaType.KEYWORD)

    def upsert(
        self,
        collection: str,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int = 256,
    ) -> None:
        """Store children with both vectors and a payload the search results are built from."""
        name = self.name(collection)
        for start in range(0, len(children), batch):
            points = [
                models.PointStruct(
                    id=point_id(child.child_id),
                    vector={
                        DENSE: list(vec),
                        SPARSE: models.SparseVector(indices=sp.indices, values=sp.values),
                    },
                    payload={
                        "child_id": child.child_id,
                        "parent_id": child.parent_id,
                        "document_id": child.document_id,
                        "document_name": document_name,
                        "text": child.text,
                        "heading_path": child.heading_path,
                        "page_start": child.page_start,
                        "page_end": child.page_end,
                    },
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

    def document_ids(self, collection: str) -> set[str]:
        """Every document id that has vectors (for consistency checks)."""
        if not self.exists(collection):
            return set()
        found: set[str] = set()
        offset = None
        while True:
            points, offset = self.client.scroll(
                self.name(collection),
                limit=1024,
                offset=offset,
                with_payload=["document_id"],
                with_vectors=False,
            )
            found.update(str(p.payload["document_id"]) for p in points if p.payload)
            if offset is None:
                return found

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
        if not self.exists(collection):
            return []
        flt = _document_filter(document_ids) if document_ids else None
        sparse_query = (
            models.SparseVector(indices=sparse.indices, values=sparse.values) if sparse else None
        )
        name = self.name(collection)
        if mode == "dense":
            response = self.client.query_points(
                name, query=list(dense or []), using=DENSE, query_filter=flt, limit=limit
            )
        elif mode == "bm25":
            if sparse_query is None or not sparse_query.indices:
                return []
            response = self.client.query_points(
                name, query=sparse_query, using=SPARSE, query_filter=flt, limit=limit
            )
        else:
            prefetch = [
                models.Prefetch(
                    query=list(dense or []),
                    using=DENSE,
                    filter=flt,
                    limit=max(prefetch_limit, limit),
                )
            ]
            if sparse_query is not None and sparse_query.indices:
                prefetch.append(
                    models.Prefetch(
                        query=sparse_query,
                        using=SPARSE,
                        filter=flt,
                        limit=max(prefetch_limit, limit),
                    )
                )
            response = self.client.query_points(
                name,
                prefetch=prefetch,
                query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
                limit=limit,
            )
        return [VectorHit(dict(p.payload or {}), float(p.score)) for p in response.points]


def _document_filter(document_ids: list[str]) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=document_ids))]
    )
