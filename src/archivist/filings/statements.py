"""A filing's income statement, balance sheet and cash-flow statement as typed tables.

Pure functions over the tables found in a document (``LoadedDocument.tables``). A
statement is known by its title in the table's caption or section (``CONSOLIDATED
STATEMENTS OF OPERATIONS``, ``BALANCE SHEETS``, ``STATEMENTS OF CASH FLOWS``); of several
tables with one kind of title, the one with the most rows is the statement (the selected
data of an annual report repeats a few of its lines). A statement the page layout broke
into pieces is joined again: a table right after it, on its last page or the next, with no
title of a statement and as many number columns, continues it. Its table has the columns
``line_item``, ``section`` (when the statement has sections), one number column per
period named by the period (``fy2017``, ``q2023_06_30``, ``d2023_06_30``) and ``page``:
the page each row is printed on. Values stay as printed, in the statement's ``unit``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from archivist.filings.periods import parse_date
from archivist.types import Cell, DataTable, LoadedDocument

__all__ = ["STATEMENTS", "Period", "period_of", "statement_kind", "statement_tables"]

STATEMENTS = ("income_statement", "balance_sheet", "cash_flow_statement")
_MIN_ROWS = 5
_INCOME = re.compile(r"statements? of (?:consolidated )?(?:\w+ )?(?:income|operations|earnings"
                     r"|loss)|income statements?|profit (?:and|&) loss", re.I)
_COMPREHENSIVE_ONLY = re.compile(r"statements? of (?:consolidated )?comprehensive (?:income|loss)"
                                 r"(?! and)", re.I)
_BALANCE = re.compile(r"balance sheets?|statements? of financial (?:position|condition)", re.I)
_CASH = re.compile(r"statements? of (?:consolidated )?cash flows?|cash flows? statements?", re.I)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
#: A quarter, half year and nine months as retailers' and bottlers' 4-4-5, 12- and
#: 16-week calendars count them too ("12 Weeks Ended", "24 weeks", "36 weeks").
_QUARTER = re.compile(r"\b(?:three|3)[- ]months?\b|\bquarter\b|\b1[2-7][- ]weeks?\b", re.I)
_HALF = re.compile(r"\b(?:six|6)[- ]months?\b|\b2[4-8][- ]weeks?\b", re.I)
_NINE = re.compile(r"\b(?:nine|9)[- ]months?\b|\b(?:3[6-9]|40)[- ]weeks?\b", re.I)
#: How much of a page's opening text may hold the title of the statement printed on it.
PAGE_TITLE_CHARS = 200
_ANNUAL = re.compile(r"\b(?:twelve|12)[- ]months?\b|\byears?\b|\bfiscal\b|\b5[23] weeks\b",
                     re.I)


@dataclass(frozen=True)
class Period:
    """A statement column's period: its SQL name, its last day (or year) and its length."""

    name: str
    end: date | None
    year: int
    months: int
    """3, 6, 9 or 12 for a flow; 0 for a balance at a date."""


def statement_kind(title: str) -> str | None:
    """``income_statement``, ``balance_sheet``, ``cash_flow_statement`` or ``None``."""
    if _CASH.search(title):
        return "cash_flow_statement"
    if _BALANCE.search(title):
        return "balance_sheet"
    if _INCOME.search(title) and not _COMPREHENSIVE_ONLY.search(title):
        return "income_statement"
    return None


def period_of(label: str, context: str, balance: bool) -> Period | None:
    """The period a column header names (``context``: the caption, for what it leaves out)."""
    years = _YEAR.findall(label)
    if len(years) != 1:
        return None
    end = parse_date(label)
    year = int(years[0])
    if end is None:  # "2017" under "Year ended December 31,": the date from the caption
        found = parse_date(f"{_date_words(context)} {year}")
        end = found if found is not None and found.year == year else None
    if balance:
        return Period(f"d{end:%Y_%m_%d}" if end and parse_date(label) else f"fy{year}",
                      end, year, 0)
    text = f"{label} {context}" if not re.search(r"month|week|year|quarter", label, re.I) \
        else label
    for pattern, months, prefix in ((_QUARTER, 3, "q"), (_HALF, 6, "m6_"), (_NINE, 9, "m9_")):
        if pattern.search(text):
            stamp = f"{end:%Y_%m_%d}" if end else str(year)
            return Period(f"{prefix}{stamp}", end, year, months)
    if _ANNUAL.search(text) or not re.search(r"month|week", text, re.I):
        return Period(f"fy{year}", end, year, 12)
    return None


def _unique(name: str, used: set[str]) -> str:
    """``name``, or ``name_2``... when a column of the table already has it (joins ``used``)."""
    unique, n = name, 2
    while unique in used:
        unique, n = f"{name}_{n}", n + 1
    used.add(unique)
    return unique


def _date_words(context: str) -> str:
    """``December 31`` from ``Year ended December 31,`` (the first month and day named)."""
    match = re.search(r"([A-Z][a-z]+\.?\s+\d{1,2})\s*,?", context)
    return match.group(1) if match else ""


def _page_texts(loaded: LoadedDocument) -> dict[int, str]:
    pages: dict[int, list[str]] = {}
    for span in loaded.page_spans:
        pages.setdefault(span.page, []).append(loaded.markdown[span.start:span.end])
    return {page: " ".join(" ".join(parts).split()) for page, parts in pages.items()}


