"""Ingest jobs for uploads: a queue in the library's database, worked by every server process.

The API and the web UI stage uploaded files under ``data_dir/uploads/.staging/<id>``, then
submit a :class:`Job`: a row in the database (:mod:`archivist.storage.jobs`), so a job
accepted by one process survives that process and can be run by any other. Each server
process (but ``archivist serve --no-ingest``) and each ``archivist worker`` runs a worker
thread that claims jobs, moves their files to
``data_dir/uploads/<collection>/<owner>/<name>`` (so a new upload of a file with the same
name by the same owner replaces the old version, and never another owner's) and runs the
application's ingest pipeline, recording each file's outcome and the progress in the row
as it goes. The jobs of one owner in one collection run one at a time, in every process
(a lock in the database held from placing the files to the last outcome), so a name's
add / replace / unchanged decision and its write see every earlier upload of it.
``GET /v1/documents/jobs/{id}`` reads the row, from any worker. New documents are then
given to the uploader, and a file that added nothing (failed, skipped, or unchanged: its
content is already stored) is deleted.

A worker renews its lease on a running job while it works; a job whose worker died is
claimed again (on embedded storage at once when the server restarts, on PostgreSQL when the
lease runs out) and resumes with the files not yet done. Starting a server also removes
what interrupted uploads left behind (see :mod:`archivist.app.upload_leftovers`).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archivist.app.api.models import FileOutcome, IngestJob
from archivist.app.upload_leftovers import STAGING, remove_leftovers
from archivist.app.upload_names import owner_folder
from archivist.application import Application
from archivist.ingest_progress import IngestProgress, describe_file
from archivist.storage.jobs import JobQueue, JobRow, LeaseKeeper
from archivist.types import ADMIN_OWNER, DocumentRecord, FileResult, IngestOutcome

log = logging.getLogger(__name__)

KEPT_JOBS = 200  # finished jobs kept in memory (the database keeps them all)
SHARED_LEFTOVER_AGE_S = 600.0  # on a shared database, only leftovers this old are removed
_PROGRESS_FIELDS = (
    "status", "files_done", "current", "error", "rejected", "stage", "pages", "chunks",
    "current_pages", "current_page_count", "current_chunks_done", "current_chunks_total",
    "pages_converted", "resumed",
)


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
    resumed: int = 0  # files finished before this run (by a worker that then died)
    done: threading.Event = field(default_factory=threading.Event)
    changes: int = 0  # bumped by every progress event

    def progress(self) -> dict[str, Any]:
        """What the database keeps of the job's progress."""
        values: dict[str, Any] = {name: getattr(self, name) for name in _PROGRESS_FIELDS}
        values["results"] = [r.model_dump() for r in self.results]
        return values

    @classmethod
    def from_row(cls, row: JobRow) -> Job:
        """A job as stored (submitted here or by another worker)."""
        progress = dict(row.progress)
        results = [FileOutcome.model_validate(r) for r in progress.pop("results", [])]
        known = {k: v for k, v in progress.items() if k in _PROGRESS_FIELDS}
        job = cls(row.job_id, row.owner, row.collection, [Path(f) for f in row.files],
                  document_owner=row.document_owner, results=results, **known)
        job.status = row.status
        job.error = row.error or job.error
        if row.status in ("done", "failed"):
            job.done.set()
        return job

    def follow(self, event: IngestProgress) -> None:
        """Take in one progress event of the ingest."""
        self.changes += 1
        self.files_done = self.resumed + event.files_done
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



