"""Folder sync on a real library: add, change, delete and rename files in a watched folder.

Each change lands within 5 s of the write, and only the file that changed is embedded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.app.cli.main import app as cli_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.sync import FolderSync

LANDS_WITHIN_S = 5.0


class CountingEmbedder:
    """The real embedder, counting the texts it embeds for documents."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner = inner
        self.embedded: list[str] = []

    @property
    def dimension(self) -> int:
        """The inner model's size."""
        return self.inner.dimension

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed and count."""
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed a query (not counted)."""
        return self.inner.embed_query(text)


def note(title: str, body: str) -> str:
    """A small Markdown document."""
    return f"# {title}\n\n{body}\n"


@pytest.fixture
def counting(embedder: SentenceTransformerEmbedder) -> CountingEmbedder:
    """A counting wrapper around the session's real embedder."""
    return CountingEmbedder(embedder)


@pytest.fixture
def synced(tmp_path: Path, counting: CountingEmbedder) -> Iterator[tuple[Application, Path]]:
    """A library and an empty folder to sync into it."""
    folder = tmp_path / "notes"
    folder.mkdir()
    library = Application(Settings(data_dir=tmp_path / "lib"), embedder=counting)  # type: ignore[arg-type]
    yield library, folder
    library.close()


def names(library: Application) -> set[str]:
    """The names of the documents in the default collection."""
    return {d.name for d in library.store.documents()}


def wait_until(check: Callable[[], bool], timeout: float = LANDS_WITHIN_S) -> float:
    """Seconds until ``check()`` held; fails after ``timeout``."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "the change did not land in time"
        time.sleep(0.05)
    return time.monotonic() - started


def test_watch_mirrors_add_change_delete_rename(
    synced: tuple[Application, Path], counting: CountingEmbedder
) -> None:
    library, folder = synced
    (folder / "apples.md").write_text(note("Apples", "Honeycrisp apples ripen in September."))
    (folder / "pears.md").write_text(note("Pears", "Conference pears keep until March."))
    (folder / "skip.xyz").write_text("not a document")
    sync = FolderSync(library, [folder], settle_s=0.3)
    stop = threading.Event()
    watcher = threading.Thread(target=sync.watch, args=(stop, 0.2), daemon=True)
    watcher.start()
    try:
        wait_until(lambda: names(library) == {"apples.md", "pears.md"}, timeout=60)
        time.sleep(0.5)  # a few idle passes: nothing is embedded again
        baseline = len(counting.embedded)

        (folder / "plums.md").write_text(note("Plums", "Victoria plums are picked in August."))
        wait_until(lambda: "plums.md" in names(library))
        added = counting.embedded[baseline:]
        assert added and all("plums" in t.lower() for t in added), added

        before = len(counting.embedded)
        (folder / "apples.md").write_text(note("Apples", "Honeycrisp apples ripen in October."))
        wait_until(lambda: any("October" in h.text for h in
                               library.searcher.search("apples ripen", mode="bm25")))
        changed = counting.embedded[before:]
        assert changed and all("october" in t.lower() for t in changed), changed
        assert names(library) == {"apples.md", "pears.md", "plums.md"}

        before = len(counting.embedded)
        (folder / "pears.md").unlink()
        wait_until(lambda: "pears.md" not in names(library))
        assert not library.searcher.search("Conference pears", mode="bm25")

        plums_id = next(d.document_id for d in library.store.documents() if d.name == "plums.md")
        (folder / "plums.md").rename(folder / "stone-fruit.md")
        wait_until(lambda: names(library) == {"apples.md", "stone-fruit.md"})
        moved = next(d for d in library.store.documents() if d.name == "stone-fruit.md")
        assert moved.document_id == plums_id
        assert moved.path == str((folder / "stone-fruit.md").resolve())
        hits = library.searcher.search("Victoria plums", mode="bm25")
        assert hits and hits[0].document_name == "stone-fruit.md"
        assert counting.embedded[before:] == []  # neither the delete nor the rename embeds
    finally:
        stop.set()
        watcher.join(timeout=30)


def test_a_file_being_written_waits_until_it_settles(synced: tuple[Application, Path]) -> None:
    library, folder = synced
    sync = FolderSync(library, [folder], settle_s=1.0)
    sync.run_once()
    growing = folder / "log.md"
    growing.write_text("# Log\n\nThe first half")
    report = sync.run_once(wait_for_writes=True)
    assert report.waiting == [str(growing.resolve())] and not report.changes
    assert names(library) == set()
    growing.write_text("# Log\n\nThe first half and the second half of the log entry.")
    time.sleep(1.1)
    report = sync.run_once(wait_for_writes=True)
    assert [c.action for c in report.changes] == ["added"]
    assert any("second half" in h.text for h in library.searcher.search("second half", mode="bm25"))


def test_sync_leaves_documents_from_elsewhere_alone(
    synced: tuple[Application, Path], tmp_path: Path
) -> None:
    library, folder = synced
    outside = tmp_path / "elsewhere.md"
    outside.write_text(note("Elsewhere", "Ingested by hand, not from the synced folder."))
    library.ingest.files([outside])
    (folder / "inside.md").write_text(note("Inside", "Kept in step with the folder."))
    report = FolderSync(library, [folder]).run_once()
    assert [c.action for c in report.changes] == ["added"]
    (folder / "inside.md").unlink()
    report = FolderSync(library, [folder]).run_once()
    assert [c.action for c in report.changes] == ["removed"]
    assert names(library) == {"elsewhere.md"}


def test_cli_sync_once(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text(note("A", "Alpha notes about the archive."))
    data = tmp_path / "lib"
    runner = CliRunner()
    first = runner.invoke(cli_app, ["sync", str(folder), "--data-dir", str(data)])
    assert first.exit_code == 0, first.output
    assert "added" in first.output and "a.md" in first.output
    (folder / "a.md").unlink()
    second = runner.invoke(cli_app, ["sync", str(folder), "--data-dir", str(data)])
    assert second.exit_code == 0, second.output
    assert "removed" in second.output and "a.md" in second.output
    missing = runner.invoke(cli_app, ["sync", str(tmp_path / "nope"), "--data-dir", str(data)])
    assert missing.exit_code != 0 and "nope" in missing.output


def test_the_server_keeps_its_watched_folder_in_sync(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    import httpx
    from tests.app.server_helpers import served

    from archivist.app.api.app import create_app
    from archivist.types import ArchivistError

    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "first.md").write_text(note("First", "Present before the server starts."))
    settings = Settings(
        data_dir=tmp_path / "lib",
        server={"sync_folders": str(folder), "sync_interval_s": 0.2},
    )
    library = Application(settings, embedder=embedder)
    try:
        with served(create_app(library, ui=False)) as url, httpx.Client(
                base_url=url) as http:
            def listed() -> set[str]:
                return {d["name"] for d in http.get("/v1/documents").json()["documents"]}

            wait_until(lambda: listed() == {"first.md"}, timeout=60)
            (folder / "second.md").write_text(note("Second", "Dropped in while serving."))
            wait_until(lambda: listed() == {"first.md", "second.md"})
            (folder / "first.md").unlink()
            wait_until(lambda: listed() == {"second.md"})
        library.settings = settings.with_values(server={"sync_folders": str(tmp_path / "missing")})
        with pytest.raises(ArchivistError, match="missing"):
            create_app(library, ui=False)
    finally:
        library.close()
