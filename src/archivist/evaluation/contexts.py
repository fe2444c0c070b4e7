"""What an evaluated run showed the model: every tool result, collected by a callback."""

from __future__ import annotations

import json
import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

__all__ = ["ContextCollector"]


class ContextCollector(BaseCallbackHandler):
    """Records every tool result of a run: the text shown to the model and its evidence."""

    raise_error = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[UUID, tuple[str, str]] = {}
        self.contexts: list[dict[str, Any]] = []

    def on_tool_start(
        self, serialized: dict[str, Any] | None, input_str: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """Remember the tool's name and input."""
        name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        with self._lock:
            self._started[run_id] = (str(name), str(input_str))

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Keep the tool's text and evidence (a ``ToolMessage`` with an artifact)."""
        text = getattr(output, "content", output)
        artifact = getattr(output, "artifact", None)
        with self._lock:
            name, query = self._started.pop(run_id, ("tool", ""))
            self.contexts.append(
                {
                    "tool": name,
                    "input": query,
                    "text": text if isinstance(text, str) else json.dumps(text, default=str),
                    "evidence": [dict(e) for e in artifact] if isinstance(artifact, list) else [],
                }
            )
