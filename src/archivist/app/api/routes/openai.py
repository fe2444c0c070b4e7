"""OpenAI-compatible ``POST /v1/chat/completions`` and ``GET /v1/models``.

Open WebUI or any OpenAI SDK can use Archivist as a model: ``archivist`` answers from the
server's collection, ``archivist/<collection>`` from another one.

Conversation continuity, in order:

1. a ``thread_id`` the client passes (body field, or the ``X-Thread-Id`` header), created
   for the caller on first use;
2. otherwise, the messages: after each answer the server remembers a digest of the
   conversation as the client will resend it (its messages plus the answer), so the next
   request with that history continues the same thread;
3. a history the server does not know starts a new thread, with the earlier turns given
   to the agent as context.

Steps stream as ``reasoning_content`` deltas (shown as "thinking" by Open WebUI); the
answer as ``content``; the sources are appended to the answer text.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from archivist.app.api.auth import Caller, CallerDep
from archivist.app.api.deps import AppDep, ChatDep
from archivist.app.api.errors import ApiError
from archivist.app.api.models import (
    ERROR_RESPONSES,
    THREAD_PATTERN,
    Answer,
    ErrorBody,
)
from archivist.app.api.turns import collect, llm_unavailable
from archivist.app.limits import HISTORY_MAX_MESSAGES, MESSAGE_MAX_CHARS
from archivist.application import Application
from archivist.events import Event, Source, unsupported_note

MODEL = "archivist"
CONTEXT_CHARS = 3000


class ChatMessageIn(BaseModel):
    """One OpenAI chat message; content may be text or a list of content parts."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text (text parts joined; images and files ignored)."""
        if isinstance(self.content, str):
            return self.content
        parts = [str(p.get("text", "")) for p in self.content or [] if p.get("type") == "text"]
        return "\n".join(parts)

    @model_validator(mode="after")
    def _capped(self) -> ChatMessageIn:
        if len(self.text()) > MESSAGE_MAX_CHARS:
            raise ValueError(f"a message may hold at most {MESSAGE_MAX_CHARS} characters "
                             "(the same cap as /v1/conversations)")
        return self


class ChatCompletionRequest(BaseModel):
    """The subset of OpenAI's request Archivist uses; other fields are accepted and ignored."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [{
        "model": "archivist",
        "messages": [{"role": "user", "content": "How do I install a package in R?"}],
        "stream": False,
    }]})

    model: str = Field(default=MODEL, description="`archivist` or `archivist/<collection>`.")
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=HISTORY_MAX_MESSAGES)
    stream: bool = False
    thread_id: str | None = Field(
        default=None, pattern=THREAD_PATTERN,
        description="Continue this Archivist conversation (created on first use).",
    )


class ModelCard(BaseModel):
    """One model."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "archivist"


