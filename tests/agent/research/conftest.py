"""Adaptive-RAG fixtures: the agent tests' real corpus library, a service factory that can
inject a fast model and web settings, and a local HTTP server answering in Wikipedia's
REST format (search + page summary)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from tests.agent.conftest import corpus_library  # noqa: F401  (session fixture)
from tests.local_http import serving

from archivist.agent.service import AgentService
from archivist.application import Application
from archivist.settings.names import GROUPS
from archivist.testing import ScriptedChatModel

JUPITER = {
    "type": "standard",
    "title": "Jupiter",
    "pageid": 38930,
    "extract": "Jupiter is the fifth planet from the Sun and the largest planet in the "
    "Solar System.",
    "content_urls": {"desktop": {"page": "https://en.wikipedia.org/wiki/Jupiter"}},
}
SEARCH = {
    "pages": [
        {"id": 38930, "key": "Jupiter", "title": "Jupiter",
         "excerpt": '<span class="searchmatch">Jupiter</span> is the fifth planet',
         "description": "fifth planet from the Sun", "thumbnail": None},
    ]
}


class WikiServer:
    """What the fake Wikipedia received, and how it should answer (ok | error)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.paths: list[str] = []
        self.url = ""


def _handler(state: WikiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            state.paths.append(self.path)
            if state.mode == "error":
                return self._send(503, {"error": "busy"})
            url = urlsplit(self.path)
            if url.path == "/w/rest.php/v1/search/page":
                query = parse_qs(url.query)
                limit = int(query["limit"][0])
                return self._send(200, {"pages": SEARCH["pages"][:limit]})
            if url.path.startswith("/api/rest_v1/page/summary/"):
                key = unquote(url.path.rsplit("/", 1)[1])
                if key == "Jupiter":
                    return self._send(200, JUPITER)
            return self._send(404, {"type": "not_found"})

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def wiki() -> Iterator[WikiServer]:
    """A local server in Wikipedia's REST format; ``wiki.url`` is its base URL."""
    state = WikiServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    with serving(server) as url:
        state.url = url
        yield state


Factory = Callable[..., AgentService]


def grouped(overrides: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Settings named by field (``strategy="tools"``), or a group's as a mapping
    (``llm={"model": ...}``), as ``with_values`` takes them."""
    changes: dict[str, dict[str, Any]] = {}
    for name, value in overrides.items():
        if name in GROUPS and isinstance(value, dict):
            changes.setdefault(name, {}).update(value)
            continue
        group = next((g for g, model in GROUPS.items() if name in model.model_fields), None)
        if group is None:
            raise ValueError(f"no setting named {name!r}")
        changes.setdefault(group, {})[name] = value
    return changes


@pytest.fixture
def service_for(
    corpus_library: Application, tmp_path: Path  # noqa: F811
) -> Iterator[Factory]:
    """``service_for(model, fast_llm=None, **settings)``: an agent over the corpus."""
    made: list[AgentService] = []

    def factory(
        model: Any | None = None, fast_llm: Any | None = None, **overrides: Any
    ) -> AgentService:
        settings = corpus_library.settings.with_values(
            data_dir=tmp_path / f"conv{len(made)}", **grouped(overrides))
        service = AgentService(corpus_library.searcher, llm=model or ScriptedChatModel(),
                               settings=settings, fast_llm=fast_llm)
        made.append(service)
        return service

    yield factory
    for service in made:
        service.close()
