"""The HTTP server: one FastAPI app for the API, the OpenAI-compatible endpoint and the web UI.

``create_app(application)`` builds it over one :class:`~archivist.application.Application`;
``archivist serve`` runs it with uvicorn. Routes receive the application's parts through
the typed dependencies of :mod:`archivist.app.api.deps`.

Routes (all JSON; errors are ``{"error": {"type", "message"}}``):

- ``GET /health`` (never needs a key)
- ``GET|POST /v1/documents``, ``DELETE /v1/documents/{ref}``,
  ``GET /v1/documents/jobs/{job_id}``, ``GET /v1/search``
- ``POST|GET /v1/conversations``, ``GET|DELETE /v1/conversations/{id}``,
  ``POST /v1/conversations/{id}/messages`` (JSON), ``POST /v1/conversations/{id}/stream`` (SSE),
  ``GET /v1/conversations/{id}/turns``, ``PATCH /v1/conversations/{id}`` (rename),
  ``POST /v1/conversations/{id}/feedback``, ``GET /v1/conversations/{id}/export``
- ``GET /v1/documents/{id}/passages/{parent_id}``, ``GET /v1/documents/{id}/pages/{n}`` (PNG)
- ``POST /v1/chat/completions``, ``GET /v1/models`` (OpenAI-compatible)
- ``GET /openapi.json``, ``GET /docs``; the web UI at ``/ui``
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from archivist import package_version
from archivist.app.api.auth import KeyChecker, ThreadRegistry, current_owner, key_checker
from archivist.app.api.errors import install_error_handlers
from archivist.app.api.guard import RequestGuard
from archivist.app.api.models import Health
from archivist.app.api.routes import chat, documents, history, local, openai, sources
from archivist.app.api.turns import ChatRunner
from archivist.app.jobs import IngestJobs
from archivist.application import Application
from archivist.sync import FolderSync, SyncThread
from archivist.types import ArchivistError

UI_PATH = "/ui"


def health(request: Request) -> Health:
    """Whether the server is up (never needs a key)."""
    return Health(version=package_version(), auth=request.app.state.keys.enabled)


def add_routes(app: FastAPI) -> None:
    """Every endpoint of the API (what ``create_app`` serves and the reference lists)."""
    app.get("/health", response_model=Health, tags=["server"], summary="Health check")(health)
    for router in (documents.router, chat.router, history.router, sources.router,
                   openai.router, local.router):
        app.include_router(router)


def create_app(
    application: Application,
    *,
    ui: bool = True,
    close_application: bool = False,
    keys: KeyChecker | None = None,
    ingest: bool = True,
) -> FastAPI:
    """The server app over ``application`` (closed with the server if ``close_application``).

    ``ui=False`` leaves the Gradio UI out; ``keys`` replaces the settings' API keys;
    ``ingest=False`` queues uploads without running them (``archivist worker`` does).
    """
    settings = application.settings
    registry = ThreadRegistry(application.database)
    jobs = IngestJobs(application, run=ingest)
    for folder in settings.server.sync_folder_list:
        if not folder.is_dir():
            raise ArchivistError(f"{folder}: a sync folder that is not a folder (sync_folders)")
    turns = application.turns

    @asynccontextmanager
    async def lifespan(running: FastAPI) -> AsyncIterator[None]:
        watcher = None
        if settings.server.sync_folder_list:
            folders = FolderSync(application, settings.server.sync_folder_list, settings.collection)
            watcher = SyncThread(folders, settings.server.sync_interval_s).start()
        try:
            yield
        finally:
            if watcher is not None:
                watcher.stop()
            for hook in running.state.shutdown_hooks:
                hook()
            jobs.close()
            if close_application:
                application.close()

    app = FastAPI(
        title="Archivist",
        version=package_version(),
        summary="Ask questions about your documents; answers cite the pages they came from.",
        description=(
            "When the server has API keys (`ARCHIVIST_SERVER__API_KEYS`), every endpoint except "
            "`GET /health` needs `Authorization: Bearer <key>`, and each key sees only its "
            "own conversations. Errors are JSON: `{\"error\": {\"type\", \"message\"}}`."
        ),
        lifespan=lifespan,
        docs_url=None,
        openapi_url=None,
        redoc_url=None,
    )
    app.state.application = application
    app.state.keys = keys if keys is not None else key_checker(settings)
    app.state.jobs = jobs
    app.state.turns = turns
    app.state.chat = ChatRunner(lambda: application.agent, registry, turns)
    app.state.started = time.time()
    app.state.shutdown_hooks = []  # run first when the server stops
    install_error_handlers(app)
    app.add_middleware(
        RequestGuard, keys=app.state.keys, trusted_hosts=settings.server.trusted_host_list,
        upload_limit=settings.server.max_upload_mb * 1024 * 1024,
    )

    add_routes(app)

    @app.get("/openapi.json", include_in_schema=False, dependencies=[Depends(current_owner)])
    def openapi_schema() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="Archivist API")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse(UI_PATH if ui else "/docs")

    if ui:
        from archivist.app.ui.web import mount_ui

        mount_ui(app, application, UI_PATH)
    return app

