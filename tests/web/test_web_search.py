"""Web search providers against a local HTTP server answering in each API's real format."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from tests.local_http import closed_port, serving

from archivist.events import Source
from archivist.settings import Settings
from archivist.web import (
    DuckDuckGoProvider,
    WebResult,
    WebSearchProvider,
    WebUnavailable,
    WikipediaProvider,
    make_web_search,
    to_sources,
)

# Shapes follow MediaWiki's REST search ("pages" of search result objects) and the
# RESTBase page summary; trimmed to the fields a client reads plus a few it ignores.
WIKI_SEARCH = {
    "pages": [
        {
            "id": 38930,
            "key": "Jupiter",
            "title": "Jupiter",
            "excerpt": '<span class="searchmatch">Jupiter</span> is the fifth planet from the Sun',
            "matched_title": None,
            "description": "fifth planet from the Sun and largest planet in the Solar System",
            "thumbnail": None,
        },
        {
            "id": 1,
            "key": "Great_Red_Spot",
            "title": "Great Red Spot",
            "excerpt": 'The <span class="searchmatch">Great</span> Red Spot is a storm',
            "matched_title": None,
            "description": "Storm on Jupiter",
            "thumbnail": None,
        },
        {
            "id": 2,
            "key": "Vanished_page",
            "title": "Vanished page",
            "excerpt": "An &amp; <b>excerpt</b> only",
            "matched_title": None,
            "description": None,
            "thumbnail": None,
        },
    ]
}

WIKI_SUMMARIES = {
    "Jupiter": {
        "type": "standard",
        "title": "Jupiter",
        "displaytitle": "Jupiter",
        "pageid": 38930,
        "extract": "Jupiter is the fifth planet from the Sun and the largest in the Solar System.",
        "extract_html": "<p><b>Jupiter</b> is the fifth planet ...</p>",
        "description": "fifth planet from the Sun",
        "content_urls": {
            "desktop": {"page": "https://en.wikipedia.org/wiki/Jupiter"},
            "mobile": {"page": "https://en.m.wikipedia.org/wiki/Jupiter"},
        },
    },
    "Great_Red_Spot": {
        "type": "standard",
        "title": "Great Red Spot",
        "pageid": 1,
        "extract": "The Great Red Spot is a persistent storm in Jupiter's atmosphere.",
        "content_urls": {"desktop": {"page": "https://en.wikipedia.org/wiki/Great_Red_Spot"}},
    },
}

# DuckDuckGo Instant Answer API (format=json): an abstract, flat topics and a topic group.
DDG_ANSWER = {
    "Abstract": "Python is a high-level, general-purpose programming language.",
    "AbstractText": "Python is a high-level, general-purpose programming language.",
    "AbstractSource": "Wikipedia",
    "AbstractURL": "https://en.wikipedia.org/wiki/Python_(programming_language)",
    "Heading": "Python (programming language)",
    "Answer": "",
    "Definition": "",
    "Image": "",
    "Type": "A",
    "Redirect": "",
    "Results": [
        {
            "FirstURL": "https://www.python.org/",
            "Icon": {"URL": "/i/python.org.ico", "Height": 16, "Width": 16},
            "Result": '<a href="https://www.python.org/">Official site</a>',
            "Text": "Official site",
        }
    ],
    "RelatedTopics": [
        {
            "FirstURL": "https://duckduckgo.com/CPython",
            "Icon": {"URL": "", "Height": "", "Width": ""},
            "Result": '<a href="https://duckduckgo.com/CPython">CPython</a> - The reference '
            "implementation of Python.",
            "Text": "CPython - The reference implementation of Python.",
        },
        {
            "Name": "See also",
            "Topics": [
                {
                    "FirstURL": "https://duckduckgo.com/PyPy",
                    "Result": '<a href="https://duckduckgo.com/PyPy">PyPy</a> - A fast Python.',
                    "Text": "PyPy - A fast Python.",
                }
            ],
        },
    ],
}


class WebState:
    def __init__(self) -> None:
        self.mode = "ok"  # ok | slow | error | garbage
        self.paths: list[str] = []


def _handler(state: WebState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            state.paths.append(self.path)
            if state.mode == "slow":
                time.sleep(1.5)
            if state.mode == "error":
                return self._send(503, b"<html>busy</html>", "text/html")
            if state.mode == "garbage":
                return self._send(200, b"<html>not json</html>", "text/html")
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == "/w/rest.php/v1/search/page":
                limit = int(query["limit"][0])
                body = {"pages": WIKI_SEARCH["pages"][:limit]} if query["q"][0] else {"pages": []}
                return self._json(200, body)
            if url.path.startswith("/api/rest_v1/page/summary/"):
                key = unquote(url.path.rsplit("/", 1)[1])
                if key in WIKI_SUMMARIES:
                    return self._json(200, WIKI_SUMMARIES[key])
                return self._json(404, {"type": "not_found", "title": "Not found."})
            if url.path == "/" and query.get("format") == ["json"]:
                if query["q"][0] == "nothing":
                    return self._json(200, {"AbstractText": "", "RelatedTopics": []}, ddg=True)
                return self._json(200, DDG_ANSWER, ddg=True)
            return self._json(404, {"error": "no route"})

        def _json(self, status: int, payload: Any, ddg: bool = False) -> None:
            kind = "application/x-javascript" if ddg else "application/json; charset=utf-8"
            self._send(status, json.dumps(payload).encode(), kind)

        def _send(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # the timeout tests hang up on purpose before the slow handler writes its answer
        error = sys.exc_info()[1]
        if not isinstance(error, BrokenPipeError | ConnectionResetError):
            super().handle_error(request, client_address)


@pytest.fixture
def web() -> Iterator[tuple[WebState, str]]:
    state = WebState()
    with serving(QuietServer(("127.0.0.1", 0), _handler(state))) as url:
        yield state, url


def _closed_url() -> str:
    return f"http://127.0.0.1:{closed_port()}"


def test_web_search_is_off_by_default() -> None:
    assert Settings().agent.web_search == "off"
    assert make_web_search(Settings()) is None


def test_make_web_search_builds_the_configured_provider() -> None:
    wiki = make_web_search(Settings(agent={"web_search": "wikipedia", "web_timeout_s": 3.0}))
    assert isinstance(wiki, WikipediaProvider)
    assert wiki.base_url == "https://en.wikipedia.org"
    assert wiki.timeout == 3.0
    ddg = make_web_search(Settings(agent={"web_search": "duckduckgo", "web_search_url": "http://127.0.0.1:1/"}))
    assert isinstance(ddg, DuckDuckGoProvider)
    assert ddg.base_url == "http://127.0.0.1:1"
    assert isinstance(ddg, WebSearchProvider)


def test_wikipedia_search_returns_summaries(web: tuple[WebState, str]) -> None:
    state, url = web
    provider = make_web_search(Settings(agent={"web_search": "wikipedia", "web_search_url": url}))
    assert provider is not None
    results = provider.search("largest planet", k=3)
    assert [r.title for r in results] == ["Jupiter", "Great Red Spot", "Vanished page"]
    assert results[0] == WebResult(
        title="Jupiter",
        url="https://en.wikipedia.org/wiki/Jupiter",
        snippet="Jupiter is the fifth planet from the Sun and the largest in the Solar System.",
    )
    # a page whose summary is gone keeps the plain-text search excerpt and a built URL
    assert results[2].snippet == "An & excerpt only"
    assert results[2].url == f"{url}/wiki/Vanished_page"
    assert state.paths[0].startswith("/w/rest.php/v1/search/page?")
    assert "limit=3" in state.paths[0]


def test_wikipedia_honours_k(web: tuple[WebState, str]) -> None:
    _, url = web
    assert len(WikipediaProvider(url, timeout=3).search("jupiter", k=1)) == 1


def test_duckduckgo_search_reads_abstract_results_and_topics(web: tuple[WebState, str]) -> None:
    state, url = web
    provider = make_web_search(Settings(agent={"web_search": "duckduckgo", "web_search_url": url}))
    assert provider is not None
    results = provider.search("python language", k=4)
    assert [r.title for r in results] == [
        "Python (programming language)",
        "Official site",
        "CPython",
        "PyPy",
    ]
    assert results[0].url == "https://en.wikipedia.org/wiki/Python_(programming_language)"
    assert results[2].snippet == "CPython - The reference implementation of Python."
    assert "format=json" in state.paths[0]
    assert len(provider.search("python language", k=2)) == 2


def test_duckduckgo_without_answer_is_empty(web: tuple[WebState, str]) -> None:
    _, url = web
    assert DuckDuckGoProvider(url, timeout=3).search("nothing", k=3) == []


@pytest.mark.parametrize("provider_cls", [WikipediaProvider, DuckDuckGoProvider])
def test_timeout_is_web_unavailable(web: tuple[WebState, str], provider_cls: Any) -> None:
    state, url = web
    state.mode = "slow"
    started = time.monotonic()
    with pytest.raises(WebUnavailable, match="did not answer within"):
        provider_cls(url, timeout=0.3).search("anything", k=2)
    assert time.monotonic() - started < 1.4


@pytest.mark.parametrize("provider_cls", [WikipediaProvider, DuckDuckGoProvider])
def test_connection_refused_is_web_unavailable(provider_cls: Any) -> None:
    with pytest.raises(WebUnavailable, match="unreachable") as caught:
        provider_cls(_closed_url(), timeout=2).search("anything", k=2)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("provider_cls", [WikipediaProvider, DuckDuckGoProvider])
@pytest.mark.parametrize(("mode", "message"), [("error", "HTTP 503"), ("garbage", "not JSON")])
def test_bad_answers_are_web_unavailable(
    web: tuple[WebState, str], provider_cls: Any, mode: str, message: str
) -> None:
    state, url = web
    state.mode = mode
    with pytest.raises(WebUnavailable, match=message):
        provider_cls(url, timeout=2).search("anything", k=2)


def test_to_sources_makes_web_sources() -> None:
    results = [WebResult("Jupiter", "https://en.wikipedia.org/wiki/Jupiter", "gas giant")]
    assert to_sources(results) == [
        Source(
            document_id="https://en.wikipedia.org/wiki/Jupiter",
            document_name="Jupiter",
            kind="web",
            url="https://en.wikipedia.org/wiki/Jupiter",
        )
    ]