def worker_name() -> str:
    """The name a job's lease gives this process (host, pid, a random tag)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class IngestJobs:
    """Submits upload jobs to the database queue and works it on a thread of this process."""

    def __init__(self, application: Application, *, poll_s: float = 1.0,
                 run: bool = True) -> None:
        """``run=False`` only submits and reads jobs: other processes run them."""
        self.application = application
        settings = application.settings
        self.uploads = settings.data_dir / "uploads"
        self.queue = JobQueue(application.database, worker_name(), settings.server.job_lease_s)
        self._local: dict[str, Job] = {}  # submitted or run here: the freshest view
        self._lock = threading.Lock()
        self._poll_s = poll_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.recovered = self._recover()
        self._thread = threading.Thread(target=self._work, name="archivist-ingest",
                                        daemon=True)
        if run:
            self._thread.start()

    def _recover(self) -> list[str]:
        """Free jobs a dead process held (embedded storage) and remove upload leftovers."""
        notes = []
        embedded = self.application.database.embedded
        if embedded and (count := self.queue.release_all()):
            notes.append(f"{count} interrupted ingest job(s) queued again")
        needed: set[Path] = set()
        for row in self.queue.active():
            target = self._target(row.collection, row.document_owner)
            for name in row.files:
                needed |= {Path(name).resolve(), (target / Path(name).name).resolve()}
        catalog = self.application.store.catalog
        documents = {Path(d.path).resolve() for c in catalog.collections()
                     for d in catalog.documents(c, status=None)}
        age = 0.0 if embedded else SHARED_LEFTOVER_AGE_S
        notes += remove_leftovers(self.uploads, needed, documents, age)
        for note in notes:
            log.warning("ingest jobs: %s", note)
        return notes

    def _target(self, collection: str, document_owner: str) -> Path:
        return self.uploads / collection / owner_folder(document_owner)

    def staging_dir(self) -> Path:
        """A fresh folder for one upload's files."""
        path = self.uploads / STAGING / uuid.uuid4().hex
        path.mkdir(parents=True)
        return path

    def submit(self, job: Job) -> Job:
        """Queue a job (in the database: any worker may run it)."""
        with self._lock:
            self._local[job.job_id] = job
        self.queue.submit(job.job_id, job.owner, job.collection, job.document_owner,
                          [str(p) for p in job.staged], job.progress())
        self._wake.set()
        return job

    def get(self, job_id: str, owner: str) -> Job | None:
        """A job, only for the owner who submitted it (whichever worker runs it)."""
        with self._lock:
            job = self._local.get(job_id)
        if job is None or job.status == "queued":  # not (yet) run here: as stored
            row = self.queue.get(job_id)
            job = Job.from_row(row) if row is not None else None
        return job if job is not None and job.owner == owner else None

    def refresh(self, job: Job, wait_s: float) -> Job:
        """``job`` after waiting up to ``wait_s`` for its end (as stored, if elsewhere)."""
        if job.done.wait(wait_s):
            return job
        return self.get(job.job_id, job.owner) or job

    def wait(self, job: Job) -> Job:
        """``job`` once it is done or failed, whichever worker ran it."""
        while not (job := self.refresh(job, 0.5)).done.is_set():
            pass
        return job

    # --- the worker ------------------------------------------------------------------------
    def _work(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                row = self.queue.claim()
            except Exception:  # the database is unreachable for now: logged, tried again
                log.exception("could not claim an ingest job")
                row = None
            if row is None:
                self._wake.wait(self._poll_s)
                continue
            with self._lock:
                job = self._local.get(row.job_id)
                if job is None or row.attempts > 1:
                    job = self._local[row.job_id] = _adopt(row, job)
            self._run(job)
            self._forget_old()

    def _run(self, job: Job) -> None:
        job.status = "running"
        job.stage = "ingesting"
        beat = LeaseKeeper(self.queue, job.job_id, job.progress, lambda: job.changes)
        try:
            with self.application.database.held(_uploads_of(job)):
                paths = self._place_files(job)
                if paths:
                    report = self.application.ingest.files(paths, job.collection,
                                                           progress=job.follow)
                    self._settle(job, report.results)
            job.status = job.stage = "done"
        except Exception as exc:  # recorded on the job, and logged with its traceback
            log.exception("ingest job %s failed", job.job_id)
            job.status = job.stage = "failed"
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            beat.stop()
            job.current = None
            try:
                self.queue.finish(job.job_id, job.status, job.progress(), job.error)
            except Exception:  # the lease runs out and another worker finishes it
                log.exception("could not record the end of ingest job %s", job.job_id)
            for folder in {p.parent for p in job.staged}:
                shutil.rmtree(folder, ignore_errors=True)
            job.done.set()

    def _place_files(self, job: Job) -> list[Path]:
        """Move the staged files into place; on a resumed job, skip the files already done."""
        target = self._target(job.collection, job.document_owner)
        target.mkdir(parents=True, exist_ok=True)
        finished = {r.file for r in job.results[job.rejected:]}
        paths = []
        for staged in job.staged:
            final = target / staged.name
            if staged.name in finished:
                continue
            if staged.exists():
                staged.replace(final)
            elif not final.exists():
                job.results.append(FileOutcome(
                    file=staged.name, outcome="failed",
                    reason="the uploaded file was lost before it was ingested; upload it again"))
                continue
            paths.append(final)
        job.resumed = job.files_done = len(job.staged) - len(paths)
        return paths

    def _settle(self, job: Job, results: list[FileResult]) -> None:
        """Give new documents to the uploader; delete files that added no document."""
        store = self.application.store
        mine = []
        for result in results:
            path = Path(result.path)
            if result.outcome in (IngestOutcome.FAILED, IngestOutcome.SKIPPED):
                path.unlink(missing_ok=True)
            elif result.outcome == IngestOutcome.UNCHANGED and result.document_id:
                known = store.get_document(result.document_id, job.collection)
                if known is None or Path(known.path) != path.resolve():
                    path.unlink(missing_ok=True)  # the content is already stored elsewhere
                else:  # this upload's own file (ingested before a worker died)
                    mine.append(result.document_id)
            elif result.document_id:
                mine.append(result.document_id)
        if mine and job.document_owner != ADMIN_OWNER:
            store.catalog.set_owner(job.collection, mine, job.document_owner)

    def _forget_old(self) -> None:
        with self._lock:
            finished = [k for k, j in self._local.items() if j.done.is_set()]
            for key in finished[: max(0, len(finished) - KEPT_JOBS)]:
                del self._local[key]

    def forget_upload(self, record: DocumentRecord) -> None:
        """Delete an uploaded file once its document is removed."""
        path = Path(record.path)
        try:
            path.resolve().relative_to(self.uploads.resolve())
        except ValueError:
            return  # not an upload (ingested from the CLI): leave the user's file alone
        path.unlink(missing_ok=True)

    def close(self) -> None:
        """Finish the running job and stop the worker (queued jobs stay queued)."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()


def _uploads_of(job: Job) -> str:
    """The lock of one owner's upload folder in a collection: its jobs run one at a time."""
    return f"uploads/{job.collection}/{owner_folder(job.document_owner)}"


def _adopt(row: JobRow, mine: Job | None) -> Job:
    """The job to run for a claimed row: the stored state, keeping a local waiter's event."""
    job = Job.from_row(row)
    if mine is not None:
        job.done = mine.done
    return job


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
