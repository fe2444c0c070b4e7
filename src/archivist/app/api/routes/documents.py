"""``/v1/documents`` and ``/v1/search``: upload (as an ingest job), list, delete, search.

Uploads are written to a staging folder, then one worker thread ingests each job in turn:
it moves the files to ``data_dir/uploads/<collection>/<name>`` (so a new upload of a file
with the same name replaces the old version) and calls ``Library.ingest``, recording each
file's outcome as it goes. ``GET /v1/documents/jobs/{id}`` shows that progress.
"""

from __future__ import annotations

import logging
import re
import shutil
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from archivist.app.api_auth import Owner
from archivist.app.api_errors import ApiError
from archivist.app.api_models import (
    COLLECTION_PATTERN,
    ERROR_RESPONSES,
    DocumentList,
    DocumentOut,
    ErrorBody,
    FileOutcome,
    IngestJob,
    SearchHitOut,
    SearchResults,
)
from archivist.app.limits import QUERY_MAX_CHARS
from archivist.documents.ingest import IngestProgress
from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.library import Library
from archivist.settings import SearchMode
from archivist.types import DocumentRecord, FileResult, IngestOutcome

log = logging.getLogger(__name__)

KEPT_JOBS = 200
_CHUNK = 1024 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._ ()+-]+")

CollectionQuery = Annotated[
    str | None, Query(pattern=COLLECTION_PATTERN, description="Collection (default: the server's).")
]


def safe_name(original: str | None) -> str:
    """A file name safe to store: no folders, no odd characters, not hidden, not too long."""
    base = (original or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip(" .")
    if not base:
        return "upload"
    stem, dot, suffix = base.rpartition(".")
    if dot and stem and len(suffix) <= 10:
        return f"{stem[:100]}.{suffix.lower()}"
    return base[:110]


def document_out(record: DocumentRecord) -> DocumentOut:
    """The API view of a catalog row."""
    return DocumentOut(
        document_id=record.document_id,
        name=record.name,
        collection=record.collection,
        pages=record.page_count,
        parents=record.parent_count,
        chunks=record.child_count,
        size_bytes=record.size_bytes,
        added_at=record.added_at,
    )


@dataclass
class Job:
    """One upload's ingest, observable while it runs."""

    job_id: str
    owner: str
    collection: str
    staged: list[Path]
    results: list[FileOutcome] = field(default_factory=list)
    status: str = "queued"
    files_done: int = 0
    current: str | None = None
    error: str | None = None
    rejected: int = 0
    done: threading.Event = field(default_factory=threading.Event)

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
        )



