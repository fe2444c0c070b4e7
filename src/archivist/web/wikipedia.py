"""Wikipedia search: MediaWiki's REST page search, then each page's REST summary.

1. ``GET {base}/w/rest.php/v1/search/page?q=QUERY&limit=K`` answers
   ``{"pages": [{"id", "key", "title", "excerpt", "description", ...}]}``.
2. ``GET {base}/api/rest_v1/page/summary/{key}`` answers ``{"title", "extract",
   "content_urls": {"desktop": {"page": URL}}, ...}``; the extract (the article's lead in
   plain text) becomes the snippet. A page whose summary is missing (404) keeps the
   search excerpt.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from archivist.web.base import WebResult, WebUnavailable, get_json, make_client, plain_text

DEFAULT_WIKIPEDIA_URL = "https://en.wikipedia.org"


class WikipediaProvider:
    """Search one Wikipedia (English by default; any MediaWiki with the REST API works)."""

    name = "wikipedia"

    def __init__(self, base_url: str = DEFAULT_WIKIPEDIA_URL, timeout: float = 8.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def search(self, query: str, k: int = 3) -> list[WebResult]:
        """Return the top ``k`` pages for ``query`` with their lead paragraph as snippet."""
        if not query.strip() or k < 1:
            return []
        with make_client(self.timeout) as client:
            found = get_json(
                client,
                f"{self.base_url}/w/rest.php/v1/search/page",
                provider=self.name,
                params={"q": query, "limit": k},
            )
            pages = found.get("pages") if isinstance(found, dict) else None
            if not isinstance(pages, list):
                raise WebUnavailable("wikipedia search answered without a 'pages' list")
            return [self._result(client, page) for page in pages[:k] if _valid_page(page)]

    def _result(self, client: Any, page: dict[str, Any]) -> WebResult:
        key = str(page.get("key") or page["title"]).replace(" ", "_")
        page_url = f"{self.base_url}/wiki/{quote(key, safe='')}"
        fallback = WebResult(
            title=str(page["title"]),
            url=page_url,
            snippet=plain_text(str(page.get("excerpt") or page.get("description") or "")),
        )
        try:
            summary = get_json(
                client,
                f"{self.base_url}/api/rest_v1/page/summary/{quote(key, safe='')}",
                provider=self.name,
            )
        except WebUnavailable as exc:
            if "HTTP 404" in str(exc):
                return fallback  # the page vanished between search and summary
            raise
        if not isinstance(summary, dict):
            raise WebUnavailable("wikipedia summary is not a JSON object")
        urls = summary.get("content_urls") or {}
        url = (urls.get("desktop") or {}).get("page") if isinstance(urls, dict) else None
        return WebResult(
            title=str(summary.get("title") or fallback.title),
            url=str(url or page_url),
            snippet=str(summary.get("extract") or fallback.snippet).strip(),
        )


def _valid_page(page: Any) -> bool:
    return isinstance(page, dict) and bool(page.get("title"))
