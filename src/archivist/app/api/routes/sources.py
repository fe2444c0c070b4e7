"""What a citation opens: the section a passage came from, and a PDF page as a picture.

``GET /v1/documents/{id}/passages/{parent_id}`` gives the section's text with its heading
path and pages; ``GET /v1/documents/{id}/pages/{n}`` renders page ``n`` of a PDF as a PNG,
marking ``?highlight=<text>`` where it appears on the page. At most ``RENDER_SLOTS``
pages render at once (a request waits up to ``RENDER_WAIT_S`` for a slot, then gets 503),
and recent renders are answered from a small cache.
"""

from __future__ import annotations

import asyncio
from pathlib import Path as FilePath
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import BaseModel, Field

from archivist.app.api.auth import Caller, CallerDep
from archivist.app.api.errors import ApiError
from archivist.app.api.models import COLLECTION_PATTERN, ERROR_RESPONSES, ErrorBody
from archivist.application import Application
from archivist.documents.pages import PageOutOfRange, RenderCache, render_page
from archivist.index.store import DocumentStore
from archivist.types import (
    DocumentRecord,
    LoadError,
    document_title,
    format_pages,
)

DocumentId = Annotated[str, Path(pattern=r"^[0-9a-f]{4,64}$", description="A document id.")]
RENDER_SLOTS = 2
RENDER_WAIT_S = 30.0
CollectionQuery = Annotated[
    str | None, Query(pattern=COLLECTION_PATTERN, description="Collection (default: the server's).")
]


class Passage(BaseModel):
    """A section of a document, with where it is."""

    document_id: str
    document_name: str
    parent_id: str
    position: int
    heading_path: list[str]
    page_start: int | None
    page_end: int | None
    pages: str
    location: str = Field(description=(
        "Where it is, as citations say it: its pages, else its section (``§ Install › "
        "Linux``); a section before any heading is named after the document's title."))
    text: str


def _document(
    store: DocumentStore, caller: Caller, document_id: str, collection: str | None
) -> DocumentRecord:
    caller.check_collection(store.collection_name(collection))
    record = store.get_document(document_id, collection)
    if record is None:
        raise ApiError(404, "not_found", f"no document {document_id} in this collection")
    return record


def build_router() -> APIRouter:
    """The passage and page routes."""
    router = APIRouter(prefix="/v1/documents", tags=["documents"], responses={
        **ERROR_RESPONSES, 404: {"model": ErrorBody, "description": "No such document or part."}
    })
    slots = asyncio.Semaphore(RENDER_SLOTS)
    cache = RenderCache()

    @router.get("/{document_id}/passages/{parent_id}", response_model=Passage,
                summary="A section of a document")
    def passage(
        request: Request, caller: CallerDep, document_id: DocumentId,
        parent_id: Annotated[str, Path(max_length=100)], collection: CollectionQuery = None,
    ) -> Passage:
        """The section (parent chunk) a cited passage came from, with its heading path and pages."""
        application: Application = request.app.state.application
        store = application.store
        record = _document(store, caller, document_id, collection)
        parent = store.get_parent(parent_id, collection)
        if parent is None or parent.document_id != record.document_id:
            raise ApiError(404, "not_found", f"{record.name} has no section {parent_id}")
        return Passage(
            document_id=record.document_id, document_name=record.name, parent_id=parent_id,
            position=parent.position, heading_path=parent.heading_path,
            page_start=parent.page_start, page_end=parent.page_end,
            pages=format_pages(parent.page_start, parent.page_end), text=parent.text,
            location=parent.location(document_title(record.title, record.name)),
        )

    @router.get(
        "/{document_id}/pages/{page}", summary="A PDF page as a PNG",
        response_class=Response,
        responses={200: {"content": {"image/png": {}}, "description": "The rendered page."},
                   410: {"model": ErrorBody, "description": "The file is no longer there."},
                   422: {"model": ErrorBody, "description": "No pages, or not drawable."},
                   503: {"model": ErrorBody, "description": "Too many pages rendering."}},
    )
    async def page(
        request: Request, caller: CallerDep, document_id: DocumentId,
        page: Annotated[int, Path(ge=1, le=100_000)],
        highlight: Annotated[str, Query(max_length=5000, description="Text to mark.")] = "",
        collection: CollectionQuery = None,
    ) -> Response:
        """Page ``page`` (from 1) of a PDF, with ``highlight`` marked wherever it appears.

        The header ``X-Highlights`` says how many runs of the text were found and marked.
        """
        application: Application = request.app.state.application
        store = application.store
        record = _document(store, caller, document_id, collection)
        path = FilePath(record.path)
        if path.suffix.lower() != ".pdf":
            raise ApiError(422, "not_paged", f"{record.name} is not a PDF; open its passages")
        if not path.is_file():
            raise ApiError(410, "gone", f"{record.name} is no longer where it was ingested from")
        key = (record.content_hash, page, highlight)
        rendered = cache.get(key)
        hit = rendered is not None
        if rendered is None:
            try:
                await asyncio.wait_for(slots.acquire(), RENDER_WAIT_S)
            except TimeoutError:
                raise ApiError(503, "busy", "too many pages are rendering; try again",
                               headers={"Retry-After": "5"}) from None
            try:
                rendered = await run_in_threadpool(render_page, path, page, highlight)
            except PageOutOfRange as exc:
                raise ApiError(404, "not_found", str(exc)) from exc
            except LoadError as exc:
                raise ApiError(422, "unreadable", str(exc)) from exc
            finally:
                slots.release()
            cache.put(key, rendered)
        return Response(rendered.png, media_type="image/png", headers={
            "X-Highlights": str(rendered.highlights), "X-Page-Count": str(rendered.page_count),
            "X-Render-Cache": "hit" if hit else "miss", "Cache-Control": "private, max-age=300",
        })

    return router


router = build_router()
