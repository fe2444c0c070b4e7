"""How ``list`` and ``search`` fit a terminal: names whole, each place named once."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from rich import box
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from archivist.app.cli.common import console, plain
from archivist.filings.document import filing_label
from archivist.types import DocumentRecord, SearchHit, source_label


def added_date(added_at: str) -> str:
    """The day a document was added (``2026-12-05``), from its stored timestamp."""
    try:
        return datetime.fromisoformat(added_at).date().isoformat()
    except ValueError:
        return added_at[:10]


#: How much of a hit's text ``search`` shows.
HIT_CHARS = 300
#: Markdown heading lines at the start of a hit's text.
_LEADING_HEADINGS = re.compile(r"\A(?:#{1,6}[ \t][^\n]*\n\s*)+")

#: ``list``'s columns after the name, most useful first; the last ones go first when the
#: table is wider than the terminal.
LIST_COLUMNS: tuple[tuple[str, Callable[[DocumentRecord], str]], ...] = (
    ("added", lambda d: added_date(d.added_at)),
    ("pages", lambda d: str(d.page_count or "-")),
    ("id", lambda d: d.document_id[:12]),
    ("chunks", lambda d: str(d.child_count)),
    ("parents", lambda d: str(d.parent_count)),
)


def document_table(docs: list[DocumentRecord], width: int) -> Table:
    """The documents as a table ``width`` columns wide at most, file names whole.

    Columns are dropped from the end of LIST_COLUMNS until the table fits; a name wider
    than the terminal on its own, and a filing's label, are what wrap.
    """
    for kept in range(len(LIST_COLUMNS), -1, -1):
        columns = LIST_COLUMNS[:kept]
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("name", overflow="fold")
        filings = any(d.form for d in docs)  # a filing's company, form and period
        if filings:
            table.add_column("filing", overflow="fold")
        for title, _ in columns:
            table.add_column(title, no_wrap=True)
        for d in docs:
            table.add_row(plain(d.name), *([plain(filing_label(d) or "-")] if filings else []),
                          *(value(d) for _, value in columns))
        natural = Measurement.get(console, console.options.update(max_width=10**6), table)
        if natural.maximum <= width:
            break
    return table


def shortened(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, marked with …."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def hit_lines(rank: int, hit: SearchHit, width: int, indent: int = 3) -> list[Text]:
    """A search hit in lines at most ``width`` wide, each place named once.

    First where it is, as citations name it (document, pages, section), and its score;
    then the start of its text, wrapped at words under a hanging indent of ``indent``.
    """
    where = source_label({"document_name": hit.document_name, "pages": hit.pages,
                          "heading_path": hit.section})
    head = Text.assemble(plain(where), plain(f"  score {hit.score:.4f}", "dim"))
    text = _LEADING_HEADINGS.sub("", hit.text.lstrip())  # the label names its section
    body = plain(shortened(" ".join(text.split()), HIT_CHARS))
    room = max(width - indent, 20)
    lines = [*head.wrap(console, room), *body.wrap(console, room)]
    for line in lines:
        line.rstrip()
    mark = Text(f"{rank}.".ljust(indent), "bold")
    return [Text.assemble(mark if i == 0 else " " * indent, line)
            for i, line in enumerate(lines)]
