"""One database for all of a library's state: SQLite embedded, PostgreSQL shared."""

from archivist.storage.database import (
    Database,
    DatabaseError,
    database_file,
    default_url,
    is_embedded,
    open_database,
    redacted,
)

__all__ = ["Database", "DatabaseError", "database_file", "default_url", "is_embedded",
           "open_database", "redacted"]