class IngestJobs:
    """Runs upload jobs one at a time on a worker thread and keeps the recent ones."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.uploads = library.settings.data_dir / "uploads"
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
        staging = job.staged[0].parent if job.staged else None
        try:
            target = self.uploads / job.collection
            target.mkdir(parents=True, exist_ok=True)
            paths = []
            for staged in job.staged:
                final = target / staged.name
                staged.replace(final)
                paths.append(final)

            def on_file(event: IngestProgress) -> None:
                job.files_done = event.files_done
                job.current = Path(event.path).name
                if event.result is not None:
                    job.results.append(_outcome(event.result.path, event.result))

            report = self.library.ingest(paths, job.collection, progress=on_file)
            for result in report.results:
                if result.outcome in (IngestOutcome.FAILED, IngestOutcome.SKIPPED):
                    Path(result.path).unlink(missing_ok=True)
            job.status = "done"
        except Exception as exc:  # recorded on the job, and logged with its traceback
            log.exception("ingest job %s failed", job.job_id)
            job.status = "failed"
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            job.current = None
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            job.done.set()

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


def build_router() -> APIRouter:
    """The documents and search routes."""
    router = APIRouter(tags=["documents"], responses=ERROR_RESPONSES)

    def lib(request: Request) -> Library:
        library: Library = request.app.state.library
        return library

    @router.get("/v1/documents", response_model=DocumentList, summary="List documents")
    def list_documents(request: Request, _owner: Owner, collection: CollectionQuery = None
                       ) -> DocumentList:
        """Every searchable document in a collection."""
        library = lib(request)
        name = collection or library.settings.collection
        documents = [document_out(d) for d in library.list(name)]
        return DocumentList(collection=name, documents=documents)

    @router.post(
        "/v1/documents",
        response_model=IngestJob,
        status_code=202,
        summary="Upload documents",
        responses={
            200: {"model": IngestJob, "description": "With ?wait=true: the finished job."},
            413: {"model": ErrorBody, "description": "The upload is too large."},
            415: {"model": ErrorBody, "description": "No file of a supported type."},
        },
    )
    async def upload(
        request: Request,
        owner: Owner,
        files: Annotated[list[UploadFile], File(description="One or more files (field `files`).")],
        collection: CollectionQuery = None,
        wait: Annotated[bool, Query(description="Answer when the ingest is done.")] = False,
    ) -> JSONResponse:
        """Upload files (multipart field ``files``) and ingest them as a job.

        Answers 202 with the job at once (poll ``/v1/documents/jobs/{job_id}``), or 200 with
        the finished job when ``wait=true``. Unsupported files are skipped with a reason,
        unreadable ones fail with a reason; the rest of the batch is ingested.
        """
        library = lib(request)
        jobs: IngestJobs = request.app.state.jobs
        limit = library.settings.max_upload_mb * 1024 * 1024
        name = collection or library.settings.collection
        job = Job(uuid.uuid4().hex[:16], owner, name, staged=[])
        staging = jobs.staging_dir()
        total = 0
        used: set[str] = set()
        try:
            for upload_file in files:
                filename = safe_name(upload_file.filename)
                if Path(filename).suffix.lower() not in SUPPORTED_SUFFIXES:
                    kind = Path(filename).suffix or "(no extension)"
                    supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
                    job.results.append(FileOutcome(
                        file=filename, outcome="skipped",
                        reason=f"unsupported file type '{kind}' (supported: {supported})",
                    ))
                    continue
                filename = _unique(filename, used)
                destination = staging / filename
                with destination.open("wb") as out:
                    while chunk := await upload_file.read(_CHUNK):
                        total += len(chunk)
                        if total > limit:
                            raise ApiError(
                                413, "too_large",
                                f"the upload is larger than {library.settings.max_upload_mb} MB",
                                limit_mb=library.settings.max_upload_mb,
                            )
                        out.write(chunk)
                job.staged.append(destination)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if not job.staged:
            shutil.rmtree(staging, ignore_errors=True)
            reasons = "; ".join(f"{r.file}: {r.reason}" for r in job.results) or "no files"
            raise ApiError(415, "unsupported_media_type", f"nothing to ingest: {reasons}",
                           results=[r.model_dump() for r in job.results])
        job.rejected = len(job.results)
        jobs.submit(job)
        if wait:
            await run_in_threadpool(job.done.wait)
            return JSONResponse(job.view().model_dump(), status_code=200)
        return JSONResponse(
            job.view().model_dump(), status_code=202,
            headers={"Location": f"/v1/documents/jobs/{job.job_id}"},
        )

    @router.get("/v1/documents/jobs/{job_id}", response_model=IngestJob,
                summary="Ingestion progress",
                responses={404: {"model": ErrorBody, "description": "No such job."}})
    def job_status(request: Request, owner: Owner, job_id: str) -> IngestJob:
        """An upload's progress: files done, the current file, each file's outcome."""
        jobs: IngestJobs = request.app.state.jobs
        job = jobs.get(job_id, owner)
        if job is None:
            raise ApiError(404, "not_found", f"no ingest job {job_id}")
        return job.view()

    @router.delete(
        "/v1/documents/{ref}", response_model=DocumentOut, summary="Delete a document",
        responses={404: {"model": ErrorBody, "description": "No such document."},
                   409: {"model": ErrorBody, "description": "Several documents match."}},
    )
    def delete_document(request: Request, _owner: Owner, ref: str,
                        collection: CollectionQuery = None) -> DocumentOut:
        """Remove one document (by id, id prefix or file name) and everything indexed from it."""
        library = lib(request)
        record = library.remove(ref, collection)
        jobs: IngestJobs = request.app.state.jobs
        jobs.forget_upload(record)
        return document_out(record)

    @router.get("/v1/search", response_model=SearchResults, summary="Search", tags=["search"])
    def search(
        request: Request,
        _owner: Owner,
        q: Annotated[str, Query(min_length=1, max_length=QUERY_MAX_CHARS,
                                description="What to look for.")],
        k: Annotated[int, Query(ge=1, le=50, description="How many hits.")] = 5,
        mode: Annotated[SearchMode, Query(description="hybrid, bm25 or dense.")] = "hybrid",
        collection: CollectionQuery = None,
    ) -> SearchResults:
        """The best matching chunks, each with its document, pages and heading path."""
        library = lib(request)
        name = collection or library.settings.collection
        started = time.perf_counter()
        hits = library.search(q, k=k, mode=mode, collection=name)
        log.debug("search %r: %d hits in %.3fs", q, len(hits), time.perf_counter() - started)
        return SearchResults(query=q, collection=name, hits=[
            SearchHitOut(
                document_id=h.document_id, document_name=h.document_name, pages=h.pages,
                page_start=h.page_start, page_end=h.page_end, heading_path=h.heading_path,
                text=h.text, score=h.score, parent_id=h.parent_id, child_id=h.child_id,
            )
            for h in hits
        ])

    return router


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 1
    stem, dot, suffix = name.rpartition(".")
    while candidate.lower() in used:
        n += 1
        candidate = f"{stem} ({n}).{suffix}" if dot else f"{name} ({n})"
    used.add(candidate.lower())
    return candidate
