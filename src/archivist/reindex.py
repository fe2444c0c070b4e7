"""``archivist reindex``: rebuild every collection's vectors from the catalog.

The catalog (in the library's database) keeps each ready document's children, so the vectors
can always be made again: dense by the collection's own embedding model, sparse by BM25. The
new store is built beside the old one and swapped in only when every document's children are
all there, so an interrupted reindex leaves the library as it was. A library made before the
embedded Qdrant Edge engine keeps its old store as a backup, no longer read.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from archivist.contextualize import ContextCache, context_key, contextual_text
from archivist.documents.chunked import embedding_text
from archivist.index.catalog import Catalog
from archivist.index.edge_store import DirectoryLock, EdgeVectorStore
from archivist.index.embeddings import Embedder
from archivist.index.engines import vector_engine
from archivist.index.migration import recover_interrupted_swap, staging_path, swap_in_staged
from archivist.index.sparse import BM25Encoder
from archivist.settings import Settings
from archivist.storage import database_file, open_database
from archivist.storage.legacy import legacy_files
from archivist.types import ArchivistError, DocumentRecord

log = logging.getLogger(__name__)

# Children embedded together (one model call): large enough to keep the model busy.
_CHILDREN_PER_BATCH = 512

ReindexProgress = Callable[[str, int, int], None]  # collection, documents done, total


@dataclass
class ReindexReport:
    """What a reindex rebuilt: documents and children per collection."""

    documents: dict[str, int] = field(default_factory=dict)
    children: dict[str, int] = field(default_factory=dict)
    backup: Path | None = None


def reindex(
    settings: Settings,
    embedder_for: Callable[[str], Embedder],
    progress: ReindexProgress | None = None,
) -> ReindexReport:
    """Rebuild the embedded vectors of every collection; ``embedder_for(model_name)``."""
    engine = vector_engine(settings)
    if engine == "qdrant-server":
        raise ArchivistError(
            "reindex rebuilds the embedded vector store; with a Qdrant server "
            "(ARCHIVIST_STORAGE__QDRANT_URL), delete its archivist_* collections and ingest again"
        )
    if engine == "pgvector":
        raise ArchivistError(
            "reindex rebuilds the embedded vector store; with pgvector (vector_engine, "
            "database_url), remove the documents and ingest them again"
        )
    data_dir = settings.data_dir
    if settings.storage.database_url is None and not (
        database_file(data_dir).is_file() or legacy_files(data_dir)
    ):
        raise ArchivistError(f"no library in {data_dir} (no {database_file(data_dir).name})")
    lock = DirectoryLock(data_dir / "library.lock", str(data_dir))
    staging = staging_path(data_dir)
    try:
        recover_interrupted_swap(data_dir, settings.vectors_path)
        try:
            report = _build(settings, staging, lock, embedder_for, progress)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)  # the library stays as it was
            raise
        report.backup = swap_in_staged(data_dir, settings.vectors_path)
        return report
    finally:
        lock.release()


def _build(
    settings: Settings,
    staging: Path,
    lock: DirectoryLock,
    embedder_for: Callable[[str], Embedder],
    progress: ReindexProgress | None,
) -> ReindexReport:
    if staging.exists():
        shutil.rmtree(staging)
    database = open_database(settings.storage.database_url, settings.data_dir)
    catalog = Catalog(database)
    store = EdgeVectorStore(staging, lock)
    # With contextualize = llm, each child's cached context sentence leads its text again
    # (the model is not asked: a child without one is indexed without it).
    contexts = ContextCache(database) if settings.index.contextualize == "llm" else None
    try:
        bm25 = BM25Encoder(settings.index.bm25_language)
        return _rebuild(catalog, store, bm25, embedder_for, progress, contexts)
    finally:
        store.close_shards()
        database.close()


def _rebuild(
    catalog: Catalog,
    store: EdgeVectorStore,
    bm25: BM25Encoder,
    embedder_for: Callable[[str], Embedder],
    progress: ReindexProgress | None,
    contexts: ContextCache | None = None,
) -> ReindexReport:
    report = ReindexReport()
    for collection in catalog.collections():
        known = catalog.collection_model(collection)
        if known is None:
            continue
        model, dimension = known
        embedder = embedder_for(model)
        if embedder.dimension != dimension:
            raise ArchivistError(
                f"collection '{collection}' was built with '{model}' ({dimension} dimensions) "
                f"but that model now makes {embedder.dimension}"
            )
        store.ensure(collection, dimension)
        documents = catalog.documents(collection)
        pending: list[DocumentRecord] = []
        size = 0
        for done, record in enumerate(documents, start=1):
            pending.append(record)
            size += record.child_count
            if size >= _CHILDREN_PER_BATCH or done == len(documents):
                _write(catalog, store, bm25, embedder, collection, pending, contexts)
                pending, size = [], 0
            if progress:
                progress(collection, done, len(documents))
        expected = sum(d.child_count for d in documents)
        stored = store.count(collection)
        if stored != expected:
            raise ArchivistError(
                f"reindex of '{collection}' stored {stored} of {expected} chunks; nothing changed"
            )
        report.documents[collection] = len(documents)
        report.children[collection] = stored
    return report


def _write(
    catalog: Catalog,
    store: EdgeVectorStore,
    bm25: BM25Encoder,
    embedder: Embedder,
    collection: str,
    records: list[DocumentRecord],
    contexts: ContextCache | None = None,
) -> None:
    batches = [(r, catalog.children_of(collection, r.document_id)) for r in records]
    texts: list[str] = []
    for record, children in batches:
        # The loader's title as ingest used it; a catalog from before titles were kept
        # has none, and the file name stands in for it.
        indexed = [embedding_text(c, record.title or Path(record.name).stem) for c in children]
        if contexts is not None:
            sections = {
                p.parent_id: p.text for p in catalog.parents_of(collection, record.document_id)
            }
            keys = [
                context_key(record.title, sections.get(c.parent_id, ""), c.text) for c in children
            ]
            found = contexts.get_many(keys)
            indexed = [
                contextual_text(t, found.get(k, "")) for t, k in zip(indexed, keys, strict=True)
            ]
        texts.extend(indexed)
    dense = embedder.embed_documents(texts) if texts else []
    sparse = [bm25.encode_document(t) for t in texts]
    offset = 0
    for record, children in batches:
        n = len(children)
        store.upsert(
            collection,
            children,
            dense[offset : offset + n],
            sparse[offset : offset + n],
            record.name,
        )
        offset += n
