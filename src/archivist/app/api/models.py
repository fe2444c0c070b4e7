"""Request and response bodies of the HTTP API, with the examples shown in the OpenAPI schema.

Every example here is real: the API tests send the request examples and validate the
response examples against these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from archivist.app.limits import MESSAGE_MAX_CHARS
from archivist.collection_names import COLLECTION_PATTERN
from archivist.events import SOURCE_EXAMPLE, CheckedClaim, Source

THREAD_PATTERN = r"^[A-Za-z0-9_-]{1,100}$"



class Health(BaseModel):
    """The server is up."""

    status: Literal["ok"] = "ok"
    version: str
    auth: bool = Field(description="Whether API keys are required.")


class DocumentOut(BaseModel):
    """One ingested document."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "document_id": "3f2a9c01d4e5b6a7", "name": "R-FAQ.pdf", "collection": "default",
        "pages": 12, "parents": 9, "chunks": 61, "size_bytes": 128311,
        "added_at": "2025-01-31 10:12:03", "mine": True,
    }]})

    document_id: str
    name: str
    collection: str
    pages: int
    parents: int
    chunks: int
    size_bytes: int
    added_at: str
    mine: bool = Field(
        default=False,
        description="Whether the calling key uploaded it (and so may replace or delete it).",
    )
    company: str | None = Field(default=None, description=(
        "Filing metadata read from the document's own text (cover page); null when the "
        "document is no filing or the field was not found."))
    ticker: str | None = None
    form: str | None = Field(default=None, description="10-K, 10-Q, 8-K or earnings release.")
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    fiscal_year_end: str | None = Field(default=None, description="MM-DD.")
    period: str | None = Field(default=None, description="The last day reported, YYYY-MM-DD.")


class DocumentList(BaseModel):
    """The documents of one collection."""

    collection: str
    documents: list[DocumentOut]


class FileOutcome(BaseModel):
    """What happened to one uploaded file."""

    file: str = Field(description="The uploaded file's (sanitised) name.")
    outcome: Literal["added", "unchanged", "replaced", "failed", "skipped"]
    document_id: str | None = None
    reason: str = Field(default="", description="Why a file failed or was skipped.")
    pages: int = 0
    chunks: int = 0


class IngestJob(BaseModel):
    """An upload being ingested; poll ``GET /v1/documents/jobs/{job_id}`` for progress."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "job_id": "5c1e0f3a9b7d4e21", "status": "done", "collection": "default",
        "files_total": 2, "files_done": 2, "current": None,
        "results": [
            {"file": "R-FAQ.pdf", "outcome": "added", "document_id": "3f2a9c01d4e5b6a7",
             "reason": "", "pages": 12, "chunks": 61},
            {"file": "broken.pdf", "outcome": "failed", "document_id": None,
             "reason": "broken.pdf: not a PDF (it looks like plain text)", "pages": 0,
             "chunks": 0},
        ],
        "counts": {"added": 1, "unchanged": 0, "replaced": 0, "failed": 1, "skipped": 0},
        "error": None, "stage": "done", "pages": 12, "chunks": 61, "current_pages": 0,
        "current_page_count": 0, "current_chunks_done": 0, "current_chunks_total": 0,
        "pages_converted": 12,
    }]})

    job_id: str
    status: Literal["queued", "running", "done", "failed"]
    collection: str
    files_total: int
    files_done: int
    current: str | None = Field(default=None, description="The file being ingested now.")
    results: list[FileOutcome]
    counts: dict[str, int]
    error: str | None = None
    stage: str = Field(default="queued", description="What the ingest is doing now.")
    pages: int = Field(default=0, description="Pages of the files finished so far.")
    chunks: int = Field(default=0, description="Chunks indexed so far.")
    current_pages: int = Field(default=0, description=(
        "Pages of the file being ingested: converted so far while it converts."))
    current_page_count: int = Field(default=0, description=(
        "The page count of the file being ingested (0 until known, and for files without "
        "pages): while it converts, current_pages of current_page_count are done."))
    current_chunks_done: int = Field(default=0, description="Its chunks embedded so far.")
    current_chunks_total: int = Field(default=0, description="Its chunks in all.")
    pages_converted: int = Field(default=0, description=(
        "Pages converted so far in every file of the upload (PDFs uploaded together "
        "convert several at a time, ahead of the file being embedded)."))


class SearchHitOut(BaseModel):
    """One matching chunk."""

    document_id: str
    document_name: str
    pages: str
    page_start: int | None
    page_end: int | None
    heading_path: list[str] = Field(description=(
        "The headings of the section the text starts in (deepest last)."))
    sections: list[list[str]] | None = Field(default=None, description=(
        "The heading path of every section the text holds, in order (more than one: the "
        "text runs on into the next); null in a library ingested before sections were kept."))
    document_title: str = Field(default="", description=(
        "The document's title, given to a hit before any heading: its location names it."))
    text: str
    score: float
    parent_id: str
    child_id: str


class SearchResults(BaseModel):
    """Search hits, best first."""

    query: str
    collection: str
    hits: list[SearchHitOut]


class ConversationCreate(BaseModel):
    """Start a conversation (optionally on another collection)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"collection": "default"}]})

    collection: str | None = Field(default=None, pattern=COLLECTION_PATTERN)


class Conversation(BaseModel):
    """A conversation the caller owns."""

    thread_id: str
    collection: str
    created_at: float
    title: str = ""


class ConversationList(BaseModel):
    """The caller's conversations, newest first."""

    conversations: list[Conversation]


class Turn(BaseModel):
    """One message of a conversation's history."""

    role: Literal["user", "assistant", "summary"]
    content: str


class ConversationDetail(Conversation):
    """A conversation with its history and any question it is waiting on."""

    pending_clarification: str | None = None
    messages: list[Turn]


class MessageIn(BaseModel):
    """A user message. When the conversation waits on a clarification, this answers it."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"message": "How do I install a package in R?"}
    ]})

    message: str = Field(min_length=1, max_length=MESSAGE_MAX_CHARS)


class Answer(BaseModel):
    """A whole turn: the answer (or the clarification question), its sources and stats."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "thread_id": "9b1f0c2d3e4a5b6c7d8e9f0a1b2c3d4e",
        "status": "answered",
        "answer": 'According to R-FAQ.pdf: "Use install.packages()." [R-FAQ.pdf, pp. 3-4]',
        "clarification": None,
        "sources": [SOURCE_EXAMPLE],
        "confidence": "high",
        "steps": [{"kind": "search", "detail": "install a package in R"}],
        "stats": {"llm_calls": 3, "tool_calls": 1, "wall_seconds": 0.42},
    }]})

    thread_id: str
    status: Literal["answered", "clarification", "retrieval_only", "error"]
    answer: str
    clarification: str | None = None
    sources: list[Source]
    confidence: str | None = None
    claims: list[CheckedClaim] = []
    steps: list[dict[str, Any]]
    stats: dict[str, Any]


class ErrorDetail(BaseModel):
    """What went wrong, in one line."""

    type: str
    code: str
    message: str


class ErrorBody(BaseModel):
    """Every error response."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "error": {"type": "not_found", "code": "not_found",
                  "message": "no conversation 1234 (for this API key)"}
    }]})

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "Missing or invalid API key."},
    422: {"model": ErrorBody, "description": "Invalid request."},
}
