"""A conversation's record: its turns with sources, renaming, feedback and export.

``GET /v1/conversations/{id}/turns``, ``PATCH /v1/conversations/{id}`` (title),
``POST /v1/conversations/{id}/feedback``, ``GET /v1/conversations/{id}/export``. Each
answers 404 to any key but the conversation's owner.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from archivist.app.api.auth import Owner
from archivist.app.api.errors import ApiError
from archivist.app.api.models import ERROR_RESPONSES, Conversation, ErrorBody
from archivist.app.api.routes.chat import ThreadId
from archivist.app.api.turns import ChatRunner
from archivist.conversations import TurnLog, TurnRecord, json_export, markdown_export
from archivist.events import CheckedClaim, Source


class FeedbackIn(BaseModel):
    """A rating of one answer (by default the latest)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"rating": "down", "comment": "It cited the wrong page.", "turn": 1}
    ]})

    rating: Literal["up", "down"]
    comment: str = Field(default="", max_length=5000)
    turn: int | None = Field(default=None, ge=1, description="Turn number; default the latest.")


class FeedbackOut(BaseModel):
    """The stored rating, with the turn it rates."""

    thread_id: str
    turn: int
    rating: Literal["up", "down"]
    comment: str
    question: str
    answer: str
    sources: list[Source]
    settings: dict[str, Any]


class TurnOut(BaseModel):
    """One finished turn: the question, the answer (or clarification), its sources."""

    turn: int
    question: str
    answer: str
    status: str
    confidence: str | None = None
    sources: list[Source]
    claims: list[CheckedClaim] = Field(
        default_factory=list, description=(
            "Each sentence of the answer, checked against the sources it cites (as the "
            "answer carried it live)."))
    rating: Literal["up", "down"] | None = None
    comment: str = ""
    created_at: float
    steps: list[dict[str, Any]] = Field(
        default_factory=list, description="The steps the answer showed while it ran.")
    stats: dict[str, Any] = Field(
        default_factory=dict, description="Its figures (LLM calls, tool calls, time, errors).")


class TurnList(BaseModel):
    """A conversation's turns, in order."""

    thread_id: str
    turns: list[TurnOut]


class Rename(BaseModel):
    """A new title."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"title": "Pump calibration"}]})

    title: str = Field(min_length=1, max_length=200)


def turn_out(record: TurnRecord) -> TurnOut:
    """The API view of a stored turn."""
    feedback = record.feedback
    return TurnOut(
        turn=record.turn, question=record.question, answer=record.answer,
        status=record.status, confidence=record.confidence,
        sources=[Source(**s) for s in record.sources],
        claims=[CheckedClaim(**c) for c in record.claims],
        rating=feedback.rating if feedback else None,
        comment=feedback.comment if feedback else "", created_at=record.created_at,
        steps=record.steps, stats=record.stats,
    )


def build_router() -> APIRouter:
    """The conversation-record routes."""
    router = APIRouter(prefix="/v1/conversations", tags=["conversations"],
                       responses={**ERROR_RESPONSES, 404: {
                           "model": ErrorBody, "description": "No such conversation for this key."
                       }})

    def parts(request: Request) -> tuple[ChatRunner, TurnLog]:
        return request.app.state.chat, request.app.state.turns

    def owned(request: Request, thread_id: str, owner: str) -> tuple[str, str]:
        """``(title, collection)`` of the caller's conversation, or 404."""
        chat, _ = parts(request)
        for t, collection, _at, title in chat.registry.owned(owner):
            if t == thread_id:
                return title, collection
        raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")

    @router.get("/{thread_id}/turns", response_model=TurnList,
                summary="A conversation's turns with their sources")
    def turns(request: Request, owner: Owner, thread_id: ThreadId) -> TurnList:
        """Every finished turn, with the sources cited and any rating given."""
        owned(request, thread_id, owner)
        _, log = parts(request)
        return TurnList(thread_id=thread_id, turns=[turn_out(t) for t in log.turns(thread_id)])

    @router.patch("/{thread_id}", response_model=Conversation, summary="Rename a conversation")
    def rename(request: Request, owner: Owner, thread_id: ThreadId, body: Rename
               ) -> Conversation:
        """Give a conversation a new title."""
        chat, _ = parts(request)
        title = " ".join(body.title.split())
        if not title or not chat.registry.rename(thread_id, owner, title):
            raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")
        for t, collection, at, stored in chat.registry.owned(owner):
            if t == thread_id:
                return Conversation(thread_id=t, collection=collection, created_at=at,
                                    title=stored)
        raise ApiError(404, "not_found", f"no conversation {thread_id} (for this API key)")

    @router.post("/{thread_id}/feedback", response_model=FeedbackOut, status_code=201,
                 summary="Rate an answer")
    def feedback(request: Request, owner: Owner, thread_id: ThreadId, body: FeedbackIn
                 ) -> FeedbackOut:
        """Thumbs up or down (with an optional comment) on a turn, by default the latest.

        Stored with the question, the answer, its sources and the settings that made it;
        ``archivist feedback export`` turns these into evaluation questions.
        """
        owned(request, thread_id, owner)
        _, log = parts(request)
        record = log.turn(thread_id, body.turn)
        if record is None:
            which = f"turn {body.turn}" if body.turn else "an answer"
            raise ApiError(404, "not_found", f"conversation {thread_id} has no {which} to rate")
        stored = log.rate(thread_id, record.turn, body.rating, body.comment.strip())
        return FeedbackOut(
            thread_id=thread_id, turn=record.turn, rating=stored.rating, comment=stored.comment,
            question=record.question, answer=record.answer,
            sources=[Source(**s) for s in record.sources], settings=record.settings,
        )

    @router.get(
        "/{thread_id}/export", summary="Export a conversation",
        responses={200: {"content": {"text/markdown": {}, "application/json": {}},
                         "description": "The conversation with its sources."}},
    )
    def export(
        request: Request, owner: Owner, thread_id: ThreadId,
        format: Annotated[Literal["md", "json"], Query(description="md or json")] = "md",  # noqa: A002
    ) -> Response:
        """The conversation with its sources, as Markdown (default) or JSON (a download)."""
        title, collection = owned(request, thread_id, owner)
        _, log = parts(request)
        records = log.turns(thread_id)
        filename = f"conversation-{thread_id[:8]}.{format}"
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        if format == "json":
            return JSONResponse(json_export(title, thread_id, collection, records),
                                headers=headers)
        text = markdown_export(title, thread_id, collection, records)
        return Response(text, media_type="text/markdown; charset=utf-8", headers=headers)

    return router


router = build_router()
