"""Upload progress on a real server: the stage, the pages and the chunks of the file at hand.

One PDF converts in the server's process; several together convert in a pool of processes
(``tests/app/api/test_upload_progress_pdfs.py``).
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import httpx
import pytest
from rich.console import Console
from tests.app.server_helpers import FILLER, make_pdf, served
from typer.testing import CliRunner

from archivist import ingest as ingest_module
from archivist.app.api.app import create_app
from archivist.app.cli import documents as cli_documents
from archivist.app.cli.main import app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings

PAGES = 70


def test_a_70_page_pdf_reports_its_stages_pages_and_chunks(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingest_module, "EMBED_STEP", 32)  # several reports for ~200 chunks
    pdf = make_pdf(tmp_path / "long-report.pdf", [
        f"Section {n}\n\nThe reading for unit {n} was {n * 7} litres." + FILLER * 6
        for n in range(1, PAGES + 1)
    ])
    library = Application(Settings(data_dir=tmp_path / "lib", llm={
        "model": "scripted",
    }), embedder=embedder)
    seen: list[tuple[str, int, int, int, int]] = []
    page_counts: list[tuple[str, int]] = []  # (stage, the file's page count)
    try:
        with served(create_app(library, ui=False)) as url, httpx.Client(
                base_url=url, timeout=60) as http:
            with pdf.open("rb") as handle:
                job = http.post("/v1/documents", files={"files": (pdf.name, handle)}).json()
            deadline = time.monotonic() + 600  # a busy machine is slow
            while True:
                view = http.get(f"/v1/documents/jobs/{job['job_id']}").json()
                seen.append((view["stage"], view["current_pages"], view["current_chunks_done"],
                             view["current_chunks_total"], view["pages_converted"]))
                page_counts.append((view["stage"], view["current_page_count"]))
                if view["status"] in ("done", "failed"):
                    break
                assert time.monotonic() < deadline, "the upload did not finish"
                time.sleep(0.02)
    finally:
        library.close()
    assert view["status"] == "done" and view["pages"] == PAGES, view
    assert view["chunks"] > 64 and view["stage"] == "done"
    embedding = [s for s in seen if s[0] == "embedding"]
    assert embedding, seen
    assert all(pages == PAGES and total == view["chunks"] for _, pages, _, total, _ in embedding)
    counts = [done for _, _, done, _, _ in embedding]
    assert len(set(counts)) >= 2 and counts == sorted(counts), counts  # the chunks count up
    # before that, its pages count up while it converts (8 at a time), exactly
    converting = [(pages, converted) for stage, pages, _, _, converted in seen
                  if stage == "converting"]
    assert all(pages == converted for pages, converted in converting), converting
    shown = [pages for pages, _ in converting]
    assert shown == sorted(shown) and len({p for p in shown if 0 < p < PAGES}) >= 2, shown
    assert view["pages_converted"] == PAGES
    # the file's page count is known from the start of its conversion: 70, never the pages so far
    assert {count for stage, count in page_counts
            if stage in ("converting", "embedding")} == {PAGES}
    stages = [s[0] for s in seen]
    assert stages.index("embedding") < stages.index("done")


def test_the_cli_ingest_shows_the_pages_of_a_large_file_counting_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``archivist ingest`` shows ``converting x.pdf (page 8 of 70)`` as the UI does."""
    pdf = make_pdf(tmp_path / "long-report.pdf", [
        f"Section {n}\n\nThe reading for unit {n} was {n * 7} litres." + FILLER * 6
        for n in range(1, PAGES + 1)
    ])
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=200, highlight=False)
    monkeypatch.setattr(cli_documents, "err_console", terminal)
    result = CliRunner().invoke(app, ["ingest", str(pdf), "--data-dir", str(tmp_path / "lib")])
    assert result.exit_code == 0, result.output
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    pages = [int(n) for n in re.findall(r"converting long-report\.pdf \(page (\d+) of 70\)", shown)]
    assert pages == sorted(pages) and any(0 < p < PAGES for p in pages), shown  # counting up
    converted = [int(n) for n in re.findall(r"files · (\d+) pages", shown)]
    assert any(0 < n < PAGES for n in converted) and converted[-1] == PAGES, shown
    assert re.search(r"embedding long-report\.pdf \(70 pages\): \d+/\d+ chunks", shown), shown
