"""A table query's result rows named by their row labels and the figure they are ranked by.

A query that picks figures without the row-label column (``SELECT y2023 - y2022 FROM t``)
returns numbers no reader can tell apart, and one that ranks rows but selects only their
labels (``SELECT item FROM t ORDER BY total DESC LIMIT 1``) returns a name without the
figure that put it first. :func:`labelled_query` is the same query with the table's
row-label column first and the column it orders by last, so each result row says which
line it is and the figure that ranked it. Queries over several tables, with an aggregate,
``DISTINCT``, ``GROUP BY`` or a compound ``SELECT`` are left as they are (a label beside
an aggregate would name an arbitrary row). A query that returned no rows gets the reason
it may have found none (:func:`empty_result_hint`) for its one retry, and so does a ranking
that put a Total row first (:func:`ranked_total_hint`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Sequence
from typing import Any

from archivist.agent.text import PERIOD_YEAR
from archivist.filings.metrics import round_half_up
from archivist.filings.statements import STATEMENTS
from archivist.index.table_sql import SqlResult
from archivist.index.table_store import StoredTable, quote

__all__ = ["empty_result_hint", "labelled_query", "ranked_total_hint", "shown_value",
           "unfiltered_sum_hint", "with_result_figures"]

_AGGREGATE = re.compile(r"\b(?:sum|count|avg|min|max|total|group_concat|string_agg)\s*\(|"
                        r"\bover\s*\(", re.IGNORECASE)
_NOT_ONE_TABLE = re.compile(r"\b(?:join|group\s+by|union|intersect|except|having)\b",
                            re.IGNORECASE)
_SELECT = re.compile(r"^\s*select\s+", re.IGNORECASE)
_DISTINCT = re.compile(r"^\s*(?:distinct|all)\b", re.IGNORECASE)
_NAME = re.compile(r'\s*("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_]*)')
_ORDER = re.compile(r'\border\s+by\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\s*(?:asc|desc)?'
                    r"\s*(?:limit\b|$)", re.IGNORECASE)


def _top_level(text: str) -> str:
    """``text`` with what is inside parentheses and quotes blanked (same length)."""
    out, depth, quote_char = [], 0, ""
    for char in text:
        if quote_char:
            out.append(" ")
            quote_char = "" if char == quote_char else quote_char
        elif char in "'\"`":
            quote_char = char
            out.append(" ")
        elif char == "(":
            depth += 1
            out.append(" ")
        elif char == ")":
            depth = max(0, depth - 1)
            out.append(" ")
        else:
            out.append(char if depth == 0 else " ")
    return "".join(out)


def _bare(name: str) -> str:
    if name[:1] in "\"`[":
        return name[1:-1].replace('""', '"')
    return name


def _names(text: str, column: str) -> bool:
    """Whether the SQL ``text`` names ``column`` (bare or quoted)."""
    pattern = rf'(?<![\w"]){re.escape(column)}(?![\w"])|"{re.escape(column)}"'
    return re.search(pattern, text, re.IGNORECASE) is not None


def labelled_query(query: str, tables: Sequence[StoredTable]) -> str | None:
    """``query`` selecting the row labels first and its ORDER BY column last, or ``None``.

    ``None`` when nothing is to add (it selects the labels and the ordering column, or
    ``*``), or when the query is not a plain SELECT of figures from one of ``tables``.
    """
    start = _SELECT.match(query)
    if start is None:
        return None
    flat = _top_level(query)
    found = re.search(r"\bfrom\b", flat[start.end():], re.IGNORECASE)
    if found is None or _NOT_ONE_TABLE.search(flat):
        return None
    at = start.end() + found.start()
    chosen = query[start.end():at]
    if _DISTINCT.match(chosen) or _AGGREGATE.search(chosen) or \
            "*" in _top_level(chosen):
        return None
    named = _NAME.match(query, at + len(found.group(0)))
    table = next((t for t in tables if named and _bare(named.group(1)) == t.name), None)
    if table is None or not table.columns or (table.kinds and table.kinds[0] != "text"):
        return None
    assert named is not None
    after = flat[named.end():].lstrip()
    if after and not re.match(r"(?:as\s+\w+\s*)?(?:where|order|limit)\b|\w+\s*(?:where|order|"
                              r"limit)\b|\w+\s*$", after, re.IGNORECASE):
        return None  # a comma: more than one table
    label = table.columns[0]
    first = "" if _names(chosen, label) else f"{quote(label)}, "
    ordered = _ORDER.search(query[named.end():])
    by = _bare(ordered.group(1)) if ordered else ""
    last = f", {quote(by)}" if by in table.columns and by != label and \
        not _names(chosen, by) else ""
    if not first and not last:
        return None
    return f"SELECT {first}{chosen.strip()}{last} {query[at:].strip()}"


_EQUALS_TEXT = re.compile(r"""(?:"([^"]+)"|\b([A-Za-z_]\w*))\s*(?:=|\blike\b)\s*'((?:[^']|'')*)'""",
                          re.IGNORECASE)
