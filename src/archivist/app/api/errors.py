"""Every error the HTTP API returns is JSON: ``{"error": {"type", "message", ...}}``.

The shape is OpenAI's, so OpenAI SDKs show the message. Bad input is always a 4xx; a 5xx
means the server (or its LLM) failed, never the request.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from archivist.types import AmbiguousDocument, ArchivistError, IndexMismatch, UnknownDocument

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error with its HTTP status, a short machine ``kind`` and a user-facing message."""

    def __init__(
        self,
        status: int,
        kind: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers
        self.extra = extra


def error_body(kind: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of an error."""
    return {"error": {"type": kind, "code": kind, "message": message, **extra}}


def error_response(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """A JSON error response."""
    return JSONResponse(error_body(kind, message, **extra), status_code=status, headers=headers)


def _status_of(exc: ArchivistError) -> tuple[int, str]:
    if isinstance(exc, UnknownDocument):
        return 404, "not_found"
    if isinstance(exc, AmbiguousDocument):
        return 409, "ambiguous"
    if isinstance(exc, IndexMismatch):
        return 409, "index_mismatch"
    return 400, "bad_request"


def install_error_handlers(app: FastAPI) -> None:
    """Turn every exception into a JSON error with the right status."""

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.kind, exc.message, exc.headers, **exc.extra)

    @app.exception_handler(ArchivistError)
    async def _archivist_error(_request: Request, exc: ArchivistError) -> JSONResponse:
        status, kind = _status_of(exc)
        return error_response(status, kind, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg", "")),
                "type": str(e.get("type", "")),
            }
            for e in exc.errors()
        ]
        summary = "; ".join(f"{'.'.join(p['loc'])}: {p['msg']}" for p in problems)
        return error_response(422, "invalid_request", f"invalid request: {summary}",
                              details=problems)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error"
        )
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, kind, str(exc.detail), headers)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected server error")
        return error_response(
            500, "internal_error", f"internal error: {type(exc).__name__} (see the server log)"
        )
