"""``[storage]``: where the library's tables and vectors live."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class StorageSettings(BaseModel):
    """The database and the vector engine (``[storage]``, ``ARCHIVIST_STORAGE__*``)."""

    model_config = ConfigDict(extra="forbid")

    database_url: str | None = Field(default=None, description="Every table of the library: "
                                     "empty = data_dir/archivist.sqlite; or postgresql://...")
    vector_engine: Literal["auto", "qdrant", "pgvector"] = Field(default="auto", description=(
        "auto: pgvector if database_url is PostgreSQL and qdrant_url empty, else Qdrant"))
    qdrant_url: str | None = Field(
        default=None, description="A Qdrant server; empty means embedded Qdrant Edge in data_dir."
    )
    qdrant_api_key: str | None = Field(default=None, description="The Qdrant server's API key.")

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("sqlite:///", "postgresql://", "postgresql+")):
            raise ValueError("use sqlite:///path/to/file or postgresql://user:pass@host/db")
        return value or None
