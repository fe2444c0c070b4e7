"""Conversations: create, list, read, delete; send a message (JSON or streamed over SSE).

Every conversation belongs to the owner (API key) that created it; any other owner gets
404. A turn runs on its own thread and its events cross to the event loop through a queue,
so a slow answer never blocks the server. Each event of :mod:`archivist.events` becomes one
SSE event of the same name whose data is the event's JSON. One turn at a time per
conversation: a second concurrent turn on the same conversation is answered 409.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse

from archivist import events
from archivist.agent.service import AgentService
from archivist.app.api_auth import Owner, ThreadRegistry
from archivist.app.api_errors import ApiError
from archivist.app.api_models import (
    ERROR_RESPONSES,
    THREAD_PATTERN,
    Answer,
    Conversation,
    ConversationCreate,
    ConversationDetail,
    ConversationList,
    ErrorBody,
    MessageIn,
    SourceOut,
    Turn,
)
from archivist.events import Event
from archivist.llm import parse_llm_spec

log = logging.getLogger(__name__)

ThreadId = Annotated[str, Path(pattern=THREAD_PATTERN, description="A conversation id.")]
_END = object()

SSE_DESCRIPTION = (
    "Server-sent events, one per agent event: `step` (rewrite, sub_questions, search, "
    "read_parent, ...), `clarification`, `token`, `sources` (with `confidence`), `stats`, "
    "`error`, and always a final `done` with `thread_id`, `answer` and `status`. Each "
    "`data:` line is the event's JSON."
)
SSE_EXAMPLE = (
    'event: step\ndata: {"kind": "search", "detail": "install packages in R"}\n\n'
    'event: token\ndata: {"text": "According "}\n\n'
    'event: sources\ndata: {"sources": [{"document_name": "R-FAQ.pdf", "pages": "p. 3"}], '
    '"confidence": "cited"}\n\n'
    'event: stats\ndata: {"llm_calls": 3, "tool_calls": 1}\n\n'
    'event: done\ndata: {"thread_id": "9b1f...", "answer": "According ...", '
    '"status": "answered"}\n\n'
)


class ChatRunner:
    """Runs turns: ownership checks, one turn per conversation at a time, event streaming."""

    def __init__(self, service: Callable[[], AgentService], registry: ThreadRegistry) -> None:
        self._service = service
        self.registry = registry
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    @property
    def service(self) -> AgentService:
        """The library's agent service."""
        return self._service()

    def create(self, owner: str, collection: str) -> str:
        """A new conversation owned by ``owner``."""
        thread_id = self.service.new_thread_id()
        self.registry.create(thread_id, owner, collection)
        return thread_id

    def collection_of(self, thread_id: str, owner: str) -> str:
        """The conversation's collection, or 404 when ``owner`` does not own it."""
        collection = self.registry.collection_of(thread_id, owner)
        if collection is None:
            raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
        return collection

    def _claim(self, thread_id: str) -> None:
        with self._lock:
            if thread_id in self._busy:
                raise ApiError(409, "conflict",
                               f"conversation {thread_id} is already answering a message")
            self._busy.add(thread_id)

    def _release(self, thread_id: str) -> None:
        with self._lock:
            self._busy.discard(thread_id)

    def events(self, message: str, thread_id: str, collection: str) -> TurnEvents:
        """Claim the conversation (409 if busy) and return its turn's events.

        Iterating never raises once the turn started: failures become events. Closing it
        (or finishing it) frees the conversation for the next turn.
        """
        self._claim(thread_id)
        return TurnEvents(self._guarded(message, thread_id, collection),
                          lambda: self._release(thread_id))

    def _guarded(self, message: str, thread_id: str, collection: str) -> Iterator[Event]:
        try:
            self.registry.set_title(thread_id, " ".join(message.split()))
            yield from self.service.stream(message, thread_id, collection)
        except Exception as exc:  # mid-stream: reported as events, logged with traceback
            log.exception("turn failed in conversation %s", thread_id)
            yield events.error(f"the answer failed: {type(exc).__name__}: {exc}")
            yield events.done(thread_id, "", status="error")
        finally:
            self._release(thread_id)

    async def stream(self, turn: TurnEvents) -> AsyncIterator[Event]:
        """Run a turn on its own thread and hand its events to the event loop."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        cancelled = threading.Event()

        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone (server shutting down): stop the turn
                cancelled.set()
                log.debug("event loop closed; dropping a turn's remaining events")

        def produce() -> None:
            try:
                for event in turn:
                    if cancelled.is_set():
                        break
                    put(event)
            except BaseException as exc:  # handed to the consumer, which re-raises it
                put(exc)
            finally:
                turn.close()
                put(_END)

        worker = threading.Thread(target=produce, name="archivist-turn", daemon=True)
        worker.start()
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            cancelled.set()


class TurnEvents:
    """A turn's event iterator that frees its conversation when closed, even if never run."""

    def __init__(self, events: Iterator[Event], release: Callable[[], None]) -> None:
        self._events = events
        self._release = release

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        return next(self._events)

    def close(self) -> None:
        """Stop the turn and free the conversation."""
        close = getattr(self._events, "close", None)
        if close is not None:
            close()
        self._release()


