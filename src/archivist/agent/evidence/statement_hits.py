"""A filing's statement, shown among the hits when a question asks for its line items.

An analyst who is asked for a company's capex, net income or current ratio opens the
filing's cash-flow statement, income statement or balance sheet. A search by the
question's words often does not: the statement is a grid of short labels and numbers,
and the prose that discusses the same items (MD&A, notes) outranks it.

:func:`statements_asked` reads which statements a question needs from its words: a
statement it names ("per the balance sheet"), a line item it names ("capital
expenditure", "accounts payable"), or a standard metric whose formula reads line items
("current ratio": current assets and current liabilities). :func:`statement_hits` then
gives, for a search already kept to a few filings (:data:`MAX_FILINGS`), the section of
each that prints the asked line item of each asked statement, as a hit showing that
section from the statement's title on (:data:`_PASSAGE_CHARS`). The rule guarantees only
that the statement is shown; the search's own hits keep their order around it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from archivist.filings.concepts import CONCEPTS, Concept, label_key, matching_row
from archivist.filings.document import document_about
from archivist.filings.metric_names import METRIC_NAMES
from archivist.filings.metrics import METRICS
from archivist.filings.statements import STATEMENTS
from archivist.index.table_store import StoredTable
from archivist.types import DocumentRecord, Parent, SearchHit

__all__ = ["MAX_FILINGS", "MAX_SHOWN", "statement_hits", "statements_asked"]

#: A search scoped to more filings than this is a comparison across companies or years;
#: their statements are left to the search.
MAX_FILINGS = 4
#: At most this many statement hits are shown, so the search's own hits keep most places.
MAX_SHOWN = 3
_NAMED = {
    "income_statement": re.compile(r"\bincome statements?\b|\bstatements? of (?:consolidated )?"
                                   r"(?:operations|income|earnings)\b|\bP&L\b|\bprofit (?:and|&)"
                                   r" loss\b", re.I),
    "balance_sheet": re.compile(r"\bbalance sheets?\b|\bstatements? of financial "
                                r"(?:position|condition)\b", re.I),
    "cash_flow_statement": re.compile(r"\bcash flows? statements?\b|\bstatements? of "
                                      r"(?:consolidated )?cash flows?\b", re.I),
}
#: Aliases too common to name a line item on their own ("the company's assets").
_LOOSE = frozenset({"assets", "liabilities", "equity", "cash", "profit", "sales", "taxes",
                    "dividends", "depreciation"})
_PASSAGE_CHARS = 1500
_TITLE_CHARS = 12  # a line as long as this that the caption starts with is its title


def _alias_pattern(alias: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w&])" + re.escape(alias).replace(r"\ ", r"[\s-]+") + r"(?![\w&])",
                      re.I)


_ALIASES = [(concept, _alias_pattern(alias)) for concept in CONCEPTS.values()
            for alias in sorted({concept.name.replace("_", " "), *concept.aliases}, key=len,
                                reverse=True)
            if alias not in _LOOSE]
_METRICS = [(key, re.compile(pattern, re.I)) for key, pattern in METRIC_NAMES]


def _concepts_in(text: str) -> list[Concept]:
    """The concepts whose name or alias ``text`` holds, in the order of first mention."""
    found: dict[str, tuple[int, Concept]] = {}
    for concept, pattern in _ALIASES:
        match = pattern.search(text)
        if match and (concept.name not in found or match.start() < found[concept.name][0]):
            found[concept.name] = (match.start(), concept)
    return [concept for _, concept in sorted(found.values(), key=lambda pair: pair[0])]


def statements_asked(question: str) -> dict[str, list[Concept]]:
    """The statements a question needs, each with the line items asked of it (maybe none).

    In the order the question first needs them: statements it names, then those of the
    line items it names, then those of the standard metrics it names (their formula's
    line items). ``{}`` for a question that needs no statement.
    """
    asked: dict[str, list[Concept]] = {}
    for kind, pattern in _NAMED.items():
        if pattern.search(question):
            asked.setdefault(kind, [])
    items = _concepts_in(question)
    for key, pattern in _METRICS:
        if pattern.search(question) and key in METRICS:
            items.extend(c for c in _concepts_in(METRICS[key][1]) if c not in items)
    for concept in items:
        if concept.statement in STATEMENTS:
            asked.setdefault(concept.statement, []).append(concept)
    return asked


def _section(table: StoredTable, labels: list[str], parents: Sequence[Parent]
             ) -> Parent | None:
    """The parent printing the first of ``labels`` (the asked rows), else the first row."""
    first = table.page_start
    if first is None:
        return None
    last = table.page_end if table.page_end is not None else first
    spanning = [p for p in parents if p.page_start is not None
                and p.page_start <= last and (p.page_end or p.page_start) >= first]
    rows = [label for label in (label_key(row) for row in table.row_labels) if label]
    for label in [*labels, *rows[:1]]:
        for parent in spanning:
            if label in label_key(parent.text):
                return parent
    return spanning[0] if spanning else None


def _asked_rows(table: StoredTable, concepts: list[Concept]) -> list[str]:
    """The labels (compared as ``label_key``) of the table's rows the concepts are printed on."""
    labels = [label_key(row) for row in table.row_labels]
    found = [labels[index] for concept in concepts
             if (index := matching_row(concept, labels)) is not None]
    return list(dict.fromkeys(found))


def _passage(parent: Parent, table: StoredTable) -> str:
    """What the hit shows: the section from the statement's title on, as printed.

    The title line is the first line (of :data:`_TITLE_CHARS` or more) the table's caption
    starts with; the whole section when none is.
    """
    lines = [line.strip() for line in parent.text.splitlines() if line.strip()]
    keys = [label_key(line.strip("*# ")) for line in lines]
    caption = label_key(table.caption.strip("*# "))
    start = next((n for n, key in enumerate(keys) if len(key) >= _TITLE_CHARS
                  and (caption.startswith(key) or caption[:40] in key)), 0)
    return "\n".join(lines[start:])[:_PASSAGE_CHARS]


def statement_hits(question: str, documents: Sequence[DocumentRecord],
                   tables: Sequence[StoredTable],
                   parents_of: Callable[[str], Sequence[Parent]], score: float) -> list[SearchHit]:
    """One hit per asked statement of each filing in ``documents`` (at most :data:`MAX_FILINGS`).

    ``tables`` are the documents' stored tables; ``parents_of(document_id)`` their
    sections in reading order; ``score`` the score the hits are given (the search's best).
    ``[]`` for a question that needs no statement, or filings with none found.
    """
    asked = statements_asked(question)
    if not asked or not 0 < len(documents) <= MAX_FILINGS:
        return []
    hits: list[SearchHit] = []
    for document in documents:
        own = {t.name: t for t in tables if t.document_id == document.document_id}
        found = [(own[kind], concepts) for kind, concepts in asked.items() if kind in own]
        parents = parents_of(document.document_id) if found else []
        for table, concepts in found:
            asked_rows = _asked_rows(table, concepts)
            parent = _section(table, asked_rows, parents)
            if parent is None:
                continue
            hits.append(SearchHit(
                child_id=f"{parent.parent_id}#{table.name}", parent_id=parent.parent_id,
                document_id=document.document_id, document_name=document.name,
                text=_passage(parent, table), heading_path=parent.heading_path,
                page_start=parent.page_start, page_end=parent.page_end, score=score,
                document_title=document.title, sections=parent.sections,
                document_about=document_about(document), statement=table.name))
    return hits[:MAX_SHOWN]
