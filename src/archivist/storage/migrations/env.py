"""Alembic's entry point: runs the revisions on the connection the database hands it."""

from __future__ import annotations

from alembic import context

from archivist.storage.schema import metadata

VERSION_TABLE = "archivist_schema_version"

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters by copying a table
)
with context.begin_transaction():
    context.run_migrations()
