"""Run one read-only SELECT over chosen document tables: row limit, time limit, no writes.

The query comes from a model that has read untrusted documents, so it is treated as
hostile. :func:`run_select` never runs it on the library's database: it loads the chosen
tables (typed columns, ``NUMERIC`` for figures) into a private in-memory SQLite database,
turns ``query_only`` on, and installs an authorizer that allows only SELECT, reading those
tables and calling the functions of :data:`FUNCTIONS` (arithmetic, text, dates,
aggregates, windows): every other action (writing, ``ATTACH``, ``PRAGMA``, reading
``sqlite_master``, ``printf``, ``zeroblob``...) is refused. One statement only. Every
allowed function runs in bounded time on values capped in length, so the progress handler
stops any query at its time limit; result columns are capped in number and the rows are
read one at a time against a byte budget, so no result grows past it. Identifiers that
come from documents are always quoted.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from archivist.index.table_store import StoredTable, quote
from archivist.types import ArchivistError, Cell

__all__ = ["SqlError", "SqlResult", "run_select", "view_names"]

ROW_LIMIT = 200
SECONDS = 2.0
RESULT_BYTES = 2_000_000  # text and blob bytes in one result
_MAX_LENGTH = 20_000  # bytes in one string or blob value
_MAX_COLUMNS = 100  # columns in a result (more if a chosen table is wider)
_MAX_LIKE_PATTERN = 100  # characters in a LIKE or GLOB pattern
_MAX_SQL = 8_000  # characters in the query
FUNCTIONS = frozenset({
    # scalar
    "abs", "coalesce", "ifnull", "iif", "if", "nullif", "typeof", "length", "octet_length",
    "lower", "upper", "trim", "ltrim", "rtrim", "substr", "substring", "instr", "replace",
    "like", "glob", "round", "sign", "min", "max", "likely", "unlikely", "likelihood",
    "concat", "concat_ws", "unicode",
    # math
    "ceil", "ceiling", "floor", "trunc", "mod", "pow", "power", "sqrt", "exp", "ln", "log",
    "log2", "log10", "pi",
    # dates
    "date", "time", "datetime", "julianday", "strftime", "unixepoch", "timediff",
    # aggregates
    "avg", "count", "sum", "total", "group_concat", "string_agg",
    # windows
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
})
"""The functions a query may call: each runs in time bounded by the value length cap."""


class SqlError(ArchivistError):
    """The query was refused or failed; the message says why in one line."""


@dataclass
class SqlResult:
    """Columns and rows of a query (at most the row limit; ``truncated`` if there were more)."""

    columns: list[str]
    rows: list[list[Cell]]
    truncated: bool = False
    seconds: float = 0.0
    tables: list[StoredTable] = field(default_factory=list)


def view_names(tables: Sequence[StoredTable]) -> list[str]:
    """The name each table goes by in a query: its own, with ``_2``... when names repeat."""
    used: set[str] = set()
    names = []
    for table in tables:
        name, n = table.name, 2
        while name in used:
            name, n = f"{table.name}_{n}", n + 1
        used.add(name)
        names.append(name)
    return names


def _statement(sql: str) -> str:
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise SqlError("empty query")
    if len(text) > _MAX_SQL:
        raise SqlError(f"query too long ({len(text)} characters, at most {_MAX_SQL})")
    if not sqlite3.complete_statement(text + ";"):
        raise SqlError("incomplete SQL statement")
    first = text.split(None, 1)[0].upper()
    if first not in ("SELECT", "WITH"):
        raise SqlError(f"only SELECT queries are allowed (this one starts with {first})")
    return text


def run_select(tables: Sequence[StoredTable], rows: Mapping[str, list[list[Cell]]], sql: str,
               row_limit: int = ROW_LIMIT, seconds: float = SECONDS) -> SqlResult:
    """Run ``sql`` over ``tables`` (each under its :func:`view_names` name), read-only.

    ``rows`` holds each table's rows by table id. Raises ``SqlError`` for anything but a
    single SELECT over those tables that finishes within ``seconds``; the message is
    SQLite's, fit to show a model for a retry.
    """
    statement = _statement(sql)
    started = time.perf_counter()
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        names = view_names(tables)
        for name, table in zip(names, tables, strict=True):
            _load(conn, name, table, rows.get(table.table_id, []))
        return _run(conn, tables, set(names), statement, row_limit, seconds, started)
    finally:
        conn.close()


def _load(conn: sqlite3.Connection, name: str, table: StoredTable,
          rows: list[list[Cell]]) -> None:
    columns = ", ".join(f"{quote(c)} {'NUMERIC' if k == 'number' else 'TEXT'}"
                        for c, k in zip(table.columns, table.kinds, strict=True))
    conn.execute(f"CREATE TABLE {quote(name)} ({columns})")
    width = len(table.columns)
    marks = ", ".join("?" * width)
    conn.executemany(f"INSERT INTO {quote(name)} VALUES ({marks})",
                     [(list(row) + [None] * width)[:width] for row in rows])


def _run(conn: sqlite3.Connection, tables: Sequence[StoredTable], allowed: set[str],
         statement: str, row_limit: int, seconds: float, started: float) -> SqlResult:
    conn.execute("PRAGMA query_only = ON")
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _MAX_LENGTH)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, _MAX_LIKE_PATTERN)
    widest = max((len(t.columns) for t in tables), default=0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_COLUMN, max(_MAX_COLUMNS, widest))

    def authorize(action: int, arg1: str | None, arg2: str | None, database: str | None,
                  _source: str | None) -> int:
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:  # no database: a WITH table
            ok = database == "main" and arg1 in allowed or not database
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_OK if (arg2 or "").lower() in FUNCTIONS else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_RECURSIVE:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    deadline = time.perf_counter() + seconds  # the query's time, not the loading's

    def too_long() -> int:
        return 1 if time.perf_counter() > deadline else 0

    conn.set_authorizer(authorize)
    conn.set_progress_handler(too_long, 10)
    try:
        cursor = conn.execute(statement)
        found = _fetch(cursor, row_limit + 1)
    except MemoryError:
        raise SqlError("the query's result did not fit in memory; select fewer or shorter "
                       "values") from None
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc):
            raise SqlError(f"the query took longer than {seconds:g} s and was stopped") from None
        raise SqlError(_message(exc)) from None
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError) as exc:
        raise SqlError(_message(exc)) from None
    finally:
        conn.set_progress_handler(None, 0)
    columns = [str(d[0]) for d in cursor.description or []]
    return SqlResult(columns, [list(row) for row in found[:row_limit]], len(found) > row_limit,
                     time.perf_counter() - started, list(tables))


def _fetch(cursor: sqlite3.Cursor, limit: int) -> list[tuple[Cell, ...]]:
    """At most ``limit`` rows, read one at a time; ``SqlError`` past :data:`RESULT_BYTES`."""
    found: list[tuple[Cell, ...]] = []
    size = 0
    while len(found) < limit:
        row = cursor.fetchone()
        if row is None:
            break
        size += sum(len(v) if isinstance(v, str | bytes) else 8 for v in row)
        if size > RESULT_BYTES:
            raise SqlError(f"the query's result is larger than {RESULT_BYTES:,} bytes; select "
                           "fewer or shorter values, or aggregate")
        found.append(row)
    return found


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if "not authorized to use function" in text:
        return (f"{text} (allowed: arithmetic, text, date, aggregate and window functions, "
                "such as round, substr, replace, strftime, sum, group_concat, rank)")
    if "not authorized" in text or "prohibited" in text:
        return f"{text} (only SELECT over the listed tables is allowed)"
    return text or type(exc).__name__
