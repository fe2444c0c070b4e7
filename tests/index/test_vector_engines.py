"""Which engine a library's vectors go to: pgvector with PostgreSQL, else Qdrant."""

from __future__ import annotations

from pathlib import Path

import pytest

from archivist.application import Application
from archivist.index.edge_store import EdgeVectorStore
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.engines import open_vector_store, vector_engine
from archivist.index.pgvector_store import PgVectorStore
from archivist.settings import Settings
from archivist.types import ArchivistError

NOTES = [
    ("glaciers.md", "# Glaciers\n\nA glacier carved the deep valley over many centuries."),
    ("kettles.md", "# Tea\n\nThe kettle boils water; green tea steeps for three minutes."),
]


def test_two_workers_on_postgresql_share_one_library_in_pgvector(
    tmp_path: Path, postgres_url: str, embedder: SentenceTransformerEmbedder
) -> None:
    settings = Settings(data_dir=tmp_path / "one", storage={"database_url": postgres_url})
    first = Application(settings, embedder=embedder)
    second = Application(settings.model_copy(update={"data_dir": tmp_path / "two"}),
                         embedder=embedder)
    try:
        assert isinstance(first.store.vectors, PgVectorStore)
        first.ingest.texts(NOTES)
        hits = second.searcher.search("how long does green tea steep", k=1)
        assert [h.document_name for h in hits] == ["kettles.md"]
        assert second.searcher.search("glacier valley", k=1, mode="bm25")[0].document_name == (
            "glaciers.md"
        )
    finally:
        first.close()
        second.close()


def test_qdrant_can_still_be_chosen_with_postgresql(tmp_path: Path, postgres_url: str) -> None:
    settings = Settings(
        data_dir=tmp_path / "lib",
        storage={"database_url": postgres_url, "vector_engine": "qdrant"},
    )
    assert vector_engine(settings) == "qdrant-edge"
    assert vector_engine(Settings(
        data_dir=tmp_path,
        storage={"database_url": postgres_url, "qdrant_url": "http://qdrant:6333"},
    )) == "qdrant-server"
    assert vector_engine(Settings(data_dir=tmp_path)) == "qdrant-edge"
    store = open_vector_store(settings)
    try:
        assert isinstance(store, EdgeVectorStore)
    finally:
        store.close()


def test_pgvector_without_postgresql_is_one_clear_line(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, storage={"vector_engine": "pgvector"})
    with pytest.raises(ArchivistError) as caught:
        open_vector_store(settings)
    assert str(caught.value) == "storage.vector_engine: pgvector needs storage.database_url = postgresql://…"
