"""A real llama.cpp server (Gemma 3 270M) behind the ``openai:`` provider."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from archivist.llm import describe_llm, make_chat_model, supports_tool_calling
from archivist.llm.resilience import RetryingChatModel
from archivist.settings import Settings
from llamacpp_server import LlamaCppServer, llamacpp  # noqa: F401  (pytest fixture)

pytestmark = pytest.mark.llamacpp


# llama-cpp-python's server ignores "max_completion_tokens" (what ChatOpenAI sends for
# max_tokens) and reads only the legacy "max_tokens": pass that one in the request body.


def _settings(server: LlamaCppServer) -> Settings:
    return Settings(
        llm="openai:gemma3-270m",
        openai_base_url=server.base_url,
        temperature=0.0,
        llm_timeout_s=120.0,
    )


def test_streamed_reply_from_llamacpp(llamacpp: LlamaCppServer) -> None:  # noqa: F811
    settings = _settings(llamacpp)
    model = make_chat_model(settings)
    assert isinstance(model, RetryingChatModel)
    assert not supports_tool_calling(settings)  # a custom base_url gets the pipeline strategy
    assert describe_llm(settings) == f"openai model gemma3-270m at {llamacpp.base_url}"
    before = len(llamacpp.requests("/v1/chat/completions"))

    started = time.monotonic()
    chunks = [
        chunk
        for chunk in model.bind(extra_body={"max_tokens": 32}).stream(
            [
                SystemMessage("You answer in one short sentence."),
                HumanMessage("What colour is the sky on a clear day?"),
            ]
        )
        if chunk.content
    ]
    reply_seconds = time.monotonic() - started
    text = "".join(str(chunk.content) for chunk in chunks)

    print(  # shown with -s / in the report: the figures the project tracks
        f"\nllama.cpp: server start {llamacpp.start_seconds:.1f}s, "
        f"streamed reply {reply_seconds:.1f}s in {len(chunks)} chunks: {text!r}"
    )
    assert len(chunks) > 1
    assert text.strip()
    assert len(llamacpp.requests("/v1/chat/completions")) > before


def test_invoke_reply_from_llamacpp(llamacpp: LlamaCppServer) -> None:  # noqa: F811
    reply = (
        make_chat_model(_settings(llamacpp)).bind(extra_body={"max_tokens": 8}).invoke("Say hello.")
    )
    assert str(reply.content).strip()
