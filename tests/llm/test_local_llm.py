"""The ``local`` provider on a real model: Qwen2.5-Coder-0.5B run in-process by xllamacpp.

Plain invoke, streaming, schema-constrained structured output, and more concurrent calls
than the model has slots (they queue; none fails). The figures print with ``-s``.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel
from tests.local_model import TEST_SPEC, local_model_ready  # noqa: F401  (pytest fixture)

from archivist.llm import build_chat_model, describe_llm
from archivist.llm.local import LocalChatModel
from archivist.llm.local_runtime import loaded_servers
from archivist.llm.resilience import RetryingChatModel
from archivist.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("local_model_ready")]


def _settings(max_tokens: int = 32) -> Settings:
    return Settings(llm={"model": TEST_SPEC, "temperature": 0.0, "max_tokens": max_tokens})


def test_invoke_answers_with_token_usage() -> None:
    chat = build_chat_model(_settings())
    assert isinstance(chat.model, RetryingChatModel) and isinstance(chat.model, LocalChatModel)
    assert chat.profile.parallel_slots == 2
    assert describe_llm(_settings()) == "local model 0.5b (in this process)"

    started = time.monotonic()
    reply = chat.model.invoke(
        [SystemMessage("Answer in one word."), HumanMessage("What is the capital of France?")]
    )
    seconds = time.monotonic() - started
    timings = reply.response_metadata.get("timings", {})
    (server,) = [s for s in loaded_servers() if s.path == chat.model.model_path]
    print(
        f"\nlocal 0.5b: load {server.load_seconds:.1f}s, invoke {seconds:.1f}s, "
        f"prompt {timings.get('prompt_per_second', 0):.1f} tok/s, "
        f"generation {timings.get('predicted_per_second', 0):.1f} tok/s: {reply.content!r}"
    )
    assert "paris" in str(reply.content).lower()
    usage = reply.usage_metadata
    assert usage is not None and usage["input_tokens"] > 10 and 0 < usage["output_tokens"] <= 32


def test_stream_yields_pieces_and_usage() -> None:
    model = build_chat_model(_settings()).model
    chunks = list(model.stream("Count from one to five in words, separated by commas."))
    text = "".join(str(chunk.content) for chunk in chunks)
    assert sum(1 for chunk in chunks if chunk.content) > 3, "the reply arrived in pieces"
    assert "three" in text.lower()
    usages = [chunk.usage_metadata for chunk in chunks if chunk.usage_metadata]
    assert usages and usages[-1]["output_tokens"] > 3


class Capital(BaseModel):
    country: str
    capital: str


def test_structured_output_follows_the_schema() -> None:
    model = build_chat_model(_settings(max_tokens=48)).model
    result = model.with_structured_output(Capital, include_raw=True).invoke(
        "What is the capital of Italy? Give the country and its capital."
    )
    assert result["parsing_error"] is None, result["raw"].content
    parsed = result["parsed"]
    assert isinstance(parsed, Capital)
    assert parsed.country.lower() == "italy" and parsed.capital.lower() == "rome"


def test_more_concurrent_calls_than_slots_all_complete() -> None:
    """Three calls on two slots: the third waits for a slot and still answers."""
    model = build_chat_model(_settings(max_tokens=8)).model
    questions = ["Say yes.", "Say no.", "Say maybe."]
    with ThreadPoolExecutor(max_workers=3) as pool:
        replies = list(pool.map(model.invoke, questions))
    assert all(str(reply.content).strip() for reply in replies)
    assert all(reply.usage_metadata and reply.usage_metadata["output_tokens"] for reply in replies)


def test_a_call_past_its_deadline_is_an_llm_failure_and_the_agent_degrades(
    tmp_path, embedder
) -> None:
    """``local_timeout_s`` far below what the model needs: the call fails as a timeout (a
    transient LLM failure, not an internal error) and the agent gives its retrieval-only
    answer with one line naming the setting."""
    from archivist.agent.offline import failure_message
    from archivist.agent.service import AgentService
    from archivist.application import Application
    from archivist.llm import is_transient
    from archivist.llm.local_runtime import LocalTimeout

    settings = Settings(
        data_dir=tmp_path / "lib",
        llm={
            "model": TEST_SPEC,
            "temperature": 0.0,
            "max_tokens": 8,
            "max_retries": 0,
            "local_timeout_s": 0.001,
        },
        agent={"strategy": "pipeline"},
    )
    model = build_chat_model(settings).model
    with pytest.raises(LocalTimeout) as raised:
        model.invoke("Count from one to one hundred.")
    assert is_transient(raised.value)
    assert "did not answer in time (local_timeout_s)" in failure_message(settings, raised.value)
    with Application(settings, embedder=embedder) as app:
        app.ingest.texts([("tea.md", "# Tea\n\nGreen tea is brewed at 70 to 80 degrees.")])
        service = AgentService(app.searcher, settings, llm=model)
        result = service.ask("How hot should the water be for green tea?")
        service.close()
    assert result.status == "retrieval_only"
    assert result.error and "local_timeout_s" in result.error
    assert [s.document_name for s in result.sources] == ["tea.md"]
