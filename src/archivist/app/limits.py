"""Input caps every interface applies, so no request can make unbounded work.

The HTTP API, the OpenAI-compatible endpoint, the MCP server and the web UI share them.
"""

from __future__ import annotations

from archivist.settings import QUERY_MAX_CHARS

__all__ = ["HISTORY_MAX_MESSAGES", "MESSAGE_MAX_CHARS", "QUERY_MAX_CHARS"]

MESSAGE_MAX_CHARS = 20_000
"""A question or a chat message."""

HISTORY_MAX_MESSAGES = 200
"""Messages in one OpenAI-style chat request (the history a client resends)."""
