"""``/v1/documents`` and ``/v1/search``: upload (as an ingest job), list, delete, search.

Uploads are written to a staging folder and submitted as a job to
:class:`~archivist.app.jobs.IngestJobs`; ``GET /v1/documents/jobs/{id}`` shows its progress.
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from pathlib import Path
from typing import IO, Annotated

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from archivist.app.api.auth import Caller, CallerDep, Owner
from archivist.app.api.deps import AppDep, JobsDep
from archivist.app.api.errors import ApiError
from archivist.app.api.models import (
    ERROR_RESPONSES,
    DocumentList,
    DocumentOut,
    ErrorBody,
    FileOutcome,
    IngestJob,
    SearchHitOut,
    SearchResults,
)
from archivist.app.api.multipart import UPLOAD_BODY, stream_files
from archivist.app.jobs import Job
from archivist.app.upload_names import safe_name
from archivist.collection_names import COLLECTION_PATTERN
from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.index.search import SearchRequest
from archivist.types import FILING_FIELDS, DocumentRecord

log = logging.getLogger(__name__)


CollectionQuery = Annotated[
    str | None, Query(pattern=COLLECTION_PATTERN, description="Collection (default: the server's).")
]


def document_out(record: DocumentRecord, caller: Caller) -> DocumentOut:
    """The API view of a catalog row, as ``caller`` sees it."""
    return DocumentOut(
        document_id=record.document_id,
        name=record.name,
        collection=record.collection,
        pages=record.page_count,
        parents=record.parent_count,
        chunks=record.child_count,
        size_bytes=record.size_bytes,
        added_at=record.added_at,
        mine=record.owner == caller.document_owner,
        **{name: getattr(record, name) for name in FILING_FIELDS},
    )


router = APIRouter(tags=["documents"], responses=ERROR_RESPONSES)

@router.get("/v1/documents", response_model=DocumentList, summary="List documents")
def list_documents(application: AppDep, caller: CallerDep, collection: CollectionQuery = None
                   ) -> DocumentList:
    """Every searchable document in a collection."""
    name = collection or application.settings.collection
    caller.check_collection(name)
    documents = [document_out(d, caller) for d in application.store.documents(name)]
    return DocumentList(collection=name, documents=documents)

@router.post(
    "/v1/documents",
    response_model=IngestJob,
    status_code=202,
    openapi_extra=UPLOAD_BODY,
    summary="Upload documents",
    responses={
        200: {"model": IngestJob, "description": "With ?wait=true: the finished job."},
        403: {"model": ErrorBody, "description": "A read-only key, or no access to the "
                                                 "collection."},
        413: {"model": ErrorBody, "description": "The upload is too large."},
        415: {"model": ErrorBody, "description": "No file of a supported type."},
    },
)
async def upload(
    application: AppDep,
    jobs: JobsDep,
    caller: CallerDep,
    request: Request,
    collection: CollectionQuery = None,
    wait: Annotated[bool, Query(description="Answer when the ingest is done.")] = False,
) -> JSONResponse:
    """Upload files (multipart field ``files``) and ingest them as a job.

    Answers 202 with the job at once (poll ``/v1/documents/jobs/{job_id}``), or 200 with
    the finished job when ``wait=true``. Unsupported files are skipped with a reason,
    unreadable ones fail with a reason; the rest of the batch is ingested. Each file is
    written once, straight from the request into the upload's staging folder.
    """
    limit_mb = application.settings.server.max_upload_mb
    max_files = application.settings.server.max_upload_files
    name = collection or application.settings.collection
    caller.check_write(name)
    job = Job(uuid.uuid4().hex[:16], caller.owner, name, staged=[],
              document_owner=caller.document_owner)
    staging = jobs.staging_dir()
    used: set[str] = set()
    counted = _Counted(limit_mb)

    def open_file(original: str) -> _Limited | None:
        if len(job.staged) + len(job.results) >= max_files:
            raise ApiError(413, "too_many_files",
                           f"an upload holds at most {max_files:,} files", limit=max_files)
        filename = safe_name(original)
        if Path(filename).suffix.lower() not in SUPPORTED_SUFFIXES:
            kind = Path(filename).suffix or "(no extension)"
            supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
            job.results.append(FileOutcome(
                file=filename, outcome="skipped",
                reason=f"unsupported file type '{kind}' (supported: {supported})",
            ))
            return None
        destination = staging / _unique(filename, used)
        job.staged.append(destination)
        return counted.wrap(destination.open("wb"))

    try:
        await stream_files(request, open_file)
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
        job = await run_in_threadpool(jobs.wait, job)
        return JSONResponse(job.view().model_dump(), status_code=200)
    return JSONResponse(
        job.view().model_dump(), status_code=202,
        headers={"Location": f"/v1/documents/jobs/{job.job_id}"},
    )

@router.get("/v1/documents/jobs/{job_id}", response_model=IngestJob,
            summary="Ingestion progress",
            responses={404: {"model": ErrorBody, "description": "No such job."}})
def job_status(jobs: JobsDep, owner: Owner, job_id: str) -> IngestJob:
    """An upload's progress: files done, the current file, each file's outcome."""
    job = jobs.get(job_id, owner)
    if job is None:
        raise ApiError(404, "not_found", f"no ingest job {job_id}")
    return job.view()

@router.delete(
    "/v1/documents/{ref}", response_model=DocumentOut, summary="Delete a document",
    responses={403: {"model": ErrorBody, "description": "Owned by another key."},
               404: {"model": ErrorBody, "description": "No such document."},
               409: {"model": ErrorBody, "description": "Several documents match."}},
)
def delete_document(application: AppDep, jobs: JobsDep, caller: CallerDep, ref: str,
                    collection: CollectionQuery = None) -> DocumentOut:
    """Remove one document (by id, id prefix or file name) and everything indexed from it.

    Admin keys may delete any document, other keys only those they uploaded (403).
    """
    name = collection or application.settings.collection
    caller.check_write(name)
    record = application.store.resolve(ref, name)
    if not caller.may_change(record.owner):
        raise ApiError(403, "forbidden",
                       f"{record.name} belongs to another key; only its owner or an admin "
                       "key may delete it")
    record = application.store.remove(record.document_id, name)
    jobs.forget_upload(record)
    return document_out(record, caller)

@router.get("/v1/search", response_model=SearchResults, summary="Search", tags=["search"])
def search(
    application: AppDep, caller: CallerDep, request: Annotated[SearchRequest, Query()]
) -> SearchResults:
    """The best matching chunks, each with its document, pages and heading path.

    ``k`` and ``mode`` default to the server's ``search_k`` and ``search_mode`` settings.
    ``where`` (repeatable, ``where=company=Amcor&where=form=10-K``) searches only the
    documents whose filing metadata matches every filter.
    """
    name = application.store.collection_name(request.collection)
    caller.check_collection(name)
    started = time.perf_counter()
    hits = application.searcher.run(request)
    log.debug("search %r: %d hits in %.3fs", request.query, len(hits),
              time.perf_counter() - started)
    return SearchResults(query=request.query, collection=name,
                         hits=[SearchHitOut(**h.to_dict()) for h in hits])


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 1
    stem, dot, suffix = name.rpartition(".")
    while candidate.lower() in used:
        n += 1
        candidate = f"{stem} ({n}).{suffix}" if dot else f"{name} ({n})"
    used.add(candidate.lower())
    return candidate


class _Counted:
    """Staging files that count what is written to them and stop at the upload limit."""

    def __init__(self, limit_mb: int) -> None:
        self.limit_mb = limit_mb
        self.left = limit_mb * 1024 * 1024

    def wrap(self, out: IO[bytes]) -> _Limited:
        return _Limited(out, self)


class _Limited:
    """One staging file, writing against its upload's byte budget."""

    def __init__(self, out: IO[bytes], budget: _Counted) -> None:
        self.out, self.budget = out, budget

    def write(self, data: bytes) -> int:
        self.budget.left -= len(data)
        if self.budget.left < 0:
            limit = self.budget.limit_mb
            raise ApiError(413, "too_large", f"the upload is larger than {limit} MB",
                           limit_mb=limit)
        return self.out.write(data)

    def close(self) -> None:
        self.out.close()
