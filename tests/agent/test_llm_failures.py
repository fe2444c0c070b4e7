"""An LLM that fails mid-way degrades like an unreachable one: one clear line, then a
retrieval-only answer, exit code 3 (``ask`` and ``chat``). The LLM is a real local HTTP
server speaking the OpenAI protocol: it answers 503 every time, or cuts its stream."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer
from tests.agent.conftest import CORPUS
from tests.local_http import closed_port, serving
from typer.testing import CliRunner

from archivist.app.cli import agent as cli_agent
from archivist.application import Application
from archivist.settings import Settings

runner = CliRunner()
QUESTION = "How do I install PostgreSQL?"


def _handler(mode: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            if mode == "503":
                data = b'{"error": {"message": "loading model", "type": "unavailable"}}'
                self.send_response(503)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            # "cut": a stream that promises more than it sends, then drops the connection
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                     "choices": [{"index": 0, "delta": {"content": "Partial "}}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    root = tmp_path_factory.mktemp("failing-llm")
    docs = root / "docs"
    docs.mkdir()
    (docs / "postgres-guide.md").write_text(CORPUS["postgres-guide.md"], encoding="utf-8")
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as library:
        library.ingest.files([docs])
    return root / "lib"


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch, embedder) -> typer.Typer:
    monkeypatch.setattr(
        "archivist.index.store.make_embedder", lambda *a, **k: embedder
    )
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "openai:m")
    monkeypatch.setenv("ARCHIVIST_LLM__MAX_RETRIES", "1")
    monkeypatch.setenv("ARCHIVIST_AGENT__STRATEGY", "pipeline")
    cli = typer.Typer()
    cli_agent.register(cli)
    return cli


@pytest.fixture
def failing_llm(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), _handler(request.param))) as url:
        monkeypatch.setenv("ARCHIVIST_LLM__OPENAI_BASE_URL", f"{url}/v1")
        yield url


@pytest.mark.parametrize(
    ("failing_llm", "reason"),
    [("503", "answered HTTP 503"), ("cut", "dropped the connection")],
    indirect=["failing_llm"],
)
def test_ask_degrades_to_retrieval_only_with_exit_3(
    app, data_dir: Path, failing_llm: str, reason: str
) -> None:
    result = runner.invoke(app, ["ask", QUESTION, "--data-dir", str(data_dir)])
    assert result.exit_code == 3, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("the LLM ")]
    assert len(errors) == 1, result.output
    assert reason in errors[0] and failing_llm in errors[0] and "retrieval-only" in errors[0]
    assert "Retrieval-only answer (no LLM)" in result.output
    assert "apt install postgresql" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


def test_chat_exits_3_when_a_turn_was_retrieval_only(
    app, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_LLM__OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    result = runner.invoke(app, ["chat", "--data-dir", str(data_dir)], input=f"{QUESTION}\n/exit\n")
    assert result.exit_code == 3, result.output
    assert "cannot reach the LLM" in result.output
    assert "Retrieval-only answer (no LLM)" in result.output