def sse(event: Event) -> str:
    """One SSE frame: the event name, then its data as one JSON line."""
    return f"event: {event.type}\ndata: {json.dumps(event.data, ensure_ascii=False)}\n\n"


def collect(turn: TurnEvents, thread_id: str) -> Answer:
    """A whole turn as an ``Answer``."""
    try:
        return _collect(turn, thread_id)
    finally:
        turn.close()


def _collect(turn: Iterator[Event], thread_id: str) -> Answer:
    answer = Answer(thread_id=thread_id, status="answered", answer="", sources=[], steps=[],
                    stats={})
    tokens: list[str] = []
    errors: list[str] = []
    for event in turn:
        data = event.data
        if event.type == "step":
            answer.steps.append(data)
        elif event.type == "token":
            tokens.append(str(data["text"]))
        elif event.type == "clarification":
            answer.clarification = str(data["question"])
        elif event.type == "sources":
            answer.sources = [SourceOut(**s) for s in data["sources"]]
            answer.confidence = data.get("confidence")
        elif event.type == "stats":
            answer.stats = data
        elif event.type == "error":
            errors.append(str(data["message"]))
        elif event.type == "done":
            answer.status = data["status"]
            answer.answer = str(data.get("answer") or "".join(tokens))
    if errors:
        answer.stats["errors"] = errors
    return answer


def llm_unavailable(request: Request, answer: Answer) -> JSONResponse:
    """503 naming the LLM provider, with the retrieval-only answer for clients that want it."""
    settings = request.app.state.library.settings
    provider, model = parse_llm_spec(settings.llm)
    errors = answer.stats.get("errors") or [f"cannot reach the LLM ({provider})"]
    body = {
        "error": {
            "type": "llm_unavailable", "code": "llm_unavailable", "message": errors[0],
            "provider": provider, "model": model,
        },
        "retrieval_only": answer.model_dump(),
    }
    return JSONResponse(body, status_code=503, headers={"Retry-After": "30"})


