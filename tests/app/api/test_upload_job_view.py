"""A job run by this process is shown as it is here, never as the database last stored it.

CI saw an upload's chunk count go 0, 93, 186 and then back to 93: between the runner setting
the job done and recording that end, a poll read the stored row, whose progress was the
lease keeper's last write (stage "embedding", 93 chunks, status "running").
"""

from __future__ import annotations

from pathlib import Path

from archivist.app.jobs import IngestJobs, Job
from archivist.application import Application
from archivist.ingest_progress import IngestProgress


def _embedding(done: int) -> IngestProgress:
    return IngestProgress(files_done=0, files_total=1, path="/up/report.pdf", stage="embedding",
                          stage_pages=70, stage_page_count=70, stage_done=done,
                          stage_total=279, pages_converted=70)


def test_a_job_run_here_is_read_here_up_to_its_recorded_end(library: Application) -> None:
    jobs = IngestJobs(library, run=False)
    try:
        job = jobs.submit(Job("j1", "key:a", "default", [Path("report.pdf")]))
        assert jobs.queue.claim() is not None
        job.status = "running"
        job.follow(_embedding(93))
        assert jobs.queue.renew("j1", job.progress())  # the lease keeper's last write
        job.follow(_embedding(186))
        job.status = job.stage = "done"  # set by the runner before it records the end
        seen = jobs.get("j1", "key:a")
        assert seen is not None
        assert (seen.status, seen.stage) == ("done", "done")
        job.status, job.stage = "running", "embedding"
        assert jobs.get("j1", "key:a").current_chunks_done == 186  # not the stored 93
    finally:
        jobs.close()


def test_a_job_queued_here_but_run_elsewhere_is_read_from_the_database(
        library: Application) -> None:
    here = IngestJobs(library, run=False)
    try:
        job = here.submit(Job("j2", "key:a", "default", [Path("notes.md")]))
        elsewhere = type(here.queue)(library.database, "other-worker", 30)
        assert elsewhere.claim() is not None
        elsewhere.renew("j2", {**job.progress(), "stage": "embedding",
                               "current_chunks_done": 40, "current_chunks_total": 80})
        seen = here.get("j2", "key:a")
        assert seen is not None and seen is not job
        assert (seen.status, seen.stage, seen.current_chunks_done) == ("running", "embedding", 40)
        assert here.get("j2", "key:b") is None  # only for the uploader
    finally:
        here.close()
