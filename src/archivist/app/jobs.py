"""Ingest jobs for uploads: staged files ingested one job at a time on a worker thread.

The API and the web UI stage uploaded files, then submit a :class:`Job`. The worker moves
the files to ``data_dir/uploads/<collection>/<owner>/<name>`` (so a new upload of a file
with the same name by the same owner replaces the old version, and never another owner's)
and runs the application's ingest pipeline, recording each file's outcome as it goes;
``GET /v1/documents/jobs/{id}`` shows that progress. New documents are then given to the
uploader, and a file that added nothing (failed, skipped, or unchanged: its content is
already stored) is deleted.
"""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from archivist.app.api.models import FileOutcome, IngestJob
from archivist.app.upload_names import owner_folder
from archivist.application import Application
from archivist.ingest_progress import IngestProgress, describe_file
from archivist.types import ADMIN_OWNER, DocumentRecord, FileResult, IngestOutcome

log = logging.getLogger(__name__)

KEPT_JOBS = 200


@dataclass
class Job:
    """One upload's ingest, observable while it runs."""

    job_id: str
    owner: str
    collection: str
    staged: list[Path]
    document_owner: str = ADMIN_OWNER
    results: list[FileOutcome] = field(default_factory=list)
    status: str = "queued"
    files_done: int = 0
    current: str | None = None
    error: str | None = None
    rejected: int = 0
    stage: str = "queued"
    pages: int = 0
    chunks: int = 0
    current_pages: int = 0
    current_page_count: int = 0
    current_chunks_done: int = 0
    current_chunks_total: int = 0
    pages_converted: int = 0
    done: threading.Event = field(default_factory=threading.Event)

    def follow(self, event: IngestProgress) -> None:
        """Take in one progress event of the ingest."""
        self.files_done = event.files_done
        self.current = Path(event.path).name
        self.pages_converted = max(self.pages_converted, event.pages_converted)
        if event.result is None:
            self.stage = event.stage
            self.current_pages = event.stage_pages
            self.current_page_count = event.stage_page_count
            self.current_chunks_done = event.stage_done
            self.current_chunks_total = event.stage_total
            return
        self.results.append(_outcome(event.result.path, event.result))
        self.pages += event.result.pages
        self.chunks += event.result.chunks
        self.current_pages = self.current_page_count = 0
        self.current_chunks_done = self.current_chunks_total = 0

    def fraction(self) -> float:
        """How far the job is, from 0 to 1 (files done, and the current file's share).

        Within a file, its pages converted are the first half and its chunks embedded the
        second, so a 70-page PDF moves the bar while it converts.
        """
        if not self.staged:
            return 1.0
        embedded = (self.current_chunks_done / self.current_chunks_total
                    if self.current_chunks_total else 0.0)
        if self.current_page_count:
            converted = min(1.0, self.current_pages / self.current_page_count)
        else:  # no page count (Markdown, HTML, Word): converted once chunks are known
            converted = 1.0 if self.current_chunks_total else 0.0
        within = 0.5 * converted + 0.5 * embedded
        return min(1.0, (self.files_done + 0.95 * within) / len(self.staged))

    def describe(self) -> str:
        """One progress line: the stage of the current file, then the totals so far."""
        total = len(self.staged)
        where = f"file {min(self.files_done + 1, total)}/{total}"
        current = describe_file(self.stage, self.current or "", self.current_pages,
                                self.current_page_count, self.current_chunks_done,
                                self.current_chunks_total)
        done = f"{self.pages_converted} pages converted, {self.chunks} chunks indexed"
        return f"{current} · {where} · {done}"

    def view(self) -> IngestJob:
        """The job as the API shows it."""
        counts = {o.value: 0 for o in IngestOutcome}
        for result in self.results:
            counts[result.outcome] += 1
        return IngestJob(
            job_id=self.job_id,
            status=self.status,  # type: ignore[arg-type]
            collection=self.collection,
            files_total=self.rejected + len(self.staged),
            files_done=self.rejected + self.files_done,
            current=self.current,
            results=list(self.results),
            counts=counts,
            error=self.error,
            stage=self.stage,
            pages=self.pages,
            chunks=self.chunks,
            current_pages=self.current_pages,
            current_page_count=self.current_page_count,
            current_chunks_done=self.current_chunks_done,
            current_chunks_total=self.current_chunks_total,
            pages_converted=self.pages_converted,
        )



class IngestJobs:
    """Runs upload jobs one at a time on a worker thread and keeps the recent ones."""

    def __init__(self, application: Application) -> None:
        self.application = application
        self.uploads = application.settings.data_dir / "uploads"
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="archivist-ingest")

    def staging_dir(self) -> Path:
        """A fresh folder for one upload's files."""
        path = self.uploads / ".staging" / uuid.uuid4().hex
        path.mkdir(parents=True)
        return path

    def submit(self, job: Job) -> Job:
        """Queue a job."""
        with self._lock:
            self._jobs[job.job_id] = job
            while len(self._jobs) > KEPT_JOBS:
                self._jobs.popitem(last=False)
        self._worker.submit(self._run, job)
        return job

    def get(self, job_id: str, owner: str) -> Job | None:
        """A job, only for the owner who submitted it."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and job.owner == owner else None

    def _run(self, job: Job) -> None:
        job.status = "running"
        job.stage = "ingesting"
        staging = job.staged[0].parent if job.staged else None
        try:
            target = self.uploads / job.collection / owner_folder(job.document_owner)
            target.mkdir(parents=True, exist_ok=True)
            paths = []
            for staged in job.staged:
                final = target / staged.name
                staged.replace(final)
                paths.append(final)

            report = self.application.ingest.files(paths, job.collection, progress=job.follow)
            self._settle(job, report.results)
            job.status = job.stage = "done"
        except Exception as exc:  # recorded on the job, and logged with its traceback
            log.exception("ingest job %s failed", job.job_id)
            job.status = job.stage = "failed"
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            job.current = None
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            job.done.set()

    def _settle(self, job: Job, results: list[FileResult]) -> None:
        """Give new documents to the uploader; delete files that added no document."""
        store = self.application.store
        added = [r.document_id for r in results if r.document_id and r.outcome in (
            IngestOutcome.ADDED, IngestOutcome.REPLACED)]
        if added and job.document_owner != ADMIN_OWNER:
            store.catalog.set_owner(job.collection, added, job.document_owner)
        for result in results:
            path = Path(result.path)
            if result.outcome in (IngestOutcome.FAILED, IngestOutcome.SKIPPED):
                path.unlink(missing_ok=True)
            elif result.outcome == IngestOutcome.UNCHANGED and result.document_id:
                known = store.get_document(result.document_id, job.collection)
                if known is None or Path(known.path) != path.resolve():
                    path.unlink(missing_ok=True)  # the content is already stored elsewhere

    def forget_upload(self, record: DocumentRecord) -> None:
        """Delete an uploaded file once its document is removed."""
        path = Path(record.path)
        try:
            path.resolve().relative_to(self.uploads.resolve())
        except ValueError:
            return  # not an upload (ingested from the CLI): leave the user's file alone
        path.unlink(missing_ok=True)

    def close(self) -> None:
        """Finish the running job and stop the worker."""
        self._worker.shutdown(wait=True, cancel_futures=True)


def _outcome(path: str, result: FileResult) -> FileOutcome:
    reason = result.reason.replace(str(Path(path).parent) + "/", "")
    return FileOutcome(
        file=Path(path).name,
        outcome=result.outcome.value,  # type: ignore[arg-type]
        document_id=result.document_id,
        reason=reason,
        pages=result.pages,
        chunks=result.chunks,
    )