_EQUALS_YEAR = re.compile(rf"""(?:"([^"]+)"|\b([A-Za-z_]\w*))\s*=\s*({PERIOD_YEAR})\b""")
_SHOWN_LABELS = 12


def empty_result_hint(query: str, tables: Sequence[StoredTable]) -> str:
    """Why a query that returned no rows may have found none, or ``""`` when no reason shows.

    Two mistakes are named: a row label the table does not have (``WHERE item = 'Diluted
    shares'``), answered with the table's labels, the closest first; and a year compared
    as a value with the column that holds that year's figures (``WHERE y2017 = 2017``).
    """
    reasons = []
    for match in _EQUALS_TEXT.finditer(query):
        column = match.group(1) or match.group(2)
        wanted = match.group(3).replace("''", "'").strip("%").lower()
        for table in tables:
            if not table.columns or column != table.columns[0] or not table.row_labels:
                continue
            labels = list(dict.fromkeys(table.row_labels))
            if any(wanted == label.lower() for label in labels):
                continue
            close = difflib.get_close_matches(wanted, [x.lower() for x in labels], n=len(labels),
                                              cutoff=0.0)
            ranked = sorted(labels, key=lambda x: close.index(x.lower()))[:_SHOWN_LABELS]
            reasons.append(f"{table.name} has no row labelled '{match.group(3)}'; its "
                           f"{column} values include: "
                           + "; ".join(f"'{label}'" for label in ranked))
    for match in _EQUALS_YEAR.finditer(query):
        column = match.group(1) or match.group(2)
        if match.group(3) in column and any(column in t.columns for t in tables):
            reasons.append(f"{column} holds the figures of {match.group(3)}, not the year: "
                           f"select {column} and do not compare it with {match.group(3)}")
    return "\n".join(reasons)


_TOTAL_ROW = re.compile(r"\s*total\b", re.IGNORECASE)
_RANKING = re.compile(r"\border\s+by\b.*\blimit\b", re.IGNORECASE | re.DOTALL)


def ranked_total_hint(query: str, tables: Sequence[StoredTable], first: Sequence[object]
                      ) -> str:
    """Why a ranking whose first row (``first``) is a Total row is wrong, or ``""``.

    A Total row sums the rows above it, so it tops every ranking of their figures; the
    hint names the row-label column to leave it out by.
    """
    if not first or not isinstance(first[0], str) or not _TOTAL_ROW.match(first[0]) or \
            not _RANKING.search(query):
        return ""
    column = next((t.columns[0] for t in tables if t.columns and first[0] in t.row_labels),
                  "the label column")
    return (f"the first row is '{first[0]}', which sums the rows above it: leave it out of a "
            f"ranking (WHERE {column} NOT LIKE 'Total%')")


