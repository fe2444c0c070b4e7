"""A served model's profile from what its server reports, against real local HTTP servers.

The servers answer as Ollama's ``/api/show`` and vLLM's ``/v1/models`` are documented to
(made-up model names); llama.cpp's own server is run for real in
``test_llama_cpp_server.py``. A server that is down, slow, or reports no size leaves the
decision to the model's name, and the ``policy`` setting overrides both without asking.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.local_http import closed_port, serving

from archivist.agent.strategy import profile_note
from archivist.llm.capabilities import describe_profile, profile_for
from archivist.llm.server_report import (
    REPORT_TIMEOUT_S,
    parameter_billions,
    reported_size,
    stated_billions,
)
from archivist.settings import Settings

#: Ollama's /api/show reply for a 1.5B model, trimmed to the fields of its documentation.
SHOW_SMALL = {
    "modelfile": "FROM /models/blob", "parameters": "stop \"<|im_end|>\"",
    "template": "{{ .Prompt }}",
    "details": {"parent_model": "", "format": "gguf", "family": "qwen2", "families": ["qwen2"],
                "parameter_size": "1.5B", "quantization_level": "Q4_K_M"},
    "model_info": {"general.architecture": "qwen2", "general.parameter_count": 1543714304},
}
#: A 14B model whose details leave out the size: its model_info still counts the parameters.
SHOW_LARGE_COUNT_ONLY = {
    "details": {"format": "gguf", "family": "qwen2", "parameter_size": ""},
    "model_info": {"general.parameter_count": 14_770_033_664},
}


class Recorded:
    """What a fake server was asked, and how it answers (path -> model name -> reply)."""

    def __init__(self, replies: dict[str, Any], delay: float = 0.0) -> None:
        self.replies = replies
        self.delay = delay
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.keys: list[str | None] = []  # the Authorization header of each request
        self.lock = threading.Lock()


def _handler(state: Recorded) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self._answer("GET", {})

        def do_POST(self) -> None:
            self._answer("POST", json.loads(self.rfile.read(int(self.headers["Content-Length"]))))

        def _answer(self, method: str, body: dict[str, Any]) -> None:
            with state.lock:
                state.requests.append((method, self.path, body))
                state.keys.append(self.headers.get("Authorization"))
            time.sleep(state.delay)
            reply = state.replies.get(self.path)
            if isinstance(reply, dict) and "model" in body:  # /api/show: one reply per model
                reply = reply.get(body["model"])
            status = 200 if reply is not None else 404
            data = json.dumps(reply if reply is not None else {"error": "not found"}).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except BrokenPipeError:  # the client gave up waiting (the slow-server test)
                return

    return Handler


@contextmanager
def _serve(state: Recorded) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True  # a slow reply does not hold up the server's shutdown
    with serving(server) as url:
        yield url


@pytest.fixture
def ollama() -> Iterator[tuple[Recorded, str]]:
    state = Recorded({"/api/show": {"helper:latest": SHOW_SMALL, "qwen2.5:latest": SHOW_SMALL,
                                    "assistant": SHOW_LARGE_COUNT_ONLY}})
    with _serve(state) as url:
        yield state, url


def _ollama(url: str, model: str, **agent: str) -> Settings:
    return Settings(llm={"model": f"ollama:{model}", "ollama_base_url": url}, agent=agent)


def test_ollama_reported_size_decides_over_the_name(ollama: tuple[Recorded, str]) -> None:
    state, url = ollama
    # the name alone says capable: qwen2.5 without a size tag is the family's 7B default
    qwen = profile_for(_ollama(url, "qwen2.5:latest"))
    assert qwen.size == "small"
    assert qwen.size_from == f"details.parameter_size of {url}/api/show: 1.50B parameters"
    assert state.requests[0] == ("POST", "/api/show", {"model": "qwen2.5:latest"})
    # the name alone says small (an unknown family); the count in model_info says 14.8B
    assistant = profile_for(_ollama(url, "assistant"))
    assert assistant.size == "capable" and "model_info" in assistant.size_from


def test_the_server_is_asked_once_per_model(ollama: tuple[Recorded, str]) -> None:
    state, url = ollama
    for _ in range(3):
        assert profile_for(_ollama(url, "helper:latest")).small
    assert len(state.requests) == 1


def test_the_policy_setting_wins_without_asking(ollama: tuple[Recorded, str]) -> None:
    state, url = ollama
    forced = profile_for(_ollama(url + "/", "qwen2.5:latest", policy="capable"))
    assert forced.size == "capable" and forced.size_from == "set by policy=capable"
    assert state.requests == []
    assert describe_profile(_ollama(url, "qwen2.5:latest", policy="small")) == (
        "small (set by policy=small)")


def test_a_model_the_server_does_not_know_falls_back_to_its_name(
    ollama: tuple[Recorded, str],
) -> None:
    state, url = ollama
    missing = profile_for(_ollama(url, "qwen2.5:3b"))  # 404 from /api/show
    assert missing.size == "small" and missing.size_from == "the name states 3B"
    assert [path for _, path, _ in state.requests] == ["/api/show"]
    unnamed = profile_for(_ollama(url, "qwen3"))
    assert unnamed.size == "capable"
    assert unnamed.size_from == "no size reported by the server or stated in the name"


def test_no_server_falls_back_at_once_and_quietly(caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with caplog.at_level("DEBUG", logger="archivist.llm.server_report"):
        profile = profile_for(_ollama(url, "qwen2.5:14b"))
    assert time.monotonic() - started < 1.0
    assert profile.size == "capable" and profile.size_from == "the name states 14B"
    assert not [r for r in caplog.records if r.levelno >= logging.INFO]
    (logged,) = [r for r in caplog.records if r.name == "archivist.llm.server_report"]
    assert logged.levelname == "DEBUG" and url in logged.getMessage()


def test_a_slow_server_is_given_up_on_after_the_timeout() -> None:
    state = Recorded({"/api/show": {"qwen2.5:latest": SHOW_SMALL}}, delay=REPORT_TIMEOUT_S + 1)
    with _serve(state) as url:
        started = time.monotonic()
        assert reported_size("ollama", "qwen2.5:latest", url) is None
        assert time.monotonic() - started < REPORT_TIMEOUT_S + 0.8
        assert profile_for(_ollama(url, "qwen2.5:latest")).size == "capable"


def test_vllm_and_lm_studio_report_the_served_model_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """vLLM lists the served model's repository as ``root``; several models need a match.

    The request carries the API key the chat calls send, for a server that requires one.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    state = Recorded({"/v1/models": {"object": "list", "data": [
        {"id": "assistant", "object": "model", "owned_by": "vllm",
         "root": "Example/Example-Chat-1.8B-Instruct", "max_model_len": 8192},
        {"id": "writer", "object": "model", "owned_by": "vllm", "root": "Example/Writer-32B"},
    ]}})
    with _serve(state) as url:
        base = f"{url}/v1"
        small = profile_for(Settings(llm={"model": "openai:assistant", "openai_base_url": base}))
        assert small.size == "small"
        assert "'Example/Example-Chat-1.8B-Instruct'" in small.size_from
        large = profile_for(Settings(llm={"model": "openai:writer", "openai_base_url": base}))
        assert large.size == "capable" and "Writer-32B" in large.size_from
        # listed among several under another name: nothing is assumed
        assert reported_size("openai", "reader", base) is None
        assert ("GET", "/v1/models", {}) in state.requests
        assert set(state.keys) == {"Bearer sk-local"}


def test_the_agent_step_names_what_decided_the_profile(ollama: tuple[Recorded, str]) -> None:
    _, url = ollama
    settings = _ollama(url, "helper:latest")
    assert profile_note(settings, "small") == (
        f"small (details.parameter_size of {url}/api/show: 1.50B parameters)")
    assert profile_note(settings, "capable") == "capable (given to the agent directly)"


@pytest.mark.parametrize(("text", "billions"), [
    ("1.5B", 1.5), ("8.0B", 8.0), ("270M", 0.27), ("1.2T", 1200.0), (" 7b ", 7.0),
    ("", None), ("unknown", None), ("1.5", None),
])
def test_parameter_size(text: str, billions: float | None) -> None:
    found = parameter_billions(text)
    assert found is None if billions is None else found == pytest.approx(billions)


@pytest.mark.parametrize(("name", "billions"), [
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1.5), ("Qwen/Qwen2.5-72B-Instruct", 72.0),
    ("/models-7b/assistant.gguf", None), ("qwen", None), ("gemma3-270m", None),
])
def test_stated_billions(name: str, billions: float | None) -> None:
    assert stated_billions(name) == billions
