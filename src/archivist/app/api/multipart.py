"""An upload's files streamed from the request straight to their staging files.

FastAPI's ``UploadFile`` first spools every file to a temporary file and the route then
copied it into ``uploads/``: every byte touched the disk twice. Here each file part is
written once, as it arrives, to the file ``open_file`` gives for its name (``None`` skips
the part: an unsupported type is never written). The guard (``app/api/guard.py``) has
already checked the key and counts the body, so no more than the limit is ever read.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import Message
from email.utils import collapse_rfc2231_value
from typing import Any, Protocol

from python_multipart.multipart import MultipartParser
from starlette.requests import Request

from archivist.app.api.errors import ApiError

FILES_FIELD = "files"


class Sink(Protocol):
    """Where one part's bytes go."""

    def write(self, data: bytes) -> int:
        """Take the next bytes of the part."""

    def close(self) -> None:
        """The part ended."""


#: The request body's OpenAPI description (the route reads the stream itself).
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object",
            "required": [FILES_FIELD],
            "properties": {FILES_FIELD: {
                "type": "array", "items": {"type": "string", "format": "binary"},
                "description": "One or more files (field `files`).",
            }},
        }}},
    }
}


def _disposition(header: str) -> tuple[str, str | None]:
    """(field name, file name or None) of a ``Content-Disposition`` header (RFC 7578)."""
    message = Message()
    message["content-disposition"] = header
    name = message.get_param("name", header="content-disposition")
    raw = message.get_param("filename", header="content-disposition")
    if raw is None:
        return (str(name) if isinstance(name, str) else ""), None
    # not get_filename(): it strips spaces, and "report.md " is another name than report.md
    filename = collapse_rfc2231_value(raw)
    return (str(name) if isinstance(name, str) else ""), filename


class _Parts:
    """The parser's callbacks: headers of each part, then its bytes to ``open_file``'s file."""

    def __init__(self, open_file: Callable[[str], Sink | None]) -> None:
        self.open_file = open_file
        self.field = b""
        self.value = b""
        self.headers: dict[str, str] = {}
        self.out: Sink | None = None
        self.files = 0

    def callbacks(self) -> Any:  # python-multipart's MultipartCallbacks
        return {
            "on_part_begin": self.begin, "on_header_field": self.header_field,
            "on_header_value": self.header_value, "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished, "on_part_data": self.data,
            "on_part_end": self.end,
        }

    def begin(self) -> None:
        self.headers, self.out = {}, None

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.field += data[start:end]

    def header_value(self, data: bytes, start: int, end: int) -> None:
        self.value += data[start:end]

    def header_end(self) -> None:
        key = self.field.decode("latin-1").strip().lower()
        self.headers[key] = self.value.decode("utf-8", "replace")
        self.field, self.value = b"", b""

    def headers_finished(self) -> None:
        name, filename = _disposition(self.headers.get("content-disposition", ""))
        if name == FILES_FIELD and filename is not None:
            self.files += 1
            self.out = self.open_file(filename)

    def data(self, data: bytes, start: int, end: int) -> None:
        if self.out is not None:
            self.out.write(data[start:end])

    def end(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None

    def close(self) -> None:
        self.end()


async def stream_files(request: Request, open_file: Callable[[str], Sink | None]) -> int:
    """Write every ``files`` part of a multipart request; returns how many there were."""
    content_type = request.headers.get("content-type", "")
    message = Message()
    message["content-type"] = content_type
    boundary = message.get_param("boundary")
    if message.get_content_type() != "multipart/form-data" or not isinstance(boundary, str):
        raise ApiError(422, "invalid_request",
                       "no files: send them as multipart/form-data in the field `files`")
    parts = _Parts(open_file)
    parser = MultipartParser(boundary.encode("latin-1"), parts.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except ApiError:
        raise
    except ValueError as exc:  # python-multipart's parse errors
        raise ApiError(400, "bad_request", f"malformed multipart body: {exc}") from None
    finally:
        parts.close()
    if not parts.files:
        raise ApiError(422, "invalid_request", "no files: send them in the field `files`")
    return parts.files
