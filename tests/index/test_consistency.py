import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tests.index.corpus import write_corpus

from archivist.application import Application
from archivist.index.edge_store import EdgeVectorStore
from archivist.settings import Settings
from archivist.types import IngestOutcome

HERE = Path(__file__).resolve().parent


def assert_consistent(library: Application) -> None:
    ready = {d.document_id: d for d in library.store.documents()}
    assert library.store.catalog.unfinished() == []
    assert library.store.vectors.document_ids("default") == set(ready)
    for doc_id, record in ready.items():
        assert library.store.vectors.count("default", doc_id) == record.child_count
        assert len(library.store.parents_of(doc_id)) == record.parent_count
        assert len(library.store.children_of(doc_id)) == record.child_count


def test_kill_9_mid_ingest_leaves_documents_whole_or_absent(
    tmp_path: Path, embedder: object
) -> None:
    docs = write_corpus(tmp_path / "docs")
    data_dir = tmp_path / "lib"
    proc = subprocess.run(
        [sys.executable, str(HERE / "kill_during_ingest.py"), str(data_dir), str(docs), "3"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    library = Application(Settings(data_dir=data_dir), embedder=embedder)  # type: ignore[arg-type]
    try:
        # the third document had vectors but was never marked ready: it must be gone
        assert len(library.store.documents()) == 2
        assert any("unfinished pending" in line for line in library.store.repairs)
        assert_consistent(library)
        # and a rerun completes the batch
        report = library.ingest.files([docs])
        assert report.counts["added"] == 2 and report.counts["unchanged"] == 2
        assert_consistent(library)
    finally:
        library.close()


def test_failure_mid_ingest_rolls_back_that_document_only(
    library: Application, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_corpus(tmp_path / "docs")
    real_upsert = EdgeVectorStore.upsert

    def flaky(self: EdgeVectorStore, collection: str, children, dense, sparse, name, batch=256):  # type: ignore[no-untyped-def]
        if name == "errors.md":
            real_upsert(self, collection, children[:1], dense[:1], sparse[:1], name, batch)
            raise RuntimeError("disk full")
        real_upsert(self, collection, children, dense, sparse, name, batch)

    monkeypatch.setattr(EdgeVectorStore, "upsert", flaky)
    report = library.ingest.files([docs])
    failed = report.of(IngestOutcome.FAILED)
    assert [Path(r.path).name for r in failed] == ["errors.md"]
    assert "disk full" in failed[0].reason
    names = sorted(d.name for d in library.store.documents())
    assert names == ["astronomy.txt", "cooking.md", "postgres.md"]
    assert_consistent(library)


def test_remove_interrupted_is_finished_on_open(library: Application, tmp_path: Path) -> None:
    library.ingest.files([write_corpus(tmp_path / "docs")])
    record = library.store.resolve("cooking.md")
    # a crash after marking the document 'removing' but before deleting anything
    library.store.catalog.set_status("default", {record.document_id: "removing"})
    settings, embedder = library.settings, library.store.embedder
    library.close()
    reopened = Application(settings, embedder=embedder)
    try:
        assert "cooking.md" not in [d.name for d in reopened.store.documents()]
        assert_consistent(reopened)
    finally:
        reopened.close()