def _row_page(label: str, table: DataTable, texts: dict[int, str]) -> int | None:
    """The page of the table's pages whose text holds ``label`` (its first page if none)."""
    first, last = table.page_start, table.page_end or table.page_start
    if first is None or last is None or first == last:
        return first
    words = " ".join(label.split())
    for page in range(first, last + 1):
        if words and words in texts.get(page, ""):
            return page
    return first


def _numbers(table: DataTable) -> list[int]:
    """The indexes of a table's number columns (its ``section`` column left out)."""
    return [i for i, (name, kind) in enumerate(zip(table.columns, table.kinds, strict=True))
            if i and kind == "number" and name != "section"]


def _continues(last_page: int | None, width: int, piece: DataTable) -> bool:
    """Whether ``piece`` continues a statement ending on ``last_page``.

    It does when it starts on that page or the next, has no statement title, as many
    number columns (``width``), and no column naming a period other than by its year.
    """
    if last_page is None or piece.page_start is None or \
            not 0 <= piece.page_start - last_page <= 1:
        return False
    numbers = _numbers(piece)
    if statement_kind(piece.caption) is not None or len(numbers) != width:
        return False
    return all(_YEAR.search(piece.labels[i]) for i in numbers if piece.labels[i])


def _joined(tables: list[DataTable], at: int) -> DataTable:
    """The statement at ``tables[at]`` with the pieces that continue it appended."""
    table = tables[at]
    rows = [list(row) for row in table.rows]
    numbers = _numbers(table)
    page_end = table.page_end or table.page_start
    for piece in tables[at + 1:]:
        if not _continues(page_end, len(numbers), piece):
            break
        for row in piece.rows:
            joined: list[Cell] = [row[0], *([None] * (len(table.columns) - 1))]
            for mine, theirs in zip(numbers, _numbers(piece), strict=True):
                joined[mine] = row[theirs]
            rows.append(joined)
        page_end = piece.page_end or piece.page_start
    if len(rows) == len(table.rows):
        return table
    return DataTable(caption=table.caption, columns=table.columns, labels=table.labels,
                     kinds=table.kinds, rows=rows, unit=table.unit, page_start=table.page_start,
                     page_end=page_end, heading_path=list(table.heading_path), name=table.name)


def statement_tables(loaded: LoadedDocument) -> list[DataTable]:
    """The document's statements found among its tables, each as a typed table.

    A statement is titled by its table's caption or section; a kind of statement no such
    table holds (one with a column per period) is looked for by the title that opens the
    table's page (a filing that prints "Consolidated Statements of Income" above the
    table, outside it).
    """
    texts = _page_texts(loaded)

    def page_title(found: DataTable) -> str:
        return texts.get(found.page_start, "")[:PAGE_TITLE_CHARS] \
            if found.page_start is not None else ""

    titled = _largest(loaded.tables, lambda t: " ".join([t.caption, *t.heading_path[-1:]]))
    on_page = _largest(loaded.tables, page_title)
    out = []
    for kind in STATEMENTS:
        typed = (_statement(kind, found[kind], texts) for found in (titled, on_page)
                 if kind in found)
        first = next((t for t in typed if t is not None), None)
        if first is not None:
            out.append(first)
    return out


def _largest(tables: list[DataTable], title: Callable[[DataTable], str]) -> dict[str, DataTable]:
    """Of the tables ``title`` names a statement, the largest of each kind, pieces joined."""
    best: dict[str, DataTable] = {}
    for at, found in enumerate(tables):
        kind = statement_kind(title(found))
        if kind is None:
            continue
        table = _joined(tables, at)
        if len(table.rows) < _MIN_ROWS:
            continue
        if kind not in best or len(table.rows) > len(best[kind].rows):
            best[kind] = table
    return best


def _statement(kind: str, table: DataTable, texts: dict[int, str]) -> DataTable | None:
    """``table`` as the statement's table, or ``None`` when no column names a period."""
    balance = kind == "balance_sheet"
    used = {"line_item", "section", "page"}
    periods: list[tuple[int, str, str]] = []
    for index, (label, column_kind) in enumerate(zip(table.labels, table.kinds, strict=True)):
        if index == 0 or column_kind != "number" or table.columns[index] == "section":
            continue
        period = period_of(label or table.columns[index], table.caption, balance)
        if period is not None:
            periods.append((index, _unique(period.name, used), label))
    if not periods:
        return None
    has_section = "section" in table.columns
    section_at = table.columns.index("section") if has_section else None
    rows: list[list[Cell]] = []
    for row in table.rows:
        item = row[0]
        if item is None or not str(item).strip():
            continue
        values = [row[index] for index, _, _ in periods]
        if all(v is None for v in values):
            continue
        section = [row[section_at]] if section_at is not None else []
        rows.append([str(item), *section, *values, _row_page(str(item), table, texts)])
    names = ["line_item", *(["section"] if has_section else []), *(n for _, n, _ in periods),
             "page"]
    labels = ["line item", *(["section"] if has_section else []), *(lb for _, _, lb in periods),
              "page"]
    kinds = ["text", *(["text"] if has_section else []), *(["number"] * len(periods)), "number"]
    return DataTable(caption=table.caption, columns=names, labels=labels, kinds=kinds, rows=rows,
                     unit=table.unit, page_start=table.page_start, page_end=table.page_end,
                     heading_path=list(table.heading_path), name=kind)
