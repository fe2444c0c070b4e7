"""A PDF page as a PNG, with a passage marked on it (what a user opens from a citation).

The passage comes from the Markdown the PDF was converted to, so its line breaks and
emphasis marks differ from the page's text. It is matched in short runs of words, each
searched on the page, and every run found is highlighted.

A page can be of any size (a 1 KB PDF can hold a page of 10,000 by 10,000 points, 20,000
pixels square at the usual zoom, over a gigabyte to draw), so the zoom is lowered until
the picture holds at most ``MAX_PAGE_PIXELS`` pixels and no side is longer than
``MAX_PAGE_SIDE``. What MuPDF still cannot draw is a ``PageNotRendered`` error.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from archivist.types import LoadError

_MARKUP = re.compile(r"[*_`#>|\[\]]+")
RUN_WORDS = 6
MAX_RUNS = 80
HIGHLIGHT_RGB = (1.0, 0.85, 0.0)
MAX_PAGE_PIXELS = 4_000_000  # 2,000 x 2,000; an A4 page at the usual zoom is 1.1 million
MAX_PAGE_SIDE = 4_000


class PageOutOfRange(LoadError):
    """The page number is outside the document."""


class PageNotRendered(LoadError):
    """MuPDF could not draw the page (a damaged page, or one past its own limits)."""


@dataclass
class RenderedPage:
    """A page's PNG, how many pages the document has, and how many runs were marked."""

    png: bytes
    page: int
    page_count: int
    highlights: int


def highlight_runs(text: str, words_per_run: int = RUN_WORDS) -> list[str]:
    """The passage as runs of a few words, with Markdown marks removed."""
    words = _MARKUP.sub(" ", text).split()
    runs = [" ".join(words[i:i + words_per_run]) for i in range(0, len(words), words_per_run)]
    return [r for r in runs if len(r) >= 12][:MAX_RUNS]


def bounded_zoom(width_pt: float, height_pt: float, zoom: float) -> float:
    """``zoom``, lowered so a page of this size draws within the pixel and side limits."""
    width, height = max(width_pt, 1.0), max(height_pt, 1.0)
    return min(zoom, math.sqrt(MAX_PAGE_PIXELS / (width * height)),
               MAX_PAGE_SIDE / max(width, height))


def render_page(
    path: Path, page_number: int, highlight: str = "", zoom: float = 1.5
) -> RenderedPage:
    """Page ``page_number`` (1-based) of the PDF at ``path``, with ``highlight`` marked."""
    import pymupdf

    try:
        document = pymupdf.open(str(path))
    except Exception as exc:  # PyMuPDF raises its own types for unreadable files
        raise LoadError(f"{path.name}: cannot open the PDF ({exc})") from exc
    with document:
        count = document.page_count
        if not 1 <= page_number <= count:
            raise PageOutOfRange(f"{path.name} has {count} pages; there is no page {page_number}")
        try:
            page = document[page_number - 1]
            marked = 0
            for run in highlight_runs(highlight) if highlight.strip() else []:
                quads = page.search_for(run, quads=True)
                if quads:
                    annotation = page.add_highlight_annot(quads)
                    annotation.set_colors(stroke=HIGHLIGHT_RGB)
                    annotation.update()
                    marked += 1
            scale = bounded_zoom(page.rect.width, page.rect.height, zoom)
            pixmap = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), annots=True)
            png = pixmap.tobytes("png")
        except Exception as exc:  # MuPDF's own error types (FzErrorLimit, FzErrorFormat ...)
            raise PageNotRendered(
                f"{path.name}: page {page_number} cannot be drawn ({type(exc).__name__})"
            ) from exc
        return RenderedPage(png, page_number, count, marked)


class RenderCache:
    """The last few rendered pages, by document version, page and highlight (an LRU).

    A citation is opened again and again (the answer, then the same source once more);
    the key holds the document's content hash, so a replaced file is never served stale.
    """

    def __init__(self, entries: int = 32) -> None:
        self.entries = entries
        self._pages: OrderedDict[tuple[str, int, str], RenderedPage] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, str]) -> RenderedPage | None:
        """The cached render, now the most recently used, or None."""
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
            return found

    def put(self, key: tuple[str, int, str], rendered: RenderedPage) -> None:
        """Keep ``rendered``, dropping the least recently used beyond the limit."""
        with self._lock:
            self._pages[key] = rendered
            self._pages.move_to_end(key)
            while len(self._pages) > self.entries:
                self._pages.popitem(last=False)
