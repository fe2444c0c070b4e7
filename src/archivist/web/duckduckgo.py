"""DuckDuckGo's Instant Answer API (``GET https://api.duckduckgo.com/?q=Q&format=json``).

The answer is ``{"Heading", "AbstractText", "AbstractURL", "Results": [...],
"RelatedTopics": [...]}`` where each result or topic is ``{"FirstURL", "Text", "Result"}``
and a topic group is ``{"Name", "Topics": [...]}``. It gives topic abstracts (mostly from
Wikipedia) and related links, not a full web index: many questions get no result, which
is an empty list, not an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from archivist.web.base import WebResult, WebUnavailable, get_json, make_client, plain_text

DEFAULT_DUCKDUCKGO_URL = "https://api.duckduckgo.com"

_ANCHOR = re.compile(r"<a [^>]*>(.*?)</a>", re.IGNORECASE | re.DOTALL)


class DuckDuckGoProvider:
    """Search with DuckDuckGo's keyless Instant Answer API."""

    name = "duckduckgo"

    def __init__(self, base_url: str = DEFAULT_DUCKDUCKGO_URL, timeout: float = 8.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def search(self, query: str, k: int = 3) -> list[WebResult]:
        """Return the abstract (when there is one), then results and related topics."""
        if not query.strip() or k < 1:
            return []
        params = {
            "q": query,
            "format": "json",
            "no_html": "1",
            "no_redirect": "1",
            "skip_disambig": "1",
            "t": "archivist",
        }
        with make_client(self.timeout) as client:
            data = get_json(client, f"{self.base_url}/", provider=self.name, params=params)
        if not isinstance(data, dict):
            raise WebUnavailable("duckduckgo answered with JSON that is not an object")
        results: list[WebResult] = []
        seen: set[str] = set()
        abstract = str(data.get("AbstractText") or "").strip()
        abstract_url = str(data.get("AbstractURL") or "").strip()
        if abstract and abstract_url:
            title = str(data.get("Heading") or abstract_url)
            results.append(WebResult(title=title, url=abstract_url, snippet=abstract))
            seen.add(abstract_url)
        for topic in _topics(data.get("Results"), data.get("RelatedTopics")):
            if len(results) >= k:
                break
            url = str(topic.get("FirstURL") or "")
            if not url or url in seen:
                continue
            seen.add(url)
            results.append(_topic_result(topic, url))
        return results[:k]


def _topics(*groups: Any) -> Iterator[dict[str, Any]]:
    for group in groups:
        if not isinstance(group, list):
            continue
        for item in group:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("Topics"), list):
                yield from _topics(item["Topics"])
            else:
                yield item


def _topic_result(topic: dict[str, Any], url: str) -> WebResult:
    text = plain_text(str(topic.get("Text") or ""))
    anchor = _ANCHOR.search(str(topic.get("Result") or ""))
    title = plain_text(anchor.group(1)) if anchor else ""
    if not title:
        title = text.split(" - ", 1)[0] if text else url
    return WebResult(title=title, url=url, snippet=text)
