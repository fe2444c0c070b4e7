"""The HTTP server: one FastAPI app for the API, the OpenAI-compatible endpoint and the web UI.

``create_app(settings, library)`` builds it; ``archivist serve`` runs it with uvicorn.
Everything goes through the :class:`~archivist.library.Library` facade and the agent service.

Routes (all JSON; errors are ``{"error": {"type", "message"}}``):

- ``GET /health`` (never needs a key)
- ``GET|POST /v1/documents``, ``DELETE /v1/documents/{ref}``,
  ``GET /v1/documents/jobs/{job_id}``, ``GET /v1/search``
- ``POST|GET /v1/conversations``, ``GET|DELETE /v1/conversations/{id}``,
  ``POST /v1/conversations/{id}/messages`` (JSON), ``POST /v1/conversations/{id}/stream`` (SSE)
- ``POST /v1/chat/completions``, ``GET /v1/models`` (OpenAI-compatible)
- ``GET /openapi.json``, ``GET /docs``; the web UI at ``/ui``
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from langchain_core.language_models import BaseChatModel

from archivist.agent.service import AgentService, agent_service
from archivist.app import api_chat, api_documents, api_openai
from archivist.app.api_auth import ThreadRegistry, current_owner, key_checker
from archivist.app.api_documents import IngestJobs
from archivist.app.api_errors import install_error_handlers
from archivist.app.api_guard import RequestGuard
from archivist.app.api_models import Health
from archivist.library import Library
from archivist.settings import Settings

UI_PATH = "/ui"


def package_version() -> str:
    """Archivist's installed version."""
    try:
        return version("archivist")
    except PackageNotFoundError:
        return "0+unknown"


def create_app(
    settings: Settings,
    library: Library | None = None,
    *,
    llm: BaseChatModel | None = None,
    ui: bool = True,
) -> FastAPI:
    """The server app. Opens (and later closes) its own library unless one is given.

    ``llm`` injects a chat model into the agent service (tests only; the HTTP surface has
    no way to change the model). ``ui=False`` leaves the Gradio UI out.
    """
    owns_library = library is None
    lib = library if library is not None else Library(settings)
    if llm is not None:
        lib.extension("agent", lambda created: AgentService(created, llm))
    registry = ThreadRegistry(settings.data_dir / "server.sqlite")
    jobs = IngestJobs(lib)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            jobs.close()
            registry.close()
            if owns_library:
                lib.close()

    app = FastAPI(
        title="Archivist",
        version=package_version(),
        summary="Ask questions about your documents; answers cite the pages they came from.",
        description=(
            "When the server has API keys (`ARCHIVIST_API_KEYS`), every endpoint except "
            "`GET /health` needs `Authorization: Bearer <key>`, and each key sees only its "
            "own conversations. Errors are JSON: `{\"error\": {\"type\", \"message\"}}`."
        ),
        lifespan=lifespan,
        docs_url=None,
        openapi_url=None,
        redoc_url=None,
    )
    app.state.library = lib
    app.state.settings = settings
    app.state.keys = key_checker(settings)
    app.state.jobs = jobs
    app.state.chat = api_chat.ChatRunner(lambda: agent_service(lib), registry)
    app.state.started = time.time()
    install_error_handlers(app)
    app.add_middleware(
        RequestGuard, keys=app.state.keys, trusted_hosts=settings.trusted_host_list,
        upload_limit=settings.max_upload_mb * 1024 * 1024,
    )

    @app.get("/health", response_model=Health, tags=["server"], summary="Health check")
    def health(request: Request) -> Health:
        """Whether the server is up (never needs a key)."""
        return Health(version=package_version(), auth=request.app.state.keys.enabled)

    app.include_router(api_documents.build_router())
    app.include_router(api_chat.build_router())
    app.include_router(api_openai.build_router())

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
        from archivist.app.ui import mount_ui

        mount_ui(app, lib, settings, UI_PATH)
    return app


def openapi_of(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI schema (for tests and tools)."""
    return app.openapi()
