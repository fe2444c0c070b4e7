"""Upload progress on real PDFs through the HTTP API: uploaded together, the PDFs convert in
the pool of converter processes, and the job's status counts their pages up as they go."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest
from tests.app.server_helpers import served

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings

PDFS = ("NETFLIX_2017_10K.pdf", "AMCOR_2023Q4_EARNINGS.pdf")  # 73 and 14 pages


def poll(http: httpx.Client, job_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every status the job showed until it finished, and the last one."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 1500
    while True:
        view = http.get(f"/v1/documents/jobs/{job_id}").json()
        seen.append(view)
        if view["status"] in ("done", "failed"):
            return view, seen
        assert time.monotonic() < deadline, "the upload did not finish"
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # two real PDFs, embedded on a possibly busy machine
def test_pdfs_uploaded_together_count_their_pages_up_as_they_convert(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, eval_dir: Path
) -> None:
    paths = [eval_dir / "pdfs" / name for name in PDFS]
    pages = {p.name: pymupdf.open(p).page_count for p in paths}
    total = sum(pages.values())
    settings = Settings(data_dir=tmp_path / "lib", llm={
        "model": "scripted",
    }, index={"ingest_workers": 2})
    library = Application(settings, embedder=embedder)
    try:
        with served(create_app(library, ui=False)) as url, httpx.Client(
                base_url=url, timeout=60) as http:
            files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in paths]
            job = http.post("/v1/documents", files=files).json()
            view, seen = poll(http, job["job_id"])
    finally:
        library.close()
    assert view["status"] == "done", view
    assert [(r["file"], r["outcome"], r["pages"]) for r in view["results"]] == [
        (name, "added", pages[name]) for name in PDFS]
    assert view["pages"] == view["pages_converted"] == total, view
    converted = [s["pages_converted"] for s in seen]
    assert converted == sorted(converted), converted  # never goes back
    between = sorted({c for c in converted if 0 < c < total})
    assert len(between) >= 3, converted  # counted up in steps, not one jump at the end
    # the 10-K's own pages count up while it converts (it is the file at hand)
    first = [s["current_pages"] for s in seen
             if s["stage"] == "converting" and s["current"] == PDFS[0]]
    assert first == sorted(first) and len({p for p in first if 0 < p < pages[PDFS[0]]}) >= 2, \
        first
    # then its chunks are embedded, while the pages converted ahead are counted too
    embedding = [s for s in seen if s["stage"] == "embedding"]
    assert embedding and all(s["current_pages"] > 0 for s in embedding), embedding[:3]
