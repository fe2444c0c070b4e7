"""What every HTTP request passes before the server reads a byte of its body.

In this order, each refusal a JSON error:

1. the ``Host`` header names a trusted host (``trusted_hosts``), so a DNS-rebinding page
   cannot talk to a server on localhost (400);
2. a state-changing request (POST, PUT, PATCH, DELETE) sent by a browser page of another
   origin is refused (403): its ``Origin`` must be the server's own;
3. with API keys, ``/v1/...`` and ``/openapi.json`` need a valid key (401), checked from the
   headers alone;

   a refusal above comes before any byte of the body is read, and it says
   ``Connection: close`` and closes the connection, so a client that keeps streaming its
   body is cut off instead of read to the end;
4. the body is counted as it is read, and reading stops at the limit (413): uploads
   (``POST /v1/documents`` and the web UI's) may reach ``max_upload_mb``, every other body
   ``JSON_BODY_LIMIT``. A declared ``Content-Length`` over the limit is refused unread; a
   chunked body is refused as soon as the running count passes it, so no more than the
   limit is ever spooled to disk; the 413 closes the connection too, as does any answer
   sent before the whole body was read (a malformed upload's 400, for one).

No answer carries CORS headers (``Access-Control-*``): Gradio adds them to ``/ui/*`` for
any localhost origin, with credentials, and they are removed on the way out.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from archivist.app.api.auth import KeyChecker
from archivist.app.api.errors import ApiError, error_response

JSON_BODY_LIMIT = 1024 * 1024
MULTIPART_SLACK = 64 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
UPLOAD_PREFIXES = ("/ui/",)


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a body passes its limit.

    An ``HTTPException``, so FastAPI passes it on instead of calling it a parse error.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {_size(limit)}")
        self.limit = limit


def _size(limit: int) -> str:
    mb = limit / (1024 * 1024)
    return f"{mb:g} MB" if mb >= 1 else f"{limit // 1024} KB"


def host_name(host_header: str) -> str:
    """The host part of a ``Host`` header or URL netloc (no port, no brackets, lower case)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host


class RequestGuard:
    """ASGI middleware enforcing the checks above before the app sees the request."""

    def __init__(
        self, app: ASGIApp, *, keys: KeyChecker, trusted_hosts: list[str], upload_limit: int
    ) -> None:
        self.app = app
        self.keys = keys
        self.any_host = "*" in trusted_hosts
        self.trusted = {h.lower().strip("[]") for h in trusted_hosts}
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse what fails a check; pass the rest on with a counted body."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            self._check_host(headers)
            self._check_origin(scope, headers)
            if _needs_key(scope["path"]):
                self.keys.from_header(headers.get("authorization"))
        except ApiError as exc:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            # the body is never read: close the connection rather than drain it
            headers_out = {**(exc.headers or {}), "Connection": "close"}
            response = error_response(exc.status, exc.kind, exc.message, headers_out)
            await response(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        await self._limited(scope, receive, send, headers)

    def _check_host(self, headers: Headers) -> None:
        host = host_name(headers.get("host", ""))
        if not self.any_host and host not in self.trusted:
            shown = host[:100] or "(none)"
            raise ApiError(400, "untrusted_host",
                           f"this server does not answer to the host '{shown}' "
                           "(see the trusted_hosts setting)")

    def _check_origin(self, scope: Scope, headers: Headers) -> None:
        method = scope.get("method", "GET")
        if scope["type"] == "http" and method in SAFE_METHODS:
            return
        origin = headers.get("origin")
        if origin is None:
            if headers.get("sec-fetch-site") == "cross-site":
                raise ApiError(403, "cross_site", "cross-site requests are refused")
            return  # not a browser page: curl, SDKs, other servers
        netloc = urlsplit(origin).netloc if origin != "null" else ""
        if not netloc or netloc.lower() != headers.get("host", "").lower():
            raise ApiError(403, "cross_site",
                           f"requests from another site ({origin[:100]}) are refused")

    def _limit_of(self, scope: Scope) -> tuple[int, int]:
        """``(bytes allowed, limit to name)``: uploads get room for multipart framing."""
        path = scope["path"]
        if (scope["method"] == "POST" and path == "/v1/documents") or path.startswith(
            UPLOAD_PREFIXES
        ):
            return self.upload_limit + MULTIPART_SLACK, self.upload_limit
        return JSON_BODY_LIMIT, JSON_BODY_LIMIT

    async def _limited(self, scope: Scope, receive: Receive, send: Send,
                       headers: Headers) -> None:
        limit, shown = self._limit_of(scope)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _too_large(shown)(scope, receive, send)
            return
        counted = 0
        exceeded = False
        started = False
        unread = (declared.isdigit() and int(declared) > 0) or "chunked" in headers.get(
            "transfer-encoding", "").lower()

        async def counting_receive() -> Message:
            nonlocal counted, exceeded, unread
            if exceeded:
                raise BodyTooLarge(shown)
            message = await receive()
            if message["type"] == "http.request":
                counted += len(message.get("body", b""))
                unread = unread and bool(message.get("more_body", False))
                if counted > limit:
                    exceeded = True
                    raise BodyTooLarge(shown)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if exceeded:  # whoever answered, an over-size body gets the 413
                    await _too_large(shown)(scope, receive, send)
                    return
                # no CORS: Gradio's /ui/* would allow any localhost origin with credentials
                out = [(k, v) for k, v in message.get("headers", [])
                       if not k.lower().startswith(b"access-control-")]
                if unread:  # answered before the whole body came: hang up, never drain it
                    out.append((b"connection", b"close"))
                message = {**message, "headers": out}
            elif exceeded:
                return
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except BodyTooLarge:
            if not started:
                await _too_large(shown)(scope, receive, send)


def _too_large(limit: int) -> ASGIApp:
    return error_response(413, "too_large", f"the request body is larger than {_size(limit)}",
                          {"Connection": "close"}, limit_bytes=limit)


def _needs_key(path: str) -> bool:
    return path.startswith("/v1/") or path == "/openapi.json"
