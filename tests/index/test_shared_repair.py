"""On a shared database, opening a library never purges what another worker is writing."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from archivist.application import Application
from archivist.settings import Settings
from archivist.storage.schema import documents
from archivist.types import DocumentRecord


def test_a_fresh_pending_document_survives_another_worker_starting(
    tmp_path: Path, embedder, postgres_url: str,
) -> None:
    def worker(name: str) -> Application:
        return Application(Settings(data_dir=tmp_path / name, storage={
            "database_url": postgres_url,
        }),
                           embedder=embedder)

    writing = worker("a")
    record = DocumentRecord(document_id="d1", collection="default", path="/x/d1.md",
                            name="d1.md", content_hash="d1", size_bytes=1, page_count=0,
                            parent_count=0, child_count=0, added_at="")
    writing.store.catalog.add_pending(record, [], [])  # worker a is writing d1 right now
    starting = worker("b")
    assert starting.store.repairs == []
    assert [d.document_id for d in writing.store.catalog.unfinished()] == ["d1"]
    starting.close()
    with writing.database.transaction() as conn:  # ... and then a died, an hour ago
        conn.execute(update(documents).values(added_at="2020-01-01T00:00:00+00:00"))
    later = worker("c")
    assert later.store.repairs == ["removed unfinished pending document d1.md (d1)"]
    assert later.store.catalog.unfinished() == []
    later.close()
    writing.close()
