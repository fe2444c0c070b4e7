"""Which vector engine a library opens: a Qdrant server by URL, else the embedded one.

Kept apart from :mod:`archivist.index.vectors` (the protocol both engines implement), so the
engines import the protocol and nothing imports back.
"""

from __future__ import annotations

from archivist.index.vectors import VectorStore
from archivist.settings import Settings


def open_vector_store(settings: Settings, *, migrate: bool = True) -> VectorStore:
    """A Qdrant server when ``qdrant_url`` is set, else the embedded engine in ``data_dir``.

    The embedded engine locks the library for this process, and a library made before it
    is migrated in place first (``migrate=False`` leaves that to ``archivist reindex``).
    """
    if settings.qdrant_url:
        from archivist.index.qdrant_store import QdrantServerStore, connect

        return QdrantServerStore(connect(settings.qdrant_url, settings.qdrant_api_key))
    from archivist.index.edge_store import DirectoryLock, EdgeVectorStore
    from archivist.index.migration import migrate_legacy_store

    data_dir = settings.data_dir
    lock = DirectoryLock(data_dir / "library.lock", str(data_dir))
    try:
        notes = migrate_legacy_store(data_dir, settings.vectors_path) if migrate else []
        store = EdgeVectorStore(settings.vectors_path, lock)
    except BaseException:
        lock.release()
        raise
    store.opening_notes = notes
    return store


def embedded_engine(settings: Settings) -> bool:
    """Whether ``settings`` open the embedded engine (one process per library at a time)."""
    return not settings.qdrant_url
