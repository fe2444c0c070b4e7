"""An upload's progress bar moves while a PDF converts, not only while it embeds.

With two files, a 70-page PDF at 0 of its chunks stayed at 0% for the minutes its pages
took to convert, although the line beside the bar counted "page 8 of 70".
"""

from __future__ import annotations

from pathlib import Path

from archivist.app.jobs import Job
from archivist.ingest_progress import IngestProgress


def _event(stage: str, pages: int = 0, page_count: int = 0, done: int = 0,
           total: int = 0, files_done: int = 0) -> IngestProgress:
    return IngestProgress(files_done=files_done, files_total=2, path="/up/handbook.pdf",
                          stage=stage, stage_pages=pages, stage_page_count=page_count,
                          stage_done=done, stage_total=total, pages_converted=pages)


def test_the_fraction_rises_with_pages_then_chunks() -> None:
    job = Job("j1", "owner", "default", [Path("handbook.pdf"), Path("notes.md")])
    seen = [job.fraction()]
    for event in (_event("converting", 8, 70), _event("converting", 70, 70),
                  _event("embedding", 70, 70, 100, 400), _event("embedding", 70, 70, 400, 400)):
        job.follow(event)
        seen.append(job.fraction())
    assert seen[0] == 0.0
    assert 0.0 < seen[1] < seen[2] < seen[3] < seen[4] < 0.5  # the first of two files
    assert abs(seen[2] - 0.25 * 0.95) < 1e-9  # converted, nothing embedded: a quarter


def test_a_file_without_pages_counts_as_converted_once_its_chunks_are_known() -> None:
    job = Job("j2", "owner", "default", [Path("notes.md")])
    job.follow(_event("converting"))
    assert job.fraction() == 0.0
    job.follow(_event("embedding", done=0, total=10))
    assert abs(job.fraction() - 0.5 * 0.95) < 1e-9
