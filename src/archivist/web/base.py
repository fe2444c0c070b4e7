"""What every web search provider shares: the result type, the protocol, the HTTP helper."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html import unescape
from typing import Any, Protocol, runtime_checkable

import httpx

from archivist.types import ArchivistError

USER_AGENT = "archivist/0.1 (agentic RAG; web search fallback)"

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


class WebUnavailable(ArchivistError):
    """The web search could not be done (network, timeout, bad status, bad JSON).

    Its message is one line; callers treat it as "web unavailable" and carry on.
    """


@dataclass(frozen=True)
class WebResult:
    """One web page found by a search."""

    title: str
    url: str
    snippet: str


@runtime_checkable
class WebSearchProvider(Protocol):
    """A web search engine: ``search`` returns at most ``k`` results, best first."""

    name: str

    def search(self, query: str, k: int = 3) -> list[WebResult]:
        """Search the web; raise :class:`WebUnavailable` when the search cannot be done."""
        ...


def plain_text(html: str) -> str:
    """Strip tags and entities from an HTML snippet and collapse whitespace."""
    return _SPACE.sub(" ", unescape(_TAG.sub("", html))).strip()


def get_json(
    client: httpx.Client, url: str, *, provider: str, params: dict[str, Any] | None = None
) -> Any:
    """GET ``url`` and decode its JSON body, turning every failure into :class:`WebUnavailable`."""
    try:
        response = client.get(url, params=params)
    except httpx.TimeoutException as exc:
        raise WebUnavailable(f"{provider} did not answer within {client.timeout.read}s") from exc
    except httpx.HTTPError as exc:
        raise WebUnavailable(f"{provider} is unreachable: {type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        raise WebUnavailable(f"{provider} answered HTTP {response.status_code} for {url}")
    try:
        return json.loads(response.text)
    except ValueError as exc:
        raise WebUnavailable(f"{provider} sent a response that is not JSON") from exc


def make_client(timeout: float) -> httpx.Client:
    """Open an HTTP client with the given (per-phase) timeout and Archivist's User-Agent."""
    return httpx.Client(
        timeout=httpx.Timeout(timeout),
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        follow_redirects=True,
    )
