"""LocalChatModel's translation to and from llama.cpp's chat protocol, on a stand-in server.

The stand-in replaces only the model (the rule: the LLM may be faked); requests and replies
are the shapes xllamacpp's server takes and returns. The real model runs in
test_local_llm.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import BaseModel, Field

from archivist.llm.errors import is_transient
from archivist.llm.local import LocalChatModel, strict_schema
from archivist.llm.local_runtime import LocalModelError, RuntimeOptions


class StandIn:
    def __init__(self, reply: dict[str, Any] | None = None,
                 chunks: list[dict[str, Any]] | None = None) -> None:
        self.reply = reply or {}
        self.chunks = chunks or []
        self.requests: list[dict[str, Any]] = []
        self.timeouts: list[float | None] = []
        self.closed = False

    def chat(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        self.requests.append(request)
        self.timeouts.append(timeout)
        error = self.reply.get("error")
        if error:
            raise LocalModelError(error["message"], error["code"])
        return self.reply

    def stream(
        self, request: dict[str, Any], timeout: float | None = None
    ) -> Iterator[dict[str, Any]]:
        self.requests.append(request)
        self.timeouts.append(timeout)
        try:
            yield from self.chunks
        finally:
            self.closed = True


def _model(stand_in: StandIn, **fields: Any) -> LocalChatModel:
    def factory(path: Path, options: RuntimeOptions) -> Any:
        return stand_in

    return LocalChatModel(model_path=Path("m.gguf"), server_factory=factory, **fields)


def _reply(message: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5},
            "timings": {"prompt_per_second": 80.0, "predicted_per_second": 9.0}}


def test_messages_tools_and_caps_reach_the_server() -> None:
    stand_in = StandIn(_reply({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "search_documents", "arguments": '{"query": "tea"}'}},
        {"id": "c2", "type": "function", "function": {"name": "broken", "arguments": "{oops"}},
    ]}))

    def search_documents(query: str) -> str:
        """Search the documents."""
        return query

    model = _model(stand_in, max_tokens=50).bind_tools([search_documents], tool_choice="any")
    history = [HumanMessage("hi"), AIMessage("", tool_calls=[
        {"name": "search_documents", "args": {"query": "x"}, "id": "c0"}]),
        ToolMessage("found", tool_call_id="c0")]
    reply = model.invoke(history)
    request = stand_in.requests[0]
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "tool"]
    assert request["tools"][0]["function"]["name"] == "search_documents"
    assert request["tool_choice"] == "required" and request["max_tokens"] == 50
    assert reply.tool_calls == [
        {"name": "search_documents", "args": {"query": "tea"}, "id": "c1", "type": "tool_call"}]
    assert reply.invalid_tool_calls[0]["name"] == "broken"
    assert reply.usage_metadata == {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}
    assert reply.response_metadata["timings"]["predicted_per_second"] == 9.0


class Grades(BaseModel):
    relevant: list[str] = Field(default_factory=list)
    rewritten_query: str = ""


def test_structured_output_sends_a_strict_schema_and_parses() -> None:
    stand_in = StandIn(_reply({"role": "assistant",
                               "content": '{"relevant": ["P1"], "rewritten_query": ""}'}))
    result = _model(stand_in).with_structured_output(Grades, include_raw=True).invoke("grade")
    assert result["parsed"] == Grades(relevant=["P1"]) and result["parsing_error"] is None
    schema = stand_in.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["relevant", "rewritten_query"], "every field, in order"
    assert schema["additionalProperties"] is False

    bad = StandIn(_reply({"role": "assistant", "content": "not json"}))
    failed = _model(bad).with_structured_output(Grades, include_raw=True).invoke("grade")
    assert failed["parsed"] is None and failed["parsing_error"] is not None


def test_strict_schema_reaches_nested_objects() -> None:
    nested = strict_schema({"type": "object", "properties": {"a": {"type": "object",
                           "properties": {"b": {"type": "string"}}}}})
    assert nested["required"] == ["a"] and nested["properties"]["a"]["required"] == ["b"]


def test_stream_yields_text_then_usage_and_closes_the_server_stream() -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},
        {"choices": [{"index": 0, "delta": {"content": "Hel"}}]},
        {"choices": [{"index": 0, "delta": {"content": "lo"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}},
    ]
    stand_in = StandIn(chunks=chunks)
    pieces = list(_model(stand_in).stream("hi"))
    assert "".join(str(p.content) for p in pieces) == "Hello"
    usage = [p.usage_metadata for p in pieces if p.usage_metadata]
    assert usage == [{"input_tokens": 7, "output_tokens": 2, "total_tokens": 9}]
    assert stand_in.closed


def test_server_errors_carry_a_status_that_classifies() -> None:
    overloaded = StandIn({"error": {"message": "no free slot", "code": 503}})
    with pytest.raises(LocalModelError) as caught:
        _model(overloaded).invoke("hi")
    assert caught.value.status_code == 503 and is_transient(caught.value)
    bad = StandIn({"error": {"message": "bad grammar", "code": 400}})
    with pytest.raises(LocalModelError) as refused:
        _model(bad).invoke("hi")
    assert not is_transient(refused.value)


def test_replies_are_capped_and_reuse_the_prompt_cache_by_default(tmp_path: Path) -> None:
    """With no ``llm_max_tokens`` a local reply is still capped (llama.cpp would run to n_ctx)."""
    from archivist.llm.local import DEFAULT_REPLY_TOKENS
    from archivist.llm.providers import make_chat_model
    from archivist.settings import Settings

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    built = make_chat_model(Settings(data_dir=tmp_path / "lib", llm={"model": f"local:{gguf}"}))
    assert isinstance(built, LocalChatModel) and built.max_tokens == DEFAULT_REPLY_TOKENS
    stand_in = StandIn(_reply({"role": "assistant", "content": "ok"}))
    _model(stand_in).invoke("hi")
    capped = make_chat_model(Settings(data_dir=tmp_path / "lib",
                                      llm={"model": f"local:{gguf}", "max_tokens": 40}))
    assert isinstance(capped, LocalChatModel) and capped.max_tokens == 40
    request = stand_in.requests[0]
    assert request["max_tokens"] == DEFAULT_REPLY_TOKENS and request["cache_prompt"] is True


def test_the_prompt_cache_can_be_turned_off_for_reproducible_replies(tmp_path: Path) -> None:
    """Off, no request reuses a slot's prefix: the same prompt gets the same reply."""
    from archivist.llm.providers import make_chat_model
    from archivist.settings import Settings

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    built = make_chat_model(Settings(data_dir=tmp_path / "lib", llm={
        "model": f"local:{gguf}", "local_prompt_cache": False}))
    assert isinstance(built, LocalChatModel) and built.prompt_cache is False
    stand_in = StandIn(_reply({"role": "assistant", "content": "ok"}))
    _model(stand_in, prompt_cache=False).invoke("hi")
    assert stand_in.requests[0]["cache_prompt"] is False


