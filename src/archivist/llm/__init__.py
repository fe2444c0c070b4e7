"""The LLM layer: chat models, their capabilities, structured output and retries.

Chat models come from ``"provider:model"`` strings; what each can do is its profile
(:class:`ModelProfile`), structured output by the method the profile names, and retries
with backoff for transient failures. Nothing here imports the agent.
"""

from __future__ import annotations

from archivist.llm.capabilities import (
    DEFAULT_PROFILE,
    ModelProfile,
    profile_for,
    supports_tool_calling,
)
from archivist.llm.errors import is_connection_error, is_transient
from archivist.llm.providers import (
    ChatModel,
    build_chat_model,
    describe_llm,
    make_chat_model,
)
from archivist.llm.spec import SUPPORTED_PROVIDERS, llm_spec_for, parse_llm_spec

__all__ = [
    "DEFAULT_PROFILE",
    "SUPPORTED_PROVIDERS",
    "ChatModel",
    "ModelProfile",
    "build_chat_model",
    "describe_llm",
    "is_connection_error",
    "is_transient",
    "llm_spec_for",
    "make_chat_model",
    "parse_llm_spec",
    "profile_for",
    "supports_tool_calling",
]
