"""The facade every interface talks to: one data directory, its collections, search, ask."""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archivist.documents.ingest import Ingestor, ProgressCallback
from archivist.index.catalog import Catalog
from archivist.index.embeddings import Embedder, SentenceTransformerEmbedder
from archivist.index.sparse import BM25Encoder
from archivist.index.vectors import VectorStore, open_vector_store
from archivist.settings import SearchMode, Settings
from archivist.types import (
    AmbiguousDocument,
    Child,
    DocumentRecord,
    IndexMismatch,
    IngestReport,
    Parent,
    SearchHit,
    UnknownDocument,
)

if TYPE_CHECKING:
    from archivist.index.retriever import Retriever

log = logging.getLogger(__name__)


class Library:
    """A library in ``settings.data_dir``. Open it, use it, ``close()`` it (or use ``with``)."""

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        vectors: VectorStore | None = None,
    ) -> None:
        self.settings = settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.vectors = vectors or open_vector_store(settings)
        try:
            self.catalog = Catalog(settings.catalog_path)
        except BaseException:
            self.vectors.close()
            raise
        self.bm25 = BM25Encoder(settings.bm25_language)
        self._embedder = embedder
        self._write_lock = threading.RLock()
        self._extensions: dict[str, Any] = {}
        try:
            self.repairs = self._repair()
        except BaseException:
            self.close()
            raise

    # --- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the catalog, Qdrant and anything the agent opened."""
        for extension in self._extensions.values():
            closer = getattr(extension, "close", None)
            if closer:
                closer()
        self._extensions.clear()
        self.vectors.close()
        self.catalog.close()

    def extension(self, name: str, factory: Any) -> Any:
        """A per-library singleton (the agent service, for one) made on first use."""
        with self._write_lock:
            if name not in self._extensions:
                self._extensions[name] = factory(self)
            return self._extensions[name]

    @property
    def embedder(self) -> Embedder:
        """The dense model, loaded on first use (listing and removing never load it)."""
        if self._embedder is None:
            self._embedder = SentenceTransformerEmbedder(
                self.settings.embedding_model, self.settings.embedding_batch_size
            )
        return self._embedder

    def _collection(self, collection: str | None) -> str:
        return collection or self.settings.collection

    # --- consistency -------------------------------------------------------------------
    def _repair(self) -> list[str]:
        """Make catalog, parents and vectors agree after any interruption."""
        repairs: list[str] = list(self.vectors.opening_notes)
        for record in self.catalog.unfinished():
            self.purge(record.collection, record.document_id)
            repairs.append(
                f"removed unfinished {record.status} document {record.name} ({record.document_id})"
            )
        for collection in self.catalog.collections():
            ready = {d.document_id: d for d in self.catalog.documents(collection)}
            stored = self.vectors.document_ids(collection)
            for orphan in stored - set(ready):
                self.vectors.delete_document(collection, orphan)
                repairs.append(f"deleted vectors of unknown document {orphan}")
            for missing in set(ready) - stored:
                self.purge(collection, missing)
                repairs.append(
                    f"dropped {ready[missing].name}: its vectors were lost; ingest it again"
                )
        for line in repairs:
            log.warning("library repair: %s", line)
        return repairs

    def purge(self, collection: str, document_id: str) -> None:
        """Delete a document's vectors, then its rows (safe to repeat)."""
        with self._write_lock:
            self.vectors.delete_document(collection, document_id)
            self.catalog.delete_document(collection, document_id)

    def prepare_collection(self, collection: str) -> None:
        """Create a collection for this library's embedding model, or check it matches."""
        model = self.settings.embedding_model
        known = self.catalog.collection_model(collection)
        if known is not None and known[0] != model:
            raise IndexMismatch(
                f"collection '{collection}' was built with embedding model '{known[0]}' "
                f"({known[1]} dimensions), but the library is set to '{model}'. "
                f"Use --collection with a new name for the new model, or set "
                f"ARCHIVIST_EMBEDDING_MODEL={known[0]}."
            )
        # A known collection's size comes from the catalog: no model load for a no-op ingest.
        dimension = known[1] if known is not None else self.embedder.dimension
        stored = self.vectors.dense_size(collection)
        if stored is not None and stored != dimension:
            raise IndexMismatch(
                f"collection '{collection}' holds {stored}-dimension vectors; "
                f"'{model}' makes {dimension}. Use a new collection for this model."
            )
        self.catalog.register_collection(collection, model, dimension)
        self.vectors.ensure(collection, dimension)

    # --- documents ---------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path | str],
        collection: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest files and folders; see ``IngestReport`` for each file's outcome."""
        name = self._collection(collection)
        with self._write_lock:
            self.prepare_collection(name)
            return Ingestor(self, name).run([Path(p) for p in paths], progress)

    def ingest_texts(
        self,
        items: Iterable[tuple[str, str]],
        collection: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest ``(name, markdown)`` pairs (benchmarks, evaluation corpora, the API)."""
        name = self._collection(collection)
        with self._write_lock:
            self.prepare_collection(name)
            return Ingestor(self, name).run_texts(items, progress)

    def list(self, collection: str | None = None) -> builtins.list[DocumentRecord]:
        """Every searchable document in a collection."""
        return self.catalog.documents(self._collection(collection))

    def collections(self) -> builtins.list[str]:
        """Every collection in this data directory."""
        return self.catalog.collections()

    def resolve(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """A document by id prefix, file name or path."""
        docs = self.list(collection)
        matches = [d for d in docs if d.document_id == ref]
        if not matches:
            matches = [d for d in docs if d.name == ref or d.path == ref]
        if not matches and len(ref) >= 4:
            matches = [d for d in docs if d.document_id.startswith(ref)]
        if not matches:
            raise UnknownDocument(f"no document matches '{ref}' (use an id prefix or a file name)")
        if len(matches) > 1:
            names = ", ".join(f"{d.name} ({d.document_id[:8]})" for d in matches)
            raise AmbiguousDocument(f"'{ref}' matches several documents: {names}")
        return matches[0]

    def remove(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """Delete a document's vectors, parents, children and catalog row."""
        name = self._collection(collection)
        record = self.resolve(ref, name)
        with self._write_lock:
            self.catalog.set_status(name, {record.document_id: "removing"})
            self.purge(name, record.document_id)
        return record

    def parents_of(self, document_id: str, collection: str | None = None) -> builtins.list[Parent]:
        """A document's parents in reading order."""
        return self.catalog.parents_of(self._collection(collection), document_id)

    def children_of(self, document_id: str, collection: str | None = None) -> builtins.list[Child]:
        """A document's children in reading order."""
        return self.catalog.children_of(self._collection(collection), document_id)

    def get_parent(self, parent_id: str, collection: str | None = None) -> Parent | None:
        """A parent by id, only if its document is in the catalog."""
        return self.catalog.parent(self._collection(collection), parent_id)

    def get_document(
        self, document_id: str, collection: str | None = None
    ) -> DocumentRecord | None:
        """A ready document by exact id."""
        return self.catalog.document(self._collection(collection), document_id)

    # --- search ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int | None = None,
        mode: SearchMode | None = None,
        collection: str | None = None,
        document_ids: builtins.list[str] | None = None,
    ) -> builtins.list[SearchHit]:
        """The best ``k`` child chunks, best first, from ready documents only."""
        name = self._collection(collection)
        mode = mode or self.settings.search_mode
        k = k or self.settings.search_k
        if not query.strip() or not self.vectors.exists(name):
            return []
        known = self.catalog.collection_model(name)
        if known is not None and known[0] != self.settings.embedding_model:
            self.prepare_collection(name)  # raises IndexMismatch with the full story
        dense = self.embedder.embed_query(query) if mode != "bm25" else None
        sparse = self.bm25.encode_query(query) if mode != "dense" else None
        ready = self.catalog.ready_ids(name)
        raw = self.vectors.query(
            name,
            mode,
            limit=k + 8,
            dense=dense,
            sparse=sparse,
            document_ids=document_ids,
            prefetch_limit=max(self.settings.prefetch_k, k),
        )
        hits = [
            SearchHit(
                child_id=h.payload["child_id"],
                parent_id=h.payload["parent_id"],
                document_id=h.payload["document_id"],
                document_name=h.payload.get("document_name", ""),
                text=h.payload.get("text", ""),
                heading_path=list(h.payload.get("heading_path") or []),
                page_start=h.payload.get("page_start"),
                page_end=h.payload.get("page_end"),
                score=h.score,
            )
            for h in raw
            if h.payload.get("document_id") in ready
        ]
        return hits[:k]

    def retriever(self, collection: str | None = None) -> Retriever:
        """The agent's view of one collection."""
        return CollectionRetriever(self, self._collection(collection))


class CollectionRetriever:
    """``Retriever`` over one collection of a library."""

    def __init__(self, library: Library, collection: str) -> None:
        self.library = library
        self.collection = collection

    def search(
        self,
        query: str,
        k: int = 5,
        mode: SearchMode | None = None,
        document_ids: list[str] | None = None,
    ) -> list[SearchHit]:
        """Search this collection."""
        return self.library.search(query, k, mode, self.collection, document_ids)

    def get_parent(self, parent_id: str) -> Parent | None:
        """A parent of this collection by id."""
        return self.library.get_parent(parent_id, self.collection)

    def get_document(self, document_id: str) -> DocumentRecord | None:
        """A document of this collection by id."""
        return self.library.get_document(document_id, self.collection)


def open_library(settings: Settings | None = None, **overrides: Any) -> Library:
    """Open the library the settings point at."""
    from archivist.settings import load_settings

    return Library(settings or load_settings(**overrides))
