"""A full disk while vectors are written fails that file, not the batch or the library.

The library's vectors live on a real, small tmpfs (mounted for the test on
``data_dir/vectors``; skipped where mounting is not allowed). That disk is filled until a
large document's vectors cannot fit, then a batch of that document and a small one is
ingested: the large one fails with a "disk full" reason, the
small one is added and searchable, nothing is left half-written, and after space is freed
a new document ingests normally and the reopened library needs no repair.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.types import IngestOutcome

TMPFS_MB = 96  # Qdrant Edge keeps two 32 MB write-ahead-log segments (sparse files)
PASSAGES = 60  # of about 4,000 characters: about 3.1 MB with the reserve, by the estimate
LEFT_FREE = 2_500_000


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A TMPFS_MB tmpfs mounted where a library's vectors go (root and mount rights needed)."""
    mount = tmp_path / "lib" / "vectors"
    mount.mkdir(parents=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs (a real full disk)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs",
                           str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free
    with filler.open("wb") as out:
        out.write(b"\0" * max(0, free - leave))
    return filler


@pytest.mark.timeout(1800)  # embeds 60 long passages: minutes on a loaded 2-core machine
def test_disk_full_fails_the_file_and_keeps_batch_and_library(
    small_disk: Path, tmp_path: Path, embedder: SentenceTransformerEmbedder, figure: object
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha.md").write_text("# Alpha\n\nThe alpha code word is teal heron.\n")
    words = " ".join(f"term{i}" for i in range(500))
    (docs / "big.md").write_text("# Big\n\n" + "\n\n".join(
        f"## Part {i}\n\n{words} part {i}." for i in range(PASSAGES)))
    (docs / "gamma.md").write_text("# Gamma\n\nThe gamma code word is red fox.\n")
    settings = Settings(
        data_dir=small_disk.parent,
        index={"child_chars": 4000, "parent_min_chars": 4000, "parent_max_chars": 8000},
    )
    app = Application(settings, embedder=embedder)
    try:
        first = app.ingest.files([docs / "alpha.md"])
        assert first.counts["added"] == 1
        filler = _fill(small_disk, LEFT_FREE)
        free_before = shutil.disk_usage(small_disk).free

        report = app.ingest.files([docs / "big.md", docs / "gamma.md"])

        outcomes = {Path(r.path).name: r for r in report.results}
        big, gamma = outcomes["big.md"], outcomes["gamma.md"]
        assert big.outcome == IngestOutcome.FAILED
        assert big.reason.startswith("disk full:") and "MB free" in big.reason, big.reason
        assert gamma.outcome == IngestOutcome.ADDED, gamma.reason
        _assert_consistent(app, {"alpha.md", "gamma.md"})
        hits = app.searcher.retriever(None).search("gamma code word", k=3)
        assert hits and hits[0].document_name == "gamma.md"
        figure(f"disk full: {free_before // 1024} KB free on a {TMPFS_MB} MB tmpfs; big.md "
               f"({PASSAGES} passages) failed with {big.reason!r}; gamma.md added; 0 orphans")

        filler.unlink()  # space again: writing works, nothing was left behind
        (docs / "delta.md").write_text("# Delta\n\nThe delta code word is blue owl.\n")
        again = app.ingest.files([docs / "delta.md"])
        assert again.counts["added"] == 1, again
        _assert_consistent(app, {"alpha.md", "gamma.md", "delta.md"})
    finally:
        app.close()
    reopened = Application(settings, embedder=embedder)
    try:
        assert reopened.store.repairs == []
        _assert_consistent(reopened, {"alpha.md", "gamma.md", "delta.md"})
    finally:
        reopened.close()


def _assert_consistent(app: Application, names: set[str]) -> None:
    """Catalog and vectors agree: the named documents, ready, with all their vectors."""
    store = app.store
    collection = store.collection_name(None)
    documents = store.catalog.documents(collection, status=None)  # pending ones too
    assert {d.name for d in documents} == names
    assert {d.status for d in documents} == {"ready"}
    assert store.vectors.document_ids(collection) == {d.document_id for d in documents}
    for d in documents:
        assert store.vectors.count(collection, d.document_id) == d.child_count, d.name
