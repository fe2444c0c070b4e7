"""``/v1/local/*``: what the CLI on the server's own machine needs beyond the public API.

Only callers that send the token from ``server.json`` (readable only by the library's
owner) as their bearer key reach these routes; the same token passes the key check of
every other route as the admin ``local``. Without it these routes answer 404, as if absent.

- ``GET /v1/local/library``: which data directory this server holds (the CLI's check)
- ``POST /v1/local/ingest``: ingest files and folders by path, as ``archivist ingest`` does,
  streaming one JSON line per file (``progress``) and then the ``report``
- ``GET /v1/local/collections``: every collection and its document count (``collections``)
- ``GET /v1/local/documents/{ref}``: a document by id prefix, name or path, with its parents
  and children (``show``)
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from archivist.app.api.auth import KeyChecker
from archivist.app.api.deps import AppDep
from archivist.app.api.errors import ApiError
from archivist.app.api.models import COLLECTION_PATTERN
from archivist.application import Application
from archivist.ingest_progress import IngestProgress
from archivist.types import ArchivistError

log = logging.getLogger(__name__)


class LocalIngest(BaseModel):
    """Paths on the server's machine (absolute), and the collection to ingest into."""

    paths: list[str] = Field(min_length=1)
    collection: str | None = Field(default=None, pattern=COLLECTION_PATTERN)


def _require_token(request: Request) -> None:
    keys: KeyChecker = request.app.state.keys
    if not keys.is_local(request.headers.get("authorization")):
        raise ApiError(404, "not_found", "not found")


def ingest_lines(
    application: Application, paths: list[Path], collection: str | None
) -> Iterator[str]:
    """Run one ingest on a worker thread; its progress and report as JSON lines."""
    events: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def on_file(event: IngestProgress) -> None:
        line = asdict(event)
        line["type"] = "progress"
        events.put(line)

    def work() -> None:
        try:
            report = application.ingest.files(paths, collection, progress=on_file)
            events.put({"type": "report", "results": [asdict(r) for r in report.results]})
        except ArchivistError as exc:
            events.put({"type": "error", "kind": type(exc).__name__, "message": str(exc)})
        except Exception as exc:  # logged with its traceback; the client gets one line
            log.exception("local ingest failed")
            events.put({"type": "error", "kind": "", "message": f"{type(exc).__name__}: {exc}"})
        finally:
            events.put(None)

    threading.Thread(target=work, name="archivist-local-ingest", daemon=True).start()
    while (item := events.get()) is not None:
        yield json.dumps(item, default=str) + "\n"


router = APIRouter(prefix="/v1/local", include_in_schema=False)


@router.get("/library")
def library_info(request: Request, application: AppDep) -> dict[str, Any]:
    """Which data directory this server holds."""
    _require_token(request)
    return {"data_dir": str(application.settings.data_dir.resolve())}


@router.post("/ingest")
def ingest(request: Request, application: AppDep, body: LocalIngest) -> StreamingResponse:
    """Ingest paths on this machine; progress and the report as JSON lines."""
    _require_token(request)
    paths = [Path(p) for p in body.paths]
    if not all(p.is_absolute() for p in paths):
        raise ApiError(422, "invalid_request", "paths must be absolute")
    return StreamingResponse(
        ingest_lines(application, paths, body.collection), media_type="application/x-ndjson"
    )


@router.get("/collections")
def collections(request: Request, application: AppDep) -> dict[str, Any]:
    """Every collection of the library with its number of ready documents."""
    _require_token(request)
    store = application.store
    return {
        "collections": [
            {"name": name, "documents": len(store.documents(name))}
            for name in store.collections()
        ]
    }


@router.get("/documents/{ref}")
def document_chunks(
    request: Request,
    application: AppDep,
    ref: str,
    collection: Annotated[str | None, Query(pattern=COLLECTION_PATTERN)] = None,
    children: bool = True,
) -> dict[str, Any]:
    """A document (its whole catalog row), its parents and, unless not asked, its children."""
    _require_token(request)
    store = application.store
    record = store.resolve(ref, collection)  # UnknownDocument / AmbiguousDocument: 404 / 409
    return {
        "document": asdict(record),
        "parents": [asdict(p) for p in store.parents_of(record.document_id, collection)],
        "children": [asdict(c) for c in store.children_of(record.document_id, collection)]
        if children
        else [],
    }