_SUMMED = re.compile(r"\b(?:sum|avg|total)\s*\(", re.IGNORECASE)
_WHERE = re.compile(r"\bwhere\b", re.IGNORECASE)


def unfiltered_sum_hint(query: str, tables: Sequence[StoredTable]) -> str:
    """Why a sum or average over every row of a table of line items is wrong, or ``""``.

    A financial statement's rows are unlike line items (revenues, costs, totals), and a
    table with a Total row already sums the rows above it: adding all of them gives no
    figure anyone reports. The hint names the row-label column and some labels to pick
    the rows by. A query with a WHERE clause, or over a table of like rows without a
    Total (segments, products), is left alone.
    """
    flat = _top_level(query)
    if not _SUMMED.search(query) or _WHERE.search(flat):
        return ""
    for table in tables:
        if not table.columns or not _names(query, table.name):
            continue
        totals = any(_TOTAL_ROW.match(label) for label in table.row_labels)
        if totals or table.name.startswith(STATEMENTS):
            labels = "; ".join(f"'{x}'" for x in list(dict.fromkeys(table.row_labels))[:6])
            return (f"{table.name} holds unlike line items ({labels}): a sum over all its "
                    f"rows adds them together; pick the rows the question asks about with "
                    f"WHERE {table.columns[0]} = '...'")
    return ""


def shown_value(value: Any, decimals: int | None = None) -> str:
    """A result cell as a reader is shown it: grouped digits, a year as written.

    A float is rounded to ``decimals`` when the instructions ask for them.
    """
    if isinstance(value, float) and decimals is not None:  # as the instructions ask
        return f"{round_half_up(value, decimals):,.{decimals}f}"
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return str(value) if 1900 <= value <= 2100 else f"{value:,}"  # a year, not "2,017"
    return "" if value is None else str(value)


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CLOSING_MARKS = re.compile(r"(?:\s*\[[^\]]*\])*\s*$")
_SHOWN_FIGURES = 3


def _plain(number: str) -> str:
    """``1,203.50`` as ``1203.5``: no grouping, no trailing decimal zeros (``100`` stays)."""
    digits = number.replace(",", "")
    return digits.rstrip("0").rstrip(".") if "." in digits else digits


def _is_figure(value: Any) -> bool:
    return isinstance(value, float) or (
        isinstance(value, int) and not isinstance(value, bool) and not 1900 <= value <= 2100)


def with_result_figures(answer: str, result: SqlResult, decimals: int | None,
                        units: Collection[str]) -> str:
    """``answer`` stating the figures of its one-row result when it states none of them.

    A ranking answered by its row's name alone ("Marketing was the largest") leaves out
    the figure that put the row first, and a reader cannot check it. When the result is
    one row and the answer holds none of that row's figures, they are added before the
    answer's closing citation marks as the result shows them (``(fy2017: 1,278,022, in
    thousands)``; the unit when the tables share one). An answer that states one of
    them, a result of many rows, or one without figures is returned as it is.
    """
    if len(result.rows) != 1:
        return answer
    figures = [(column, value) for column, value in zip(result.columns, result.rows[0],
                                                        strict=False) if _is_figure(value)]
    if not figures:
        return answer
    stated = {_plain(d) for d in _DIGITS.findall(answer)}
    shown = [(column, shown_value(value, decimals)) for column, value in figures]
    if any(_plain(text) in stated for _, text in shown):
        return answer
    named = {u.strip() for u in units if u and u.strip()}
    unit = f", in {named.pop()}" if len(named) == 1 else ""
    added = "; ".join(f"{column}: {text}" for column, text in shown[:_SHOWN_FIGURES])
    closing = _CLOSING_MARKS.search(answer)
    cut = closing.start() if closing else len(answer)
    body = answer[:cut].rstrip()
    end = body[-1] if body and body[-1] in ".!" else ""
    body = body[:-1] if end else body
    return f"{body} ({added}{unit}){end}{answer[cut:]}"
