"""``archivist migrate --to postgresql://``: an embedded library copied whole, safe to rerun."""

from __future__ import annotations

from pathlib import Path

from tests.index.corpus import write_corpus
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.conversations import TurnLog
from archivist.index.catalog import Catalog
from archivist.index.pgvector_store import PgVectorStore
from archivist.settings import Settings
from archivist.storage import Database


def test_a_library_is_copied_with_its_vectors_conversations_and_feedback(
    tmp_path: Path, embedder, postgres_url: str,
) -> None:
    settings = Settings(data_dir=tmp_path / "library", llm={"model": "scripted"})
    with Application(settings, embedder=embedder) as library:
        library.ingest.files([write_corpus(tmp_path / "docs")])
        answer = library.agent.ask("How do I install PostgreSQL?")
        library.turns.rate(answer.thread_id, 1, "down", "name the page")
        query = "knead the dough and let it rise"
        dense = library.store.embedder.embed_query(query)
        sparse = library.store.bm25.encode_query(query)
        embedded_top = [h.payload["child_id"] for h in
                        library.store.vectors.query("default", "hybrid", 5, dense, sparse)]
        chunks = library.store.vectors.count("default")

    runner = CliRunner()
    for _run in range(2):  # the second run finds everything there and copies nothing twice
        result = runner.invoke(app, ["migrate", "--to", postgres_url,
                                     "--data-dir", str(settings.data_dir)])
        assert result.exit_code == 0, result.output
        assert "every count matches" in result.output
        assert "4 documents" in result.output and f"{chunks} vectors" in result.output

    target = Database(postgres_url)
    try:
        assert Catalog(target).counts()["documents"] == 4
        (rated,) = TurnLog(target).rated()
        assert rated.thread_id == answer.thread_id and rated.feedback.comment == "name the page"
        state = target.checkpointer().get_tuple(
            {"configurable": {"thread_id": answer.thread_id, "checkpoint_ns": ""}})
        assert state is not None and state.checkpoint["channel_values"]["question"]
    finally:
        target.close()
    shared = PgVectorStore(postgres_url)
    try:
        assert shared.count("default") == chunks
        shared_top = [h.payload["child_id"] for h in
                      shared.query("default", "hybrid", 5, dense, sparse)]
    finally:
        shared.close()
    assert shared_top == embedded_top


def test_migrate_refuses_a_target_that_is_not_postgresql(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["migrate", "--to", f"sqlite:///{tmp_path}/x.sqlite",
                                      "--data-dir", str(tmp_path / "lib")])
    assert result.exit_code == 1
    assert "postgresql://" in result.output and "Traceback" not in result.output
