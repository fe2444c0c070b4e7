"""Conversations: create, list, read, delete; send a message (JSON or streamed over SSE).

Every conversation belongs to the owner (API key) that created it; any other owner gets
404. Turns run through :class:`~archivist.app.api.turns.ChatRunner`, so a slow answer never
blocks the server. Each event of :mod:`archivist.events` becomes one
SSE event of the same name whose data is the event's JSON. One turn at a time per
conversation: a second concurrent turn on the same conversation is answered 409.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse

from archivist.app.api.auth import CallerDep, Owner
from archivist.app.api.deps import ChatDep, SettingsDep
from archivist.app.api.errors import ApiError
from archivist.app.api.models import (
    ERROR_RESPONSES,
    THREAD_PATTERN,
    Answer,
    Conversation,
    ConversationCreate,
    ConversationDetail,
    ConversationList,
    ErrorBody,
    MessageIn,
    Turn,
)
from archivist.app.api.turns import ChatRunner, collect, llm_unavailable
from archivist.events import Event

ThreadId = Annotated[str, Path(pattern=THREAD_PATTERN, description="A conversation id.")]

SSE_DESCRIPTION = (
    "Server-sent events, one per agent event: `step` (rewrite, sub_questions, search, "
    "read_parent, ...), `clarification`, `token` (the answer, streamed once every "
    "check has run), `sources` (with `confidence`), `stats`, "
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


def sse(event: Event) -> str:
    """One SSE frame: the event name, then its data as one JSON line."""
    return f"event: {event.type}\ndata: {json.dumps(event.data, ensure_ascii=False)}\n\n"


router = APIRouter(prefix="/v1/conversations", tags=["conversations"],
                   responses=ERROR_RESPONSES)
not_found: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No such conversation for this key."}
}

@router.post("", response_model=Conversation, status_code=201,
             summary="Start a conversation")
def create(chat: ChatDep, settings: SettingsDep, caller: CallerDep,
           body: ConversationCreate | None = None) -> Conversation:
    """A new, empty conversation owned by the caller."""
    collection = (body.collection if body else None) or settings.collection
    caller.check_collection(collection)
    thread_id = chat.create(caller.owner, collection)
    return _conversation(chat, thread_id, caller.owner)

@router.get("", response_model=ConversationList, summary="List your conversations")
def list_conversations(chat: ChatDep, owner: Owner) -> ConversationList:
    """The caller's conversations, newest first."""
    rows = chat.registry.owned(owner)
    return ConversationList(conversations=[
        Conversation(thread_id=t, collection=c, created_at=at, title=title)
        for t, c, at, title in rows
    ])

@router.get("/{thread_id}", response_model=ConversationDetail, responses=not_found,
            summary="Read a conversation")
def read(chat: ChatDep, owner: Owner, thread_id: ThreadId) -> ConversationDetail:
    """A conversation's history and any clarification it is waiting on."""
    collection = chat.collection_of(thread_id, owner)
    base = _conversation(chat, thread_id, owner)
    history = chat.service.history(thread_id)
    pending = chat.service.pending_clarification(thread_id, collection)
    return ConversationDetail(
        **base.model_dump(), pending_clarification=pending,
        messages=[Turn(role=t["role"], content=t["content"]) for t in history],  # type: ignore[arg-type]
    )

@router.delete("/{thread_id}", status_code=204, responses=not_found,
               summary="Forget a conversation")
def delete(chat: ChatDep, owner: Owner, thread_id: ThreadId) -> Response:
    """Remove a conversation from the caller's list."""
    if not chat.registry.delete(thread_id, owner):
        raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
    chat.turns.forget(thread_id)
    return Response(status_code=204)

@router.post(
    "/{thread_id}/messages", response_model=Answer, summary="Send a message",
    responses={**not_found,
               409: {"model": ErrorBody, "description": "A turn is already running."},
               503: {"model": ErrorBody, "description": "The LLM cannot be reached."}},
)
async def send(chat: ChatDep, settings: SettingsDep, caller: CallerDep, thread_id: ThreadId,
               body: MessageIn) -> Answer | JSONResponse:
    """Send a message and get the whole turn back.

    If the conversation waits on a clarification, the message answers it. When the
    LLM cannot be reached the answer is 503, naming the provider, with a clearly
    labelled retrieval-only answer in ``retrieval_only``.
    """
    collection = chat.collection_of(thread_id, caller.owner)
    caller.check_collection(collection)
    message = _message(body)
    turn = chat.events(message, thread_id, collection)
    answer = await run_in_threadpool(collect, turn, thread_id)
    if answer.status == "retrieval_only":
        return llm_unavailable(settings, answer)
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
async def stream(chat: ChatDep, caller: CallerDep, thread_id: ThreadId, body: MessageIn
                 ) -> StreamingResponse:
    """Send a message; the turn's events stream back as server-sent events.

    When the LLM cannot be reached, an ``error`` event names it and a retrieval-only
    answer (labelled as such) follows, with ``done.status = "retrieval_only"``.
    """
    collection = chat.collection_of(thread_id, caller.owner)
    caller.check_collection(collection)
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


def _message(body: MessageIn) -> str:
    text = body.message.strip()
    if not text:
        raise ApiError(422, "invalid_request", "the message is empty")
    return text


def _conversation(chat: ChatRunner, thread_id: str, owner: str) -> Conversation:
    for t, collection, at, title in chat.registry.owned(owner):
        if t == thread_id:
            return Conversation(thread_id=t, collection=collection, created_at=at, title=title)
    raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
