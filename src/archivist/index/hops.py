"""Search modes beyond one query: ``multihop`` (bridges in code) and ``graph`` (entity graph).

Both start from the hybrid search, which this module receives as a function, so it works
the same over whatever store the library uses. The entity graph is a derived index kept in
step with the catalog by document id: ``sync_graph`` extracts the phrases of ready
documents the graph lacks and drops those of documents that are gone. Ingest calls it for
the documents it wrote; a graph search calls it first, so a collection ingested before the
graph was switched on is filled in once, on first use.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Protocol

from archivist.index.graph import EntityGraph
from archivist.index.multihop import HOP1_WEIGHT, fuse, multihop_search
from archivist.index.phrases import SpacyPhraseExtractor
from archivist.types import Child, DocumentRecord, SearchHit

log = logging.getLogger(__name__)

HybridFn = Callable[[list[str], int, str, "list[str] | None"], list[list[SearchHit]]]
"""``hybrid(queries, k, collection, document_ids)``: one hit list per query (hybrid, or
BM25 for the ``lexical`` hop-2 searches)."""

_HEADING_LINE = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
GRAPH_WEIGHT = 1.0
GRAPH_SEED_PASSAGES = 5
"""Top hybrid passages that also seed the PageRank walk (HippoRAG 2's passage nodes)."""
PASSAGE_SEED_WEIGHT = 0.0


class CatalogView(Protocol):
    """What the graph needs from the catalog."""

    def ready_ids(self, collection: str) -> set[str]:
        """Searchable document ids."""
        ...

    def children_of(self, collection: str, document_id: str) -> list[Child]:
        """A document's children in reading order."""
        ...

    def document(self, collection: str, document_id: str) -> DocumentRecord | None:
        """A ready document by id."""
        ...


class GraphIndexer:
    """Keeps the entity graph in step with the catalog (see the module docstring)."""

    def __init__(self, graph: EntityGraph, catalog: CatalogView) -> None:
        self.graph = graph
        self.catalog = catalog
        self._extractor: SpacyPhraseExtractor | None = None

    @property
    def extractor(self) -> SpacyPhraseExtractor:
        """The spaCy pipeline, loaded on first use (raises ``ExtractorUnavailable``)."""
        if self._extractor is None:
            self._extractor = SpacyPhraseExtractor()
        return self._extractor

    def sync(self, collection: str, only: set[str] | None = None) -> int:
        """Add the phrases of ready documents the graph lacks, drop gone ones; returns added."""
        ready = self.catalog.ready_ids(collection)
        stored = self.graph.documents(collection)
        for gone in stored - ready:
            self.graph.delete_document(collection, gone)
        missing = sorted((ready - stored) & (only if only is not None else ready))
        if not missing:
            return 0
        started = time.perf_counter()
        for document_id in missing:
            children = self.catalog.children_of(collection, document_id)
            phrases = self.extractor.extract(_graph_text(c) for c in children)
            self.graph.add_document(
                collection,
                document_id,
                [(c.child_id, ks) for c, ks in zip(children, phrases, strict=True)],
                self.extractor.name,
            )
        log.info(
            "entity graph: %d documents of '%s' added in %.1f s",
            len(missing),
            collection,
            time.perf_counter() - started,
        )
        return len(missing)


class HopSearcher:
    """``multihop`` and ``graph`` searches over a hybrid search and the entity graph."""

    def __init__(
        self,
        hybrid: HybridFn,
        catalog: CatalogView,
        indexer: GraphIndexer,
        max_searches: int = 6,
        lexical: HybridFn | None = None,
    ) -> None:
        self.hybrid = hybrid
        self.lexical = lexical or hybrid
        self.catalog = catalog
        self.indexer = indexer
        self.graph = indexer.graph
        self.max_searches = max_searches

    def sync_graph(self, collection: str, only: set[str] | None = None) -> int:
        """See :meth:`GraphIndexer.sync`."""
        return self.indexer.sync(collection, only)

    # --- multihop ------------------------------------------------------------------------
    def multihop(
        self, query: str, k: int, collection: str, document_ids: list[str] | None
    ) -> list[SearchHit]:
        """Hop 1 (hybrid), bridges from its top passages, hop 2 (lexical) per bridge, fused."""
        hits, _ = multihop_search(
            query,
            k,
            lambda queries, depth: self.hybrid(queries, depth, collection, document_ids),
            self.max_searches,
            hop2_many=lambda queries, depth: self.lexical(queries, depth, collection, document_ids),
        )
        return hits

    # --- graph ---------------------------------------------------------------------------
    def graph_search(
        self, query: str, k: int, collection: str, document_ids: list[str] | None
    ) -> list[SearchHit]:
        """Personalized PageRank from the question's phrases, fused with hybrid search."""
        self.sync_graph(collection)
        depth = max(k, 20)
        hybrid = self.hybrid([query], depth, collection, document_ids)[0]
        seeds = self.graph.seeds(collection, query, self.indexer.extractor.names(query))
        allowed = self.catalog.ready_ids(collection)
        if document_ids is not None:
            allowed &= set(document_ids)
        passages: dict[str, float] = {}
        for hit in hybrid:
            if len(passages) >= GRAPH_SEED_PASSAGES:
                break
            passages.setdefault(hit.child_id, PASSAGE_SEED_WEIGHT / (len(passages) + 1))
        ranked = self.graph.rank(collection, seeds, allowed, depth, passages)
        graph_hits = self._hits(collection, ranked, hybrid)
        return fuse([(HOP1_WEIGHT, hybrid), (GRAPH_WEIGHT, graph_hits)], k)

    def _hits(
        self, collection: str, ranked: list[tuple[str, float]], known: list[SearchHit]
    ) -> list[SearchHit]:
        """Search hits for graph-ranked child ids (text and pages from the catalog)."""
        by_id = {h.child_id: h for h in known}
        wanted = {cid for cid, _ in ranked if cid not in by_id}
        documents = {cid.rsplit("-c", 1)[0] for cid in wanted}
        names: dict[str, str] = {}
        for document_id in documents:
            record = self.catalog.document(collection, document_id)
            if record is None:
                continue
            names[document_id] = record.name
            for child in self.catalog.children_of(collection, document_id):
                if child.child_id in wanted:
                    by_id[child.child_id] = _hit(child, record.name, 0.0)
        return [_with_score(by_id[cid], score) for cid, score in ranked if cid in by_id]


def _graph_text(child: Child) -> str:
    """What phrases are read from: the heading path (often the title), then the text."""
    head = "".join(f"{h}.\n" for h in child.heading_path)
    body = _HEADING_LINE.sub(r"\1.", child.text)
    return f"{head}\n{body}" if head else body


def _hit(child: Child, document_name: str, score: float) -> SearchHit:
    return SearchHit(
        child_id=child.child_id,
        parent_id=child.parent_id,
        document_id=child.document_id,
        document_name=document_name,
        text=child.text,
        heading_path=list(child.heading_path),
        page_start=child.page_start,
        page_end=child.page_end,
        score=score,
        sections=child.sections,
    )


def _with_score(hit: SearchHit, score: float) -> SearchHit:
    return SearchHit(**{**hit.__dict__, "score": score})
