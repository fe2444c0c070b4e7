"""Per-answer figures: LLM calls and tokens (from a callback handler), tool calls, stage times."""

from __future__ import annotations

import threading
import time
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult


class LLMCallCounter(BaseCallbackHandler):
    """Counts chat-model calls, their tokens and their time. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[UUID, float] = {}
        self.calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.seconds = 0.0

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID,
        **kwargs: Any,
    ) -> None:
        """A model call began."""
        with self._lock:
            self.calls += 1
            self._started[run_id] = time.perf_counter()

    def _finish(self, run_id: UUID) -> None:
        started = self._started.pop(run_id, None)
        if started is not None:
            self.seconds += time.perf_counter() - started

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """A model call ended: add its token usage when the provider reports it."""
        with self._lock:
            self._finish(run_id)
            for generations in response.generations:
                for generation in generations:
                    usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                    if usage:
                        self.tokens_in += int(usage.get("input_tokens", 0))
                        self.tokens_out += int(usage.get("output_tokens", 0))

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A model call failed."""
        with self._lock:
            self._finish(run_id)


class TurnStats:
    """Everything measured during one turn; ``as_dict()`` is the ``stats`` event."""

    def __init__(self) -> None:
        self.counter = LLMCallCounter()
        self.started = time.perf_counter()
        self.spans: dict[str, tuple[float, float]] = {}
        self.tool_calls = 0
        self.searches = 0
        self.parents_read = 0

    def timing(self, stage: str, start: float, end: float) -> None:
        """Widen a stage's span (parallel branches overlap: a stage's time is wall time)."""
        low, high = self.spans.get(stage, (start, end))
        self.spans[stage] = (min(low, start), max(high, end))

    def step(self, kind: str) -> None:
        """Count tool steps."""
        if kind in ("search", "read_parent"):
            self.tool_calls += 1
            self.searches += kind == "search"
            self.parents_read += kind == "read_parent"

    def as_dict(self) -> dict[str, Any]:
        """The figures, JSON-ready."""
        return {
            "llm_calls": self.counter.calls,
            "tokens_in": self.counter.tokens_in,
            "tokens_out": self.counter.tokens_out,
            "llm_seconds": round(self.counter.seconds, 4),
            "tool_calls": self.tool_calls,
            "searches": self.searches,
            "parents_read": self.parents_read,
            "stages": {k: round(b - a, 4) for k, (a, b) in self.spans.items()},
            "wall_seconds": round(time.perf_counter() - self.started, 4),
        }
