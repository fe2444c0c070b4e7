"""Turns of a conversation: ownership, one turn at a time, events handed to the event loop.

A turn runs on its own thread and its events cross to the event loop through a queue, so a
slow answer never blocks the server. The conversation routes and the OpenAI-compatible
endpoint both run their turns through the :class:`ChatRunner`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from fastapi.responses import JSONResponse

from archivist import events
from archivist.agent.service import AgentService, collect_turn
from archivist.app.api.auth import ThreadRegistry
from archivist.app.api.errors import ApiError
from archivist.app.api.models import Answer
from archivist.conversations import TurnLog, title_from_question
from archivist.events import Event
from archivist.llm import parse_llm_spec
from archivist.settings import Settings

log = logging.getLogger(__name__)

_END = object()


class ChatRunner:
    """Runs turns: ownership checks, one turn per conversation at a time, event streaming."""

    def __init__(
        self, service: Callable[[], AgentService], registry: ThreadRegistry, turns: TurnLog
    ) -> None:
        self._service = service
        self.registry = registry
        self.turns = turns
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
            self.registry.set_title(thread_id, title_from_question(message))
            yield from self.service.stream(message, thread_id, collection)  # it records the turn
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


def collect(turn: TurnEvents, thread_id: str) -> Answer:
    """A whole turn as an ``Answer``."""
    try:
        return _collect(turn, thread_id)
    finally:
        turn.close()


def _collect(turn: Iterator[Event], thread_id: str) -> Answer:
    """The turn's events as the API's ``Answer``; every error message goes in its stats."""
    result = collect_turn(turn)
    stats = dict(result.stats)
    if result.errors:
        stats["errors"] = result.errors
    return Answer.model_validate({
        "thread_id": thread_id, "status": result.status, "answer": result.answer,
        "clarification": result.clarification, "sources": result.sources,
        "confidence": result.confidence, "claims": result.claims, "steps": result.steps,
        "stats": stats,
    })


def llm_unavailable(settings: Settings, answer: Answer) -> JSONResponse:
    """503 naming the LLM provider, with the retrieval-only answer for clients that want it."""
    provider, model = parse_llm_spec(settings.llm.model)
    errors = answer.stats.get("errors") or [f"cannot reach the LLM ({provider})"]
    body = {
        "error": {
            "type": "llm_unavailable", "code": "llm_unavailable", "message": errors[0],
            "provider": provider, "model": model,
        },
        "retrieval_only": answer.model_dump(),
    }
    return JSONResponse(body, status_code=503, headers={"Retry-After": "30"})
