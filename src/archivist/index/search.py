"""Hybrid search over a document store: dense and BM25 sparse vectors fused with RRF.

:class:`SearchRequest` is the one search contract: the CLI, the HTTP API and MCP all
build it, with ``None`` standing for the ``search_k``/``search_mode`` settings and the
configured collection, and the same bounds everywhere.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from archivist.collection_names import COLLECTION_PATTERN
from archivist.filings.document import document_about
from archivist.filings.where import MAX_FILTERS, WHERE_HELP, filtered_ids, parse_where
from archivist.index.embeddings import Embedder, embed_queries
from archivist.index.hops import HopSearcher
from archivist.index.rerank import RerankerSlot, rerank_head
from archivist.index.retriever import Retriever
from archivist.index.store import DocumentStore
from archivist.index.table_sql import SqlResult, run_select
from archivist.index.table_store import StoredTable
from archivist.settings import (
    MAX_SEARCH_K,
    QUERY_MAX_CHARS,
    SEARCH_MODES_TEXT,
    SearchMode,
)
from archivist.types import DocumentRecord, Parent, SearchHit


class SearchRequest(BaseModel):
    """One search; every field left ``None`` takes its value from the settings."""

    model_config = ConfigDict(populate_by_name=True)

    query: str = Field(
        alias="q", min_length=1, max_length=QUERY_MAX_CHARS, description="What to look for."
    )
    k: int | None = Field(
        default=None, ge=1, le=MAX_SEARCH_K, description="How many hits (default: search_k)."
    )
    mode: SearchMode | None = Field(
        default=None, description=f"{SEARCH_MODES_TEXT} (default: search_mode)."
    )
    collection: str | None = Field(
        default=None, pattern=COLLECTION_PATTERN, description="Collection (default: configured)."
    )
    where: list[str] | None = Field(default=None, max_length=MAX_FILTERS, description=WHERE_HELP)

    @field_validator("where")
    @classmethod
    def _known_filters(cls, value: list[str] | None) -> list[str] | None:
        if value:
            parse_where(value)  # a ValueError names the bad filter
        return value or None


class HybridSearcher:
    """Searches the child chunks of a :class:`DocumentStore`, ready documents only."""

    def __init__(self, store: DocumentStore, reranker: RerankerSlot | None = None) -> None:
        self.store = store
        self.settings = store.settings
        self.reranker = reranker
        self.hops = HopSearcher(
            self._hybrid_many,
            store.catalog,
            store.graph_indexer,
            store.settings.index.multihop_searches,
            lexical=self._bm25_many,
        )

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: SearchMode | None = None,
        collection: str | None = None,
        document_ids: list[str] | None = None,
    ) -> list[SearchHit]:
        """The best ``k`` child chunks, best first, from ready documents only."""
        store = self.store
        name = store.collection_name(collection)
        mode = mode or self.settings.index.search_mode
        k = k or self.settings.index.search_k
        if not query.strip() or not store.vectors.exists(name):
            return []
        reranker = self.reranker.get() if self.reranker is not None else None
        depth = max(k, self.settings.index.rerank_depth) if reranker is not None else k
        if mode == "multihop":
            hits = self.hops.multihop(query, depth, name, document_ids)
        elif mode == "graph":
            hits = self.hops.graph_search(query, depth, name, document_ids)
        else:
            hits = self._search_many([query], depth, mode, name, document_ids)[0]
        if reranker is not None:
            hits = rerank_head(reranker, query, hits, self.settings.index.rerank_depth)
        return self._titled(hits[:k], name)

    def _titled(self, hits: list[SearchHit], collection: str) -> list[SearchHit]:
        """The hits with what their documents are, and their documents' titles.

        Each hit gets ``document_about``; a hit before any heading, its document's title.

        Their section is named after the document (``§ Greenhouse Handbook`` without
        pages), as a citation of the same section read in full is.
        """
        records = self.store.catalog.documents_by_id(collection, {h.document_id for h in hits})
        titled = []
        for hit in hits:
            record = records.get(hit.document_id)
            if record is None:
                titled.append(hit)
                continue
            title = hit.document_title if hit.location_path else record.title
            titled.append(replace(hit, document_title=title, document_about=document_about(record)))
        return titled

    def _search_many(
        self,
        queries: list[str],
        k: int,
        mode: SearchMode,
        name: str,
        document_ids: list[str] | None,
    ) -> list[list[SearchHit]]:
        """Plain searches of one mode: one embedding call and one engine call for all."""
        store = self.store
        if not queries or not store.vectors.exists(name):
            return [[] for _ in queries]
        store.check_model(name)
        dense: list[list[float] | None] = (
            list(embed_queries(store.embedder, queries))
            if mode != "bm25"
            else [None] * len(queries)
        )
        sparse = [store.bm25.encode_query(q) if mode != "dense" else None for q in queries]
        ready = store.catalog.ready_ids(name)
        results = store.vectors.query_many(
            name,
            mode,
            limit=k + 8,
            queries=list(zip(dense, sparse, strict=True)),
            document_ids=document_ids,
            prefetch_limit=max(self.settings.index.prefetch_k, k),
        )
        return [
            [_hit(h.payload, h.score) for h in raw if h.payload.get("document_id") in ready][:k]
            for raw in results
        ]

    def _hybrid_many(
        self, queries: list[str], k: int, collection: str, document_ids: Any
    ) -> list[list[SearchHit]]:
        return self._search_many(queries, k, "hybrid", collection, document_ids)

    def _bm25_many(
        self, queries: list[str], k: int, collection: str, document_ids: Any
    ) -> list[list[SearchHit]]:
        return self._search_many(queries, k, "bm25", collection, document_ids)

    def run(self, request: SearchRequest) -> list[SearchHit]:
        """The hits for a :class:`SearchRequest` (its ``None`` fields from the settings).

        With ``where`` filters, only documents whose filing metadata matches are searched
        (none matching: no hits).
        """
        ids = None
        if request.where:
            records = self.store.documents(request.collection)
            ids = filtered_ids(records, parse_where(request.where))
            if not ids:
                return []
        return self.search(request.query, request.k, request.mode, request.collection, ids)

    def retriever(self, collection: str | None = None) -> Retriever:
        """The agent's view of one collection."""
        return CollectionRetriever(self, self.store.collection_name(collection))