class ModelList(BaseModel):
    """The models: one per collection."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"object": "list", "data": [
        {"id": "archivist", "object": "model", "created": 1738000000, "owned_by": "archivist"}
    ]}]})

    object: Literal["list"] = "list"
    data: list[ModelCard]


def _collection_for(model: str, application: Application, caller: Caller) -> str:
    collection = None
    if model in (MODEL, f"{MODEL}:latest"):
        collection = application.settings.collection
    prefix = f"{MODEL}/"
    if model.startswith(prefix) and model[len(prefix):] in application.store.collections():
        collection = model[len(prefix):]
    if collection is None or not caller.may_use(collection):
        raise ApiError(404, "model_not_found",
                       f"the model '{model}' does not exist; see GET /v1/models")
    return collection


def _digest(owner: str, turns: list[tuple[str, str]]) -> str:
    normal = [(role, " ".join(text.split())) for role, text in turns]
    raw = json.dumps([owner, normal], ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _dialogue(messages: list[ChatMessageIn]) -> list[tuple[str, str]]:
    return [(m.role, m.text()) for m in messages if m.role in ("user", "assistant")]


def with_context(question: str, earlier: list[tuple[str, str]]) -> str:
    """The question, then (on one line) the earlier turns the server has not seen."""
    turns = " | ".join(f"{role.capitalize()}: {' '.join(text.split())}" for role, text in earlier)
    if len(turns) > CONTEXT_CHARS:
        turns = "..." + turns[-CONTEXT_CHARS:]
    return f"{question}\n\n(Earlier in this conversation: {turns})"


def render(answer: Answer) -> str:
    """The answer text a chat client shows: the answer, unsupported sentences, sources."""
    claims = [asdict(c) for c in answer.claims]
    return answer.answer + _footer([asdict(s) for s in answer.sources], claims)


def _footer(sources: list[dict[str, Any]], claims: list[dict[str, Any]]) -> str:
    """The footnote on unsupported sentences, then the Sources (numbered when cited so)."""
    text = ""
    note = unsupported_note(claims)
    if note:
        text += "\n\n" + note
    if sources:
        items = [Source(**s) for s in sources]
        lines = [f"[{n}] {s.label()}" if claims else f"- {s.label()}"
                 for n, s in enumerate(items, start=1)]
        text += "\n\nSources:\n" + "\n".join(lines)
    return text


router = APIRouter(prefix="/v1", tags=["openai"], responses=ERROR_RESPONSES)

@router.get("/models", response_model=ModelList, summary="List models (OpenAI)")
def models(request: Request, application: AppDep, caller: CallerDep) -> ModelList:
    """``archivist`` (the server's collection) and ``archivist/<name>`` per collection."""
    created = int(request.app.state.started)
    cards = [ModelCard(id=MODEL, created=created)] \
        if caller.may_use(application.settings.collection) else []
    cards += [ModelCard(id=f"{MODEL}/{name}", created=created)
              for name in application.store.collections() if caller.may_use(name)]
    return ModelList(data=cards)

@router.post(
    "/chat/completions", summary="Chat completions (OpenAI)",
    responses={
        200: {"description": "A chat.completion, or with `stream: true` an SSE stream of "
                             "chat.completion.chunk objects ending with `data: [DONE]`."},
        404: {"model": ErrorBody, "description": "Unknown model or conversation."},
        503: {"model": ErrorBody, "description": "The LLM cannot be reached."},
    },
)
async def chat_completions(
    application: AppDep,
    chat: ChatDep,
    caller: CallerDep,
    body: ChatCompletionRequest,
    x_thread_id: Annotated[str | None, Header(pattern=THREAD_PATTERN)] = None,
) -> Any:
    """Answer the last user message of ``messages`` as an OpenAI chat completion."""
    owner = caller.owner
    collection = _collection_for(body.model, application, caller)
    dialogue = _dialogue(body.messages)
    if not dialogue or dialogue[-1][0] != "user" or not dialogue[-1][1].strip():
        raise ApiError(422, "invalid_request",
                       "the last message must be a non-empty user message")
    question = dialogue[-1][1].strip()
    earlier = dialogue[:-1]
    thread_id = body.thread_id or x_thread_id
    message = question
    if thread_id:
        if chat.registry.collection_of(thread_id, owner) is None:
            if chat.registry.exists(thread_id):
                raise ApiError(404, "not_found",
                               f"no conversation {thread_id} (for this API key)")
            chat.registry.create(thread_id, owner, collection)
    else:
        known = chat.registry.thread_for_prefix(owner, _digest(owner, earlier)) \
            if earlier else None
        if known and chat.registry.collection_of(known, owner) is not None:
            thread_id = known
        else:
            thread_id = chat.create(owner, collection)
            if earlier:
                message = with_context(question, earlier)
    collection = chat.collection_of(thread_id, owner)
    caller.check_collection(collection)
    turn = chat.events(message, thread_id, collection)
    completion_id = "chatcmpl-" + uuid.uuid4().hex[:24]
    created = int(time.time())

    def remember(content: str) -> None:
        history = [*earlier, ("user", question), ("assistant", content)]
        chat.registry.remember_prefix(owner, _digest(owner, history), thread_id)

    if not body.stream:
        answer = await run_in_threadpool(collect, turn, thread_id)
        if answer.status == "retrieval_only":
            return llm_unavailable(application.settings, answer)
        content = render(answer)
        remember(content)
        return JSONResponse({
            "id": completion_id, "object": "chat.completion", "created": created,
            "model": body.model, "thread_id": thread_id,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": _usage(answer.stats),
            "archivist": {"status": answer.status,
                          "sources": [asdict(s) for s in answer.sources],
                          "confidence": answer.confidence,
                          "claims": [asdict(c) for c in answer.claims],
                          "steps": answer.steps},
        }, headers={"X-Thread-Id": thread_id})

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        payload = {
            "id": completion_id, "object": "chat.completion.chunk", "created": created,
            "model": body.model, "thread_id": thread_id,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra,
        }
        return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"

    async def frames() -> AsyncIterator[str]:
        yield chunk({"role": "assistant", "content": ""})
        sent: list[str] = []
        stats: dict[str, Any] = {}
        async for event in chat.stream(turn):
            piece = _piece(event, stats)
            if piece is None:
                continue
            field, text = piece
            if field == "content":
                sent.append(text)
            yield chunk({field: text})
        remember("".join(sent))
        yield chunk({}, "stop", usage=_usage(stats))
        yield "data: [DONE]\n\n"

    return StreamingResponse(frames(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Thread-Id": thread_id})


def _piece(event: Event, stats: dict[str, Any]) -> tuple[str, str] | None:
    """What an agent event adds to an OpenAI stream: (``content`` | ``reasoning_content``, text)."""
    data = event.data
    if event.type == "step":
        return "reasoning_content", f"{data.get('kind')}: {data.get('detail', '')}\n"
    if event.type == "token":
        return "content", str(data["text"])
    if event.type == "clarification":
        return "content", str(data["question"])
    if event.type == "error":
        return "content", f"[{data['message']}]\n\n"
    if event.type == "sources" and (data.get("sources") or data.get("claims")):
        return "content", _footer(list(data.get("sources") or []),
                                  list(data.get("claims") or []))
    if event.type == "stats":
        stats.update(data)
    return None


def _usage(stats: dict[str, Any]) -> dict[str, int]:
    prompt = int(stats.get("tokens_in", 0) or 0)
    completion = int(stats.get("tokens_out", 0) or 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}
