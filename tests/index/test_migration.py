"""Libraries made by the old engine are migrated in place; `archivist reindex` rebuilds any."""

from __future__ import annotations

from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from tests.index.corpus import write_corpus
from tests.index.test_consistency import assert_consistent
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.index.edge_store import EdgeVectorStore
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.qdrant_store import QdrantServerStore
from archivist.index.vectors import LibraryInUse, VectorStoreUnreadable
from archivist.reindex import reindex
from archivist.settings import Settings

QUERIES = ["XK-4471", "which planet is the largest", "how long to knead bread dough"]


def make_legacy_library(
    settings: Settings, embedder: SentenceTransformerEmbedder, docs: Path
) -> dict[str, list[str]]:
    """A library as the previous release wrote it: qdrant-client's local mode in qdrant/."""
    client = QdrantClient(path=str(settings.data_dir / "qdrant"))
    library = Application(settings, embedder=embedder, vectors=QdrantServerStore(client))
    try:
        assert library.ingest.files([docs]).counts["added"] == 4
        return {q: [h.child_id for h in library.searcher.search(q, k=5)] for q in QUERIES}
    finally:
        library.close()


def test_old_library_is_migrated_in_place_on_first_open(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    before = make_legacy_library(settings, embedder, write_corpus(tmp_path / "docs"))
    library = Application(settings, embedder=embedder)
    try:
        assert isinstance(library.store.vectors, EdgeVectorStore)
        repairs = library.store.repairs
        assert any(line.startswith("migrated ") for line in repairs), repairs
        assert len(library.store.documents()) == 4
        assert_consistent(library)
        assert {q: [h.child_id for h in library.searcher.search(q, k=5)] for q in QUERIES} == before
    finally:
        library.close()
    assert not (settings.data_dir / "qdrant").exists()
    assert (settings.data_dir / "qdrant.pre-edge").is_dir()  # kept, not deleted
    reopened = Application(settings, embedder=embedder)
    try:
        assert reopened.store.repairs == [] and len(reopened.store.documents()) == 4
    finally:
        reopened.close()


def test_unreadable_old_store_refuses_with_reindex_then_reindex_rebuilds(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    settings = Settings(data_dir=tmp_path / "lib")
    before = make_legacy_library(settings, embedder, write_corpus(tmp_path / "docs"))
    storage = settings.data_dir / "qdrant" / "collection" / "archivist_default" / "storage.sqlite"
    assert storage.is_file()
    storage.write_bytes(b"not a database" * 100)

    with pytest.raises(VectorStoreUnreadable, match="archivist reindex"):
        Application(settings, embedder=embedder)
    assert (settings.data_dir / "qdrant").is_dir()  # nothing was deleted
    assert not (settings.data_dir / "vectors.staging").exists()

    result = CliRunner().invoke(app, ["reindex", "--data-dir", str(settings.data_dir)])
    assert result.exit_code == 0, result.output
    assert "reindexed default: 4 documents" in result.output
    assert "qdrant.pre-edge" in result.output

    library = Application(settings, embedder=embedder)
    try:
        assert library.store.repairs == []
        assert_consistent(library)
        hits = library.searcher.search("XK-4471", k=5)
        assert hits[0].document_name == "errors.md"
        # the same chunks come back for every query (re-embedded, so ranks may shift)
        for query, ids in before.items():
            assert {h.child_id for h in library.searcher.search(query, k=5)} & set(ids)
    finally:
        library.close()


def test_interrupted_reindex_leaves_the_library_as_it_was(
    library: Application, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.ingest.files([write_corpus(tmp_path / "docs")])
    expected = [h.child_id for h in library.searcher.search("XK-4471", k=3)]
    settings, embedder = library.settings, library.store.embedder
    library.close()
    calls = {"n": 0}
    real_upsert = EdgeVectorStore.upsert

    def upsert_then_fail(self: EdgeVectorStore, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        real_upsert(self, *args, **kwargs)

    monkeypatch.setattr(EdgeVectorStore, "upsert", upsert_then_fail)
    monkeypatch.setattr("archivist.reindex._CHILDREN_PER_BATCH", 1)
    with pytest.raises(OSError, match="disk full"):
        reindex(settings, lambda _model: embedder)
    monkeypatch.setattr(EdgeVectorStore, "upsert", real_upsert)
    assert not (settings.data_dir / "vectors.staging").exists()
    reopened = Application(settings, embedder=embedder)
    try:
        assert reopened.store.repairs == [] and len(reopened.store.documents()) == 4
        assert_consistent(reopened)
        assert [h.child_id for h in reopened.searcher.search("XK-4471", k=3)] == expected
    finally:
        reopened.close()


def test_a_held_library_says_so_in_one_line(library: Application) -> None:
    with pytest.raises(LibraryInUse, match="in use by another Archivist process"):
        Application(library.settings)
    with pytest.raises(LibraryInUse):
        reindex(library.settings, lambda _model: library.store.embedder)


def test_reindex_of_a_server_library_is_refused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "lib", storage={"qdrant_url": "http://localhost:6333"})
    with pytest.raises(Exception, match="Qdrant server"):
        reindex(settings, lambda _model: None)  # type: ignore[arg-type,return-value]


def test_reindex_embeds_each_chunk_with_the_title_ingest_used(
    library: Application, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.html").write_text(
        "<html><head><title>Zorblax Quarterly Review</title></head>"
        "<body><p>Revenue grew in every region this quarter.</p></body></html>",
        encoding="utf-8",
    )
    library.ingest.files([docs])
    (record,) = library.store.documents()
    assert record.title == "Zorblax Quarterly Review"
    before = [h.child_id for h in library.searcher.search("Zorblax", 3, "bm25")]
    assert before
    settings, embedder = library.settings, library.store.embedder
    library.close()
    reindex(settings, lambda _model: embedder)
    reopened = Application(settings, embedder=embedder)
    try:
        assert [h.child_id for h in reopened.searcher.search("Zorblax", 3, "bm25")] == before
        assert reopened.searcher.search("report", 3, "bm25") == []  # not the file name
    finally:
        reopened.close()
