"""A PDF page as a PNG, with a passage marked on it (what a user opens from a citation).

The passage comes from the Markdown the PDF was converted to, so its line breaks and
emphasis marks differ from the page's text. It is matched in short runs of words, each
searched on the page, and every run found is highlighted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from archivist.types import LoadError

_MARKUP = re.compile(r"[*_`#>|\[\]]+")
RUN_WORDS = 6
MAX_RUNS = 80
HIGHLIGHT_RGB = (1.0, 0.85, 0.0)


class PageOutOfRange(LoadError):
    """The page number is outside the document."""


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
        page = document[page_number - 1]
        marked = 0
        for run in highlight_runs(highlight) if highlight.strip() else []:
            quads = page.search_for(run, quads=True)
            if quads:
                annotation = page.add_highlight_annot(quads)
                annotation.set_colors(stroke=HIGHLIGHT_RGB)
                annotation.update()
                marked += 1
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True)
        return RenderedPage(pixmap.tobytes("png"), page_number, count, marked)
