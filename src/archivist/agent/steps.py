"""Progress reporting from inside nodes: visible steps and per-stage timings.

Both go through LangGraph's custom stream (``get_stream_writer``); outside a streamed run
the writer is a no-op, so nodes can call these unconditionally.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

_STOP = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
        "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "so", "tell", "that", "the",
        "their", "them", "there", "these", "they", "this", "to", "was", "what", "when", "where",
        "which", "who", "why", "will", "with", "you", "your", "about", "into", "than", "then",
        "also", "not",
    ]
)
F = TypeVar("F", bound=Callable[..., Any])
ANSWER_TAG = "archivist:answer"


def _writer() -> Callable[[Any], None]:
    try:
        return get_stream_writer()
    except RuntimeError:  # called outside a graph run (a unit test calling a node)
        return lambda _chunk: None


def emit_step(kind: str, detail: str, **extra: Any) -> None:
    """Report a visible step (rewrite, sub_questions, search, read_parent, ...)."""
    _writer()({"step": kind, "detail": detail, **extra})


def timed(stage: str) -> Callable[[F], F]:
    """Decorate a node so its wall time is reported under ``stage``."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                _writer()({"timing": stage, "start": start, "end": time.perf_counter()})

        return wrapper  # type: ignore[return-value]

    return decorate


def answer_config(stream: bool) -> RunnableConfig:
    """Run config for an LLM call; tagged calls are streamed to the user as the answer."""
    return RunnableConfig(tags=[ANSWER_TAG]) if stream else RunnableConfig()


def message_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def content_words(text: str) -> set[str]:
    """Content words of ``text``: lower-cased, stop words and single letters dropped."""
    return {w for w in re.findall(r"[a-z0-9+#]+", text.lower()) if w not in _STOP and len(w) > 1}
