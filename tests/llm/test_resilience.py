"""Retries against a real local HTTP server speaking the OpenAI chat-completions protocol."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import openai
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from pydantic import BaseModel
from tests.local_http import closed_port, serving

from archivist.llm import is_connection_error, make_chat_model
from archivist.llm.resilience import (
    RetryingChatModel,
    backoff_delay,
    is_transient,
    retry_call,
    with_backoff,
)
from archivist.settings import Settings

# --------------------------------------------------------------------------- fake server


class FakeOpenAI:
    """Answers the first queued statuses with errors, then with chat completions."""

    def __init__(self) -> None:
        self.failures: list[int] = []
        self.requests: list[dict[str, Any]] = []
        self.cut_stream_after_first_chunk = False
        self.lock = threading.Lock()

    def next_failure(self) -> int | None:
        with self.lock:
            return self.failures.pop(0) if self.failures else None


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "hello from the server"}
    if body.get("tools"):
        name = body["tools"][0]["function"]["name"]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps({"city": "Paris"})},
                }
            ],
        }
    elif body.get("response_format"):
        message = {"role": "assistant", "content": json.dumps({"city": "Paris"})}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }


def _chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {"content": content} if content is not None else {}
    payload = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


def _handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests.append(body)
            failure = state.next_failure()
            if failure is not None:
                self._json(failure, {"error": {"message": f"status {failure}", "type": "x"}})
            elif body.get("stream"):
                self._stream()
            else:
                self._json(200, _completion(body))

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            if state.cut_stream_after_first_chunk:
                self.send_header("Content-Length", "100000")  # promise more than we send
            self.end_headers()
            self.wfile.write(_chunk("hello "))
            self.wfile.flush()
            if state.cut_stream_after_first_chunk:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            for piece in ("from ", "the ", "server"):
                self.wfile.write(_chunk(piece))
            self.wfile.write(_chunk(None, "stop"))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


@pytest.fixture
def fake_openai() -> Iterator[tuple[FakeOpenAI, str]]:
    state = FakeOpenAI()
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))) as url:
        yield state, f"{url}/v1"


class Recorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, delay: float) -> None:
        self.delays.append(delay)

    async def asleep(self, delay: float) -> None:
        self.delays.append(delay)


def _model(base_url: str, sleeper: Recorder, retries: int = 3, rng: Any = None) -> Any:
    settings = Settings(
        llm={"model": "openai:test-model", "openai_base_url": base_url, "max_retries": retries},
    )
    model = make_chat_model(settings)
    assert isinstance(model, RetryingChatModel)
    update: dict[str, Any] = {"retry_sleep": sleeper, "retry_async_sleep": sleeper.asleep}
    if rng is not None:
        update["retry_rng"] = rng
    return model.model_copy(update=update)


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


# ------------------------------------------------------------------ through the real server


@pytest.mark.parametrize("status", [503, 429, 500])
def test_transient_statuses_are_retried_until_success(
    fake_openai: tuple[FakeOpenAI, str], status: int
) -> None:
    state, url = fake_openai
    state.failures = [status, status]
    sleeper = Recorder()
    reply = _model(url, sleeper).invoke("hi")
    assert reply.content == "hello from the server"
    assert len(state.requests) == 3
    assert len(sleeper.delays) == 2


def test_bad_request_is_not_retried(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [400, 503]
    sleeper = Recorder()
    with pytest.raises(openai.BadRequestError):
        _model(url, sleeper).invoke("hi")
    assert len(state.requests) == 1
    assert sleeper.delays == []


def test_auth_error_is_not_retried(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [401]
    with pytest.raises(openai.AuthenticationError):
        _model(url, Recorder()).invoke("hi")
    assert len(state.requests) == 1


def test_gives_up_after_max_retries(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503] * 10
    sleeper = Recorder()
    with pytest.raises(openai.InternalServerError):
        _model(url, sleeper, retries=2).invoke("hi")
    assert len(state.requests) == 3
    assert len(sleeper.delays) == 2


def test_delays_grow_exponentially_up_to_the_cap(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503] * 6
    sleeper = Recorder()
    reply = _model(url, sleeper, retries=6, rng=lambda: 1.0).invoke("hi")
    assert reply.content
    assert sleeper.delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


def test_delays_are_jittered_below_each_cap(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503] * 6
    sleeper = Recorder()
    _model(url, sleeper, retries=6, rng=random.Random(7).random).invoke("hi")
    caps = [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert all(0.0 <= d <= cap for d, cap in zip(sleeper.delays, caps, strict=True))
    assert sleeper.delays != caps


def test_connection_refused_is_retried_then_raised() -> None:
    sleeper = Recorder()
    model = _model(f"http://127.0.0.1:{closed_port()}/v1", sleeper, retries=2)
    with pytest.raises(Exception) as caught:
        model.invoke("hi")
    assert is_connection_error(caught.value)
    assert len(sleeper.delays) == 2


def test_stream_retries_before_the_first_chunk(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503]
    chunks = list(_model(url, Recorder()).stream("hi"))
    assert len(state.requests) == 2
    assert len([c for c in chunks if c.content]) > 1
    assert "".join(str(c.content) for c in chunks) == "hello from the server"


class TokenCounter(BaseCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


def test_stream_reports_each_token_once(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503]
    counter = TokenCounter()
    list(_model(url, Recorder()).stream("hi", config={"callbacks": [counter]}))
    assert "".join(counter.tokens) == "hello from the server"
    assert [t for t in counter.tokens if t] == ["hello ", "from ", "the ", "server"]


def test_async_stream_reports_each_token_once(fake_openai: tuple[FakeOpenAI, str]) -> None:
    _, url = fake_openai
    counter = TokenCounter()

    async def collect() -> list[Any]:
        model = _model(url, Recorder())
        return [c async for c in model.astream("hi", config={"callbacks": [counter]})]

    chunks = asyncio.run(collect())
    assert "".join(str(c.content) for c in chunks) == "hello from the server"
    assert [t for t in counter.tokens if t] == ["hello ", "from ", "the ", "server"]


def test_stream_is_not_retried_after_a_chunk(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.cut_stream_after_first_chunk = True
    received: list[str] = []
    with pytest.raises(Exception) as caught:
        for chunk in _model(url, Recorder()).stream("hi"):
            received.append(str(chunk.content))
    assert is_transient(caught.value)
    assert "hello " in received
    assert len(state.requests) == 1


def test_async_invoke_retries(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503, 429]
    sleeper = Recorder()
    reply = asyncio.run(_model(url, sleeper).ainvoke("hi"))
    assert reply.content == "hello from the server"
    assert len(state.requests) == 3
    assert len(sleeper.delays) == 2


class Weather(BaseModel):
    """Which city to look up."""

    city: str


def test_bound_tools_are_retried(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [503]
    reply = _model(url, Recorder()).bind_tools([Weather]).invoke("weather?")
    assert isinstance(reply, AIMessage)
    assert reply.tool_calls[0]["name"] == "Weather"
    assert reply.tool_calls[0]["args"] == {"city": "Paris"}
    assert len(state.requests) == 2
    assert state.requests[-1]["tools"][0]["function"]["name"] == "Weather"


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_structured_output_is_retried(fake_openai: tuple[FakeOpenAI, str], method: str) -> None:
    state, url = fake_openai
    state.failures = [503]
    structured = _model(url, Recorder()).with_structured_output(Weather, method=method)
    assert structured.invoke("weather?") == Weather(city="Paris")
    assert len(state.requests) == 2


def test_structured_output_include_raw_is_retried(fake_openai: tuple[FakeOpenAI, str]) -> None:
    state, url = fake_openai
    state.failures = [502]
    out = _model(url, Recorder()).with_structured_output(Weather, include_raw=True).invoke("w?")
    assert out["parsed"] == Weather(city="Paris")
    assert len(state.requests) == 2


# --------------------------------------------------------------------------- the primitive


def test_retry_call_returns_after_transient_failures() -> None:
    calls: list[int] = []
    sleeps: list[float] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionRefusedError("refused")
        return "ok"

    result = retry_call(
        flaky,
        attempts=5,
        base_delay=1.0,
        max_delay=3.0,
        sleep=sleeps.append,
        is_transient=is_transient,
        rng=lambda: 1.0,
    )
    assert result == "ok"
    assert sleeps == [1.0, 2.0]


def test_retry_call_raises_permanent_errors_at_once() -> None:
    sleeps: list[float] = []

    def broken() -> None:
        raise ValueError("bad schema")

    with pytest.raises(ValueError):
        retry_call(
            broken,
            attempts=5,
            base_delay=1.0,
            max_delay=3.0,
            sleep=sleeps.append,
            is_transient=is_transient,
        )
    assert sleeps == []


def test_backoff_delay_caps() -> None:
    assert backoff_delay(10, base_delay=0.5, max_delay=8.0, rng=lambda: 1.0) == 8.0
    assert backoff_delay(0, base_delay=0.5, max_delay=8.0, rng=lambda: 0.0) == 0.0


def _status_error(status: int) -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "http://x")
    return httpx.HTTPStatusError("x", request=request, response=httpx.Response(status))


def test_is_transient_classification() -> None:
    request = httpx.Request("POST", "http://x")
    assert is_transient(_status_error(503))
    assert is_transient(_status_error(429))
    assert not is_transient(_status_error(400))
    assert not is_transient(_status_error(404))
    assert is_transient(httpx.ReadTimeout("slow", request=request))
    assert is_transient(httpx.ConnectError("refused", request=request))
    assert is_transient(TimeoutError())
    assert not is_transient(ValueError("nope"))
    wrapped = RuntimeError("wrapper")
    wrapped.__cause__ = ConnectionResetError()
    assert is_transient(wrapped)


def test_with_backoff_wraps_any_chat_model() -> None:
    from archivist.testing import ScriptedChatModel

    settings = Settings(llm={"model": "scripted"})
    model = with_backoff(ScriptedChatModel(script=["scripted reply"]), settings)
    assert model.invoke("hi").content == "scripted reply"
    assert model.retries == 3


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
@pytest.mark.parametrize("include_raw", [False, True])
def test_ollama_structured_output_and_tools_are_retried(method: str, include_raw: bool) -> None:
    settings = Settings(
        llm={"model": "ollama:qwen3:4b", "max_retries": 2,
             "ollama_base_url": f"http://127.0.0.1:{closed_port()}"},
    )
    sleeper = Recorder()
    model = make_chat_model(settings).model_copy(update={"retry_sleep": sleeper})
    runnables = [
        model.with_structured_output(Weather, method=method, include_raw=include_raw),
        model.bind_tools([Weather]),
    ]
    for runnable in runnables:
        with pytest.raises(Exception) as caught:
            runnable.invoke("weather in Paris?")
        assert is_connection_error(caught.value)
    assert len(sleeper.delays) == 2 * settings.llm.max_retries  # every call was retried
