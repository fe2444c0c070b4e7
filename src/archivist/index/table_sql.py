"""Run one read-only SELECT over chosen document tables: row limit, time limit, no writes.

The query comes from a model that has read untrusted documents, so it is treated as
hostile. :func:`run_select` never runs it on the library's database: it loads the chosen
tables (typed columns, ``NUMERIC`` for figures) into a private in-memory SQLite database,
turns ``query_only`` on, and installs an authorizer that allows only SELECT, reading those
tables and calling functions other than ``load_extension``: every other action (writing,
``ATTACH``, ``PRAGMA``, reading ``sqlite_master``) is refused. One statement only; a
progress handler stops it at the time limit, and string and blob values are capped in
length. Identifiers that come from documents are always quoted.
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
_MAX_LENGTH = 1_000_000  # bytes in one string or blob value
_MAX_SQL = 8_000  # characters in the query
_DENIED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})


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

    def authorize(action: int, arg1: str | None, arg2: str | None, database: str | None,
                  _source: str | None) -> int:
        if action == sqlite3.SQLITE_SELECT:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:  # no database: a WITH table
            ok = database == "main" and arg1 in allowed or not database
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            name = (arg2 or "").lower()
            return sqlite3.SQLITE_DENY if name in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_RECURSIVE:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    deadline = time.perf_counter() + seconds  # the query's time, not the loading's

    def too_long() -> int:
        return 1 if time.perf_counter() > deadline else 0

    conn.set_authorizer(authorize)
    conn.set_progress_handler(too_long, 1000)
    try:
        cursor = conn.execute(statement)
        found = cursor.fetchmany(row_limit + 1)
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


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if "not authorized" in text or "prohibited" in text:
        return f"{text} (only SELECT over the listed tables is allowed)"
    return text or type(exc).__name__
