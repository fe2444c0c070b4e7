"""The document store: catalog, parents, children and vectors kept in agreement.

A document is written ``pending`` (catalog rows, then vectors), then marked ``ready``; a
removal marks it ``removing`` and then purges it. Opening a store repairs whatever an
interruption left behind, so readers only ever see whole, ready documents.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

from archivist.collection_names import check_collection_name
from archivist.index.catalog import Catalog
from archivist.index.embeddings import Embedder, make_embedder
from archivist.index.engines import open_vector_store
from archivist.index.graph import EntityGraph
from archivist.index.hops import GraphIndexer
from archivist.index.sparse import BM25Encoder, SparseVector
from archivist.index.summaries import SummaryStore
from archivist.index.table_store import StoredTable, TableStore
from archivist.index.vectors import VectorStore
from archivist.settings import Settings
from archivist.storage import Database
from archivist.types import (
    AmbiguousDocument,
    Child,
    DataTable,
    DocumentRecord,
    IndexMismatch,
    Parent,
    UnknownDocument,
)

log = logging.getLogger(__name__)

STALE_UNFINISHED_S = 3600.0
"""On a shared database, a document left pending or removing this long was abandoned."""


def _stale(added_at: str) -> bool:
    """Whether a document written at ``added_at`` (ISO time) is older than the limit."""
    try:
        written = datetime.fromisoformat(added_at)
    except ValueError:
        return True
    if written.tzinfo is None:
        written = written.replace(tzinfo=UTC)
    return (datetime.now(UTC) - written).total_seconds() > STALE_UNFINISHED_S


class DocumentStore:
    """The stored documents of a library: catalog rows in ``database``, vectors in the engine.

    Open it, use it, ``close()`` it (the database is the caller's and stays open).
    """

    def __init__(
        self,
        settings: Settings,
        database: Database,
        *,
        embedder: Embedder | None = None,
        vectors: VectorStore | None = None,
    ) -> None:
        self.settings = settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.vectors = vectors or open_vector_store(settings)
        self.database = database
        self.catalog = Catalog(database)
        self.bm25 = BM25Encoder(settings.index.bm25_language)
        self.graph = EntityGraph(database)
        self.graph_indexer = GraphIndexer(self.graph, self.catalog)
        self.tables = TableStore(database)
        self.summaries = SummaryStore(database)
        self._embedder = embedder
        self.write_lock = threading.RLock()
        try:
            self.repairs = self._repair()
        except BaseException:
            self.close()
            raise

    # --- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> DocumentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the catalog, the entity graph and the vector engine."""
        self.vectors.close()
        self.graph.close()
        self.catalog.close()

    @property
    def embedder(self) -> Embedder:
        """The dense model, loaded on first use (listing and removing never load it)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    def collection_name(self, collection: str | None) -> str:
        """``collection`` (checked against the one naming rule), or the configured one."""
        return check_collection_name(collection) if collection else self.settings.collection

    # --- consistency -------------------------------------------------------------------
    def _repair(self) -> list[str]:
        """Make catalog, parents and vectors agree after any interruption.

        On a shared database other workers may be writing documents right now: only
        unfinished documents older than :data:`STALE_UNFINISHED_S` are purged (a job a dead
        worker left is written again by the worker that takes it over), and only vectors of
        documents the catalog does not know at all are deleted.
        """
        repairs: list[str] = list(self.vectors.opening_notes)
        shared = not self.database.embedded
        for record in self.catalog.unfinished():
            if shared and not _stale(record.added_at):
                continue
            self.purge(record.collection, record.document_id)
            repairs.append(
                f"removed unfinished {record.status} document {record.name} ({record.document_id})"
            )
        for collection in self.catalog.collections():
            ready = {d.document_id: d for d in self.catalog.documents(collection)}
            known = set(ready)
            if shared:
                known |= {d.document_id for d in self.catalog.documents(collection, None)}
            stored = self.vectors.document_ids(collection)
            for orphan in stored - known:
                self.vectors.delete_document(collection, orphan)
                repairs.append(f"deleted vectors of unknown document {orphan}")
            for orphan in self.tables.document_ids(collection) - known:
                self.tables.delete_document(collection, orphan)
                repairs.append(f"deleted tables of unknown document {orphan}")
            for orphan in self.summaries.document_ids(collection) - known:
                self.summaries.delete_document(collection, orphan)
                repairs.append(f"deleted section summaries of unknown document {orphan}")
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
        with self.write_lock:
            self.vectors.delete_document(collection, document_id)
            self.graph.delete_document(collection, document_id)
            self.tables.delete_document(collection, document_id)
            self.summaries.delete_document(collection, document_id)
            self.catalog.delete_document(collection, document_id)

    def prepare_collection(self, collection: str) -> None:
        """Create a collection for this store's embedding model, or check it matches."""
        model = self.settings.index.embedding_model
        known = self.catalog.collection_model(collection)
        if known is not None and known[0] != model:
            raise IndexMismatch(
                f"collection '{collection}' was built with embedding model '{known[0]}' "
                f"({known[1]} dimensions), but the library is set to '{model}'. "
                f"Use --collection with a new name for the new model, or set "
                f"ARCHIVIST_INDEX__EMBEDDING_MODEL={known[0]}."
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

    def check_model(self, collection: str) -> None:
        """Raise :class:`IndexMismatch` when a collection was built with another model."""
        known = self.catalog.collection_model(collection)
        if known is not None and known[0] != self.settings.index.embedding_model:
            self.prepare_collection(collection)  # raises IndexMismatch with the full story

    # --- writing -----------------------------------------------------------------------
    def add_pending(
        self,
        record: DocumentRecord,
        parents: list[Parent],
        children: list[Child],
        dense: list[list[float]],
        sparse: list[SparseVector],
        tables: list[DataTable] | None = None,
    ) -> None:
        """Write a document ``pending``: its rows in one transaction, its tables, its vectors."""
        self.catalog.add_pending(record, parents, children)
        if tables:
            self.tables.add(record.collection, record.document_id, tables)
        self.vectors.upsert(record.collection, children, dense, sparse, record.name)

    def mark_ready(
        self, collection: str, document_id: str, replaces: list[DocumentRecord]
    ) -> None:
        """Make a pending document searchable and purge the versions it replaces."""
        changes = {document_id: "ready"}
        changes.update({old.document_id: "removing" for old in replaces})
        self.catalog.set_status(collection, changes)
        for old in replaces:
            self.purge(collection, old.document_id)

    def remove(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """Delete a document's vectors, parents, children and catalog row."""
        name = self.collection_name(collection)
        record = self.resolve(ref, name)
        with self.write_lock:
            self.catalog.set_status(name, {record.document_id: "removing"})
            self.purge(name, record.document_id)
        return record

    def move(self, document_id: str, path: str, collection: str | None = None) -> None:
        """Record that a document's file was renamed or moved (nothing is re-embedded)."""
        name = self.collection_name(collection)
        file_name = path.replace("\\", "/").rsplit("/", 1)[-1]
        with self.write_lock:
            self.vectors.rename_document(name, document_id, file_name)
            self.catalog.move_document(name, document_id, path, file_name)

    # --- reading -----------------------------------------------------------------------
    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        """Every searchable document in a collection."""
        return self.catalog.documents(self.collection_name(collection))

    def collections(self) -> list[str]:
        """Every collection in this data directory."""
        return self.catalog.collections()

    def resolve(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """A document by id prefix, file name or path."""
        docs = self.documents(collection)
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

    def parents_of(self, document_id: str, collection: str | None = None) -> list[Parent]:
        """A document's parents in reading order."""
        return self.catalog.parents_of(self.collection_name(collection), document_id)

    def children_of(self, document_id: str, collection: str | None = None) -> list[Child]:
        """A document's children in reading order."""
        return self.catalog.children_of(self.collection_name(collection), document_id)

    def tables_of(self, collection: str | None = None,
                  document_ids: set[str] | None = None) -> list[StoredTable]:
        """The stored tables of ready documents (all of the collection, or of these)."""
        name = self.collection_name(collection)
        ready = self.catalog.ready_ids(name)
        return self.tables.tables(name, ready if document_ids is None else ready & document_ids)

    def get_parent(self, parent_id: str, collection: str | None = None) -> Parent | None:
        """A parent by id, only if its document is in the catalog."""
        return self.catalog.parent(self.collection_name(collection), parent_id)

    def get_document(
        self, document_id: str, collection: str | None = None
    ) -> DocumentRecord | None:
        """A ready document by exact id."""
        return self.catalog.document(self.collection_name(collection), document_id)