def build_router() -> APIRouter:
    """The conversation routes."""
    router = APIRouter(prefix="/v1/conversations", tags=["conversations"],
                       responses=ERROR_RESPONSES)
    not_found: dict[int | str, dict[str, Any]] = {
        404: {"model": ErrorBody, "description": "No such conversation for this key."}
    }

    def runner(request: Request) -> ChatRunner:
        chat: ChatRunner = request.app.state.chat
        return chat

    @router.post("", response_model=Conversation, status_code=201,
                 summary="Start a conversation")
    def create(request: Request, owner: Owner, body: ConversationCreate | None = None
               ) -> Conversation:
        """A new, empty conversation owned by the caller."""
        settings = request.app.state.library.settings
        collection = (body.collection if body else None) or settings.collection
        thread_id = runner(request).create(owner, collection)
        return _conversation(request, thread_id, owner)

    @router.get("", response_model=ConversationList, summary="List your conversations")
    def list_conversations(request: Request, owner: Owner) -> ConversationList:
        """The caller's conversations, newest first."""
        rows = runner(request).registry.owned(owner)
        return ConversationList(conversations=[
            Conversation(thread_id=t, collection=c, created_at=at, title=title)
            for t, c, at, title in rows
        ])

    @router.get("/{thread_id}", response_model=ConversationDetail, responses=not_found,
                summary="Read a conversation")
    def read(request: Request, owner: Owner, thread_id: ThreadId) -> ConversationDetail:
        """A conversation's history and any clarification it is waiting on."""
        chat = runner(request)
        collection = chat.collection_of(thread_id, owner)
        base = _conversation(request, thread_id, owner)
        history = chat.service.history(thread_id)
        pending = chat.service.pending_clarification(thread_id, collection)
        return ConversationDetail(
            **base.model_dump(), pending_clarification=pending,
            messages=[Turn(role=t["role"], content=t["content"]) for t in history],  # type: ignore[arg-type]
        )

    @router.delete("/{thread_id}", status_code=204, responses=not_found,
                   summary="Forget a conversation")
    def delete(request: Request, owner: Owner, thread_id: ThreadId) -> Response:
        """Remove a conversation from the caller's list."""
        if not runner(request).registry.delete(thread_id, owner):
            raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
        return Response(status_code=204)

    @router.post(
        "/{thread_id}/messages", response_model=Answer, summary="Send a message",
        responses={**not_found,
                   409: {"model": ErrorBody, "description": "A turn is already running."},
                   503: {"model": ErrorBody, "description": "The LLM cannot be reached."}},
    )
    async def send(request: Request, owner: Owner, thread_id: ThreadId, body: MessageIn
                   ) -> Answer | JSONResponse:
        """Send a message and get the whole turn back.

        If the conversation waits on a clarification, the message answers it. When the
        LLM cannot be reached the answer is 503, naming the provider, with a clearly
        labelled retrieval-only answer in ``retrieval_only``.
        """
        chat = runner(request)
        collection = chat.collection_of(thread_id, owner)
        message = _message(body)
        turn = chat.events(message, thread_id, collection)
        answer = await run_in_threadpool(collect, turn, thread_id)
        if answer.status == "retrieval_only":
            return llm_unavailable(request, answer)
        return answer

    @router.post(
        "/{thread_id}/stream", summary="Send a message, stream the answer (SSE)",
        response_class=StreamingResponse,
        responses={
            200: {"description": SSE_DESCRIPTION,
                  "content": {"text/event-stream": {"example": SSE_EXAMPLE}}},
            **not_found,
            409: {"model": ErrorBody, "description": "A turn is already running."},
        },
    )
    async def stream(request: Request, owner: Owner, thread_id: ThreadId, body: MessageIn
                     ) -> StreamingResponse:
        """Send a message; the turn's events stream back as server-sent events.

        When the LLM cannot be reached, an ``error`` event names it and a retrieval-only
        answer (labelled as such) follows, with ``done.status = "retrieval_only"``.
        """
        chat = runner(request)
        collection = chat.collection_of(thread_id, owner)
        message = _message(body)
        turn = chat.events(message, thread_id, collection)

        async def frames() -> AsyncIterator[str]:
            async for event in chat.stream(turn):
                yield sse(event)

        return StreamingResponse(
            frames(), media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no",
                     "X-Thread-Id": thread_id},
        )

    return router


def _message(body: MessageIn) -> str:
    text = body.message.strip()
    if not text:
        raise ApiError(422, "invalid_request", "the message is empty")
    return text


def _conversation(request: Request, thread_id: str, owner: str) -> Conversation:
    chat: ChatRunner = request.app.state.chat
    for t, collection, at, title in chat.registry.owned(owner):
        if t == thread_id:
            return Conversation(thread_id=t, collection=collection, created_at=at, title=title)
    raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
