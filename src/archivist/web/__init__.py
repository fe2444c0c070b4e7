"""Pluggable web search, used when the documents do not hold the answer.

``make_web_search(settings)`` gives the configured provider, or ``None`` when
``web_search = "off"`` (the default). Every provider raises :class:`WebUnavailable` (one
line) when the search cannot be done; callers report "web unavailable" and carry on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archivist.events import Source
from archivist.web.base import WebResult, WebSearchProvider, WebUnavailable
from archivist.web.duckduckgo import DEFAULT_DUCKDUCKGO_URL, DuckDuckGoProvider
from archivist.web.wikipedia import DEFAULT_WIKIPEDIA_URL, WikipediaProvider

if TYPE_CHECKING:
    from archivist.settings import Settings

__all__ = [
    "DuckDuckGoProvider",
    "WebResult",
    "WebSearchProvider",
    "WebUnavailable",
    "WikipediaProvider",
    "make_web_search",
    "to_sources",
]


def make_web_search(settings: Settings) -> WebSearchProvider | None:
    """Build the provider named by ``settings.agent.web_search``; ``None`` when it is "off".

    ``settings.agent.web_search_url`` replaces the provider's base URL (a mirror, a proxy, or a
    local server in tests).
    """
    choice = settings.agent.web_search
    if choice == "off":
        return None
    timeout = settings.agent.web_timeout_s
    if choice == "wikipedia":
        return WikipediaProvider(settings.agent.web_search_url or DEFAULT_WIKIPEDIA_URL, timeout)
    if choice == "duckduckgo":
        return DuckDuckGoProvider(settings.agent.web_search_url or DEFAULT_DUCKDUCKGO_URL, timeout)
    raise WebUnavailable(f"unknown web search provider {choice!r}")


def to_sources(results: list[WebResult]) -> list[Source]:
    """Turn web results into citable sources (``kind="web"``, the URL as document id)."""
    return [
        Source(document_id=r.url, document_name=r.title, kind="web", url=r.url) for r in results
    ]
