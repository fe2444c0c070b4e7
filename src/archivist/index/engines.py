"""Which vector engine a library opens: a Qdrant server, pgvector, or the embedded one.

Kept apart from :mod:`archivist.index.vectors` (the protocol both engines implement), so the
engines import the protocol and nothing imports back.
"""

from __future__ import annotations

from typing import Literal

from archivist.index.vectors import VectorStore
from archivist.settings import Settings
from archivist.types import ArchivistError

Engine = Literal["qdrant-server", "pgvector", "qdrant-edge"]


def uses_postgresql(settings: Settings) -> bool:
    """Whether ``database_url`` names a PostgreSQL database."""
    return str(settings.storage.database_url or "").startswith("postgres")


def vector_engine(settings: Settings) -> Engine:
    """The engine the settings choose.

    ``vector_engine = "auto"``: the Qdrant server of ``qdrant_url`` if set, else pgvector
    when ``database_url`` is PostgreSQL, else embedded Qdrant Edge; ``"qdrant"``: the
    server or the embedded engine; ``"pgvector"``: PostgreSQL, which must be there.
    """
    storage = settings.storage
    if storage.vector_engine == "pgvector" and not uses_postgresql(settings):
        raise ArchivistError("storage.vector_engine: pgvector needs "
                             "storage.database_url = postgresql://…")
    if storage.vector_engine == "pgvector" or (
        storage.vector_engine == "auto" and not storage.qdrant_url and uses_postgresql(settings)
    ):
        return "pgvector"
    return "qdrant-server" if storage.qdrant_url else "qdrant-edge"


def open_vector_store(settings: Settings, *, migrate: bool = True) -> VectorStore:
    """The engine :func:`vector_engine` chooses.

    pgvector and a Qdrant server are shared by every worker. The embedded engine locks the
    library for this process, and a library made before it is migrated in place first
    (``migrate=False`` leaves that to ``archivist reindex``).
    """
    engine = vector_engine(settings)
    if engine == "pgvector":
        from archivist.index.pgvector_store import PgVectorStore

        assert settings.storage.database_url is not None  # the settings check it
        return PgVectorStore(settings.storage.database_url)
    if engine == "qdrant-server":
        assert settings.storage.qdrant_url is not None
        from archivist.index.qdrant_store import QdrantServerStore, connect

        return QdrantServerStore(connect(settings.storage.qdrant_url,
                                         settings.storage.qdrant_api_key))
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