def test_the_timeout_setting_reaches_every_call() -> None:
    stand_in = StandIn(_reply({"role": "assistant", "content": "ok"}),
                       chunks=[{"choices": [{"index": 0, "delta": {"content": "ok"}}]}])
    _model(stand_in, timeout_s=7.5).invoke("hi")
    list(_model(stand_in).stream("hi"))
    assert stand_in.timeouts == [7.5, None]  # None: the server sizes it from its speed


def test_a_sized_timeout_follows_the_measured_speed() -> None:
    from archivist.llm.local_runtime import (
        TIMEOUT_FLOOR_S,
        Speed,
        expected_seconds,
        prompt_tokens_of,
        sized_timeout,
    )

    speed = Speed()  # nothing measured: the slow speeds of a loaded machine
    before = sized_timeout(speed, 2000, 256, parallel=2)
    assert before == pytest.approx(4 * (2000 / 5 + 256 / 2) * 2)
    speed.record({"prompt_per_second": 60.0, "predicted_per_second": 25.0})
    speed.record({"prompt_per_second": 40.0, "predicted_per_second": 30.0})
    speed.record({"nothing": 1})  # ignored
    assert speed.measured and (speed.prompt_tps, speed.generation_tps) == (40.0, 25.0)
    assert expected_seconds(speed, 2000, 256) == pytest.approx(2000 / 40 + 256 / 25)
    after = sized_timeout(speed, 2000, 256, parallel=2)
    assert after < before and after == pytest.approx(8 * (50 + 256 / 25))
    assert sized_timeout(speed, 10, 8, parallel=1) == TIMEOUT_FLOOR_S
    request = {"messages": [{"role": "user", "content": "x" * 700}]}
    assert 200 <= prompt_tokens_of(request) <= 230
