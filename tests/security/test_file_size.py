"""A text file past its size limit fails with one line in every interface that reads files
(``archivist ingest``, folder sync), before it is read; the rest of the batch goes on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.documents.loaders import MAX_TEXT_FILE_BYTES
from archivist.settings import Settings
from archivist.sync import FolderSync

REASON = "refused, 60 MB of text (the limit for a text file is 50 MB)"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with a 60 MB Markdown file (one heading, then lines) and a small one."""
    docs = tmp_path / "docs"
    docs.mkdir()
    line = b"Lorem ipsum dolor sit amet, the pumps are checked every spring.\n"
    with (docs / "huge.md").open("wb") as out:
        out.write(b"# Huge\n\n")
        out.write(line * (60 * 1024 * 1024 // len(line) + 1))
    (docs / "small.md").write_text("# Small\n\nThe small note says the gate is blue.\n")
    assert (docs / "huge.md").stat().st_size > MAX_TEXT_FILE_BYTES
    return docs


def test_ingest_and_sync_refuse_a_huge_text_file(folder: Path, tmp_path: Path, embedder,
                                                 figure) -> None:
    with Application(Settings(data_dir=tmp_path / "lib"), embedder=embedder) as library:
        started = time.perf_counter()
        report = FolderSync(library, [folder]).run_once()
        seconds = time.perf_counter() - started
        outcomes = {Path(c.path).name: (c.action, c.detail) for c in report.changes}
        assert outcomes["huge.md"] == ("failed", REASON)
        assert outcomes["small.md"][0] == "added"
        assert {d.name for d in library.store.documents()} == {"small.md"}
    figure(f"sync of a 60 MB .md: failed in {seconds:.1f} s ('{REASON}'), the folder's "
           "small file added")


def test_the_cli_names_the_file_and_the_limit(folder: Path, tmp_path: Path, monkeypatch,
                                              embedder) -> None:
    monkeypatch.setattr("archivist.index.store.make_embedder", lambda *a, **k: embedder)
    result = CliRunner().invoke(app, ["ingest", str(folder), "--data-dir", str(tmp_path / "l")])
    assert result.exit_code == 3, result.output  # partial: one file failed
    assert f"failed  {folder / 'huge.md'}: {REASON}" in result.output
    assert "added 1" in result.output


def test_repeated_chunks_are_embedded_once(tmp_path: Path, embedder, figure) -> None:
    """500 KB of ``>`` (token-dense: every character a token) cuts into ~1,260 identical
    chunks; each distinct text is embedded once, every chunk still indexed."""
    from tests.test_sync import CountingEmbedder

    counting = CountingEmbedder(embedder)
    dense = tmp_path / "dense.md"
    dense.write_text("# Gt\n\n" + ">" * 500_000 + "\n")
    with Application(Settings(data_dir=tmp_path / "lib"), embedder=counting) as library:  # type: ignore[arg-type]
        started = time.perf_counter()
        report = library.ingest.files([dense])
        seconds = time.perf_counter() - started
        result = report.results[0]
        assert result.outcome.value == "added" and result.chunks > 1000, result
        assert len(counting.embedded) == len(set(counting.embedded)) < 20, len(counting.embedded)
        assert len(library.store.children_of(result.document_id or "")) == result.chunks
    figure(f"500 KB of '>': {result.chunks} chunks, {len(counting.embedded)} embedded, "
           f"{seconds:.1f} s")
