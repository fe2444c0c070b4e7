"""Ingest with PDFs converted in a pool of processes: same documents as converting in-line."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.ingest import IngestProgress
from archivist.settings import Settings


def _pdf(path: Path, topic: str, pages: int) -> Path:
    pdf = pymupdf.open()
    for number in range(1, pages + 1):
        page = pdf.new_page()
        page.insert_text((72, 72), f"{topic} chapter {number}", fontsize=18)
        for line in range(12):
            page.insert_text(
                (72, 110 + 16 * line),
                f"Page {number} of the {topic} notes explains step {line} in plain words.",
            )
    pdf.save(path)
    return path


def _ingest(tmp_path: Path, name: str, workers: int, embedder, files: list[Path]):
    settings = Settings(data_dir=tmp_path / name, ingest_workers=workers)
    seen: list[tuple[int, str]] = []

    def on_file(event: IngestProgress) -> None:
        if event.result is not None:  # a finished file (not a stage within one)
            seen.append((event.files_done, Path(event.path).name))

    with Application(settings, embedder=embedder) as library:
        report = library.ingest.files(files, progress=on_file)
        docs = {d.name: d for d in library.store.documents()}
        children = {
            name: [
                (c.text, c.page_start, c.page_end) for c in library.store.children_of(d.document_id)
            ]
            for name, d in docs.items()
        }
    return report, seen, children


@pytest.mark.slow
def test_pool_conversion_gives_the_same_documents_in_file_order(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, pages in (("a-gardening", 3), ("b-cooking", 2), ("c-sailing", 4)):
        _pdf(docs / f"{name}.pdf", name.split("-")[1], pages)
    (docs / "d-notes.md").write_text("# Notes\n\nA Markdown file converts in-line.\n")
    pooled, seen, pooled_children = _ingest(tmp_path, "pooled", 2, embedder, [docs])
    inline, _, inline_children = _ingest(tmp_path, "inline", 1, embedder, [docs])
    assert pooled.counts["added"] == 4, pooled.results
    assert seen == [
        (1, "a-gardening.pdf"),
        (2, "b-cooking.pdf"),
        (3, "c-sailing.pdf"),
        (4, "d-notes.md"),
    ]
    assert [r.pages for r in pooled.results] == [3, 2, 4, 0]
    assert pooled_children == inline_children
    assert pooled.timings["conversion"] > 0