class CollectionRetriever:
    """``Retriever`` over one collection."""

    def __init__(self, searcher: HybridSearcher, collection: str) -> None:
        self.searcher = searcher
        self.collection = collection

    @property
    def embedder(self) -> Embedder:
        """The store's embedding model (the agent scores evidence with it too)."""
        return self.searcher.store.embedder

    def search(
        self,
        query: str,
        k: int = 5,
        mode: SearchMode | None = None,
        document_ids: list[str] | None = None,
    ) -> list[SearchHit]:
        """Search this collection."""
        return self.searcher.search(query, k, mode, self.collection, document_ids)

    def get_parent(self, parent_id: str) -> Parent | None:
        """A parent of this collection by id."""
        return self.searcher.store.get_parent(parent_id, self.collection)

    def get_document(self, document_id: str) -> DocumentRecord | None:
        """A document of this collection by id."""
        return self.searcher.store.get_document(document_id, self.collection)

    def tables(self, document_ids: set[str] | None = None) -> list[StoredTable]:
        """The stored tables of this collection's ready documents."""
        return self.searcher.store.tables_of(self.collection, document_ids)

    def documents(self) -> list[DocumentRecord]:
        """Every ready document of this collection."""
        return self.searcher.store.documents(self.collection)

    def parents_of(self, document_id: str) -> list[Parent]:
        """A ready document's parents in reading order (none for an unknown id)."""
        store = self.searcher.store
        if store.get_document(document_id, self.collection) is None:
            return []
        return store.parents_of(document_id, self.collection)

    def section_summaries(self, document_id: str, parents: list[Parent]) -> dict[str, str]:
        """The stored summaries of these parents whose text is unchanged."""
        return self.searcher.store.summaries.summaries(self.collection, document_id, parents)

    def save_section_summary(self, parent: Parent, summary: str) -> None:
        """Keep the model's summary of one parent of this collection."""
        self.searcher.store.summaries.save(self.collection, parent, summary)

    def query_tables(self, tables: list[StoredTable], sql: str) -> SqlResult:
        """One read-only SELECT over ``tables`` (see ``index/table_sql.py``)."""
        store = self.searcher.store
        rows = store.tables.rows(self.collection, [t.table_id for t in tables])
        return run_select(tables, rows, sql, row_limit=store.settings.agent.sql_row_limit,
                          seconds=store.settings.agent.sql_seconds)


def _hit(payload: dict[str, Any], score: float) -> SearchHit:
    """A search hit from a stored child's payload."""
    return SearchHit(
        child_id=payload["child_id"],
        parent_id=payload["parent_id"],
        document_id=payload["document_id"],
        document_name=payload.get("document_name", ""),
        text=payload.get("text", ""),
        heading_path=list(payload.get("heading_path") or []),
        page_start=payload.get("page_start"),
        page_end=payload.get("page_end"),
        score=score,
        sections=payload.get("sections"),
    )
