"""Request slots and streamed token usage against a real one-slot OpenAI-compatible server.

The server takes 0.4 s per request and records how many it serves at once. Three
concurrent calls through a model whose timeout (0.6 s) is shorter than the whole queue
(1.2 s) must all succeed, one at a time: each waits for the slot before its request starts.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.local_http import serving

from archivist.llm import build_chat_model
from archivist.settings import Settings

SECONDS_PER_REQUEST = 0.4


class OneSlotServer:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.most_at_once = 0
        self.bodies: list[dict[str, Any]] = []


def _handler(state: OneSlotServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.bodies.append(body)
                state.active += 1
                state.most_at_once = max(state.most_at_once, state.active)
            try:
                time.sleep(SECONDS_PER_REQUEST)
                if body.get("stream"):
                    self._stream(body)
                else:
                    self._reply(body)
            finally:
                with state.lock:
                    state.active -= 1

        def _reply(self, body: dict[str, Any]) -> None:
            data = json.dumps({
                "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "ok"}}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            for piece in ("one ", "two"):
                chunk = {**base, "choices": [{"index": 0, "delta": {"content": piece}}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = {"prompt_tokens": 21, "completion_tokens": 2, "total_tokens": 23}
                self.wfile.write(f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n"
                                 .encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


@pytest.fixture
def one_slot(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[OneSlotServer, str]]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    state = OneSlotServer()
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))) as url:
        yield state, f"{url}/v1"


def test_concurrent_calls_wait_for_the_slot_instead_of_timing_out(
    one_slot: tuple[OneSlotServer, str],
) -> None:
    state, url = one_slot
    settings = Settings(
        llm={"model": "openai:m", "openai_base_url": url, "timeout_s": 0.6, "max_retries": 0},
    )
    chat = build_chat_model(settings)
    assert chat.profile.parallel_slots == 1
    with ThreadPoolExecutor(max_workers=3) as pool:
        replies = list(pool.map(chat.model.invoke, ["a", "b", "c"]))
    assert [reply.content for reply in replies] == ["ok", "ok", "ok"]
    assert len(state.bodies) == 3
    assert state.most_at_once == 1, "the server never saw two requests at once"


def test_streamed_reply_counts_its_tokens(one_slot: tuple[OneSlotServer, str]) -> None:
    state, url = one_slot
    model = build_chat_model(Settings(llm={"model": "openai:m", "openai_base_url": url})).model
    chunks = list(model.stream("count"))
    assert "".join(str(chunk.content) for chunk in chunks) == "one two"
    assert state.bodies[-1]["stream_options"] == {"include_usage": True}
    usage = [chunk.usage_metadata for chunk in chunks if chunk.usage_metadata]
    assert usage and usage[-1]["input_tokens"] == 21 and usage[-1]["output_tokens"] == 2
