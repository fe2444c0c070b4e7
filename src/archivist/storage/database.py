"""The database of a library: one SQLAlchemy engine, migrated by Alembic when opened.

``database_url`` chooses the backend: a SQLite file in the data folder by default (nothing
to start), or PostgreSQL (``postgresql://user:pass@host/db``, driven by psycopg 3) to share
one library among several workers. Both get the same tables from the same revisions. The
composition root opens one :class:`Database` per process and hands it to every part that
keeps state; LangGraph's checkpointer runs on the same database through the saver of its
backend (``langgraph-checkpoint-sqlite`` or ``langgraph-checkpoint-postgres``).
"""

from __future__ import annotations

import fcntl
import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.sql.dml import Insert

from archivist.storage import schema
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from sqlalchemy import Table

DATABASE_FILE = "archivist.sqlite"
MIGRATIONS = Path(__file__).parent / "migrations"
_READ = "archivist_read"  # execution option: a read-only transaction (SQLite: deferred BEGIN)


class DatabaseError(ArchivistError):
    """The database cannot be opened (bad URL, server unreachable, missing driver)."""


def database_file(data_dir: Path) -> Path:
    """The embedded database file of a data folder."""
    return data_dir / DATABASE_FILE


def default_url(data_dir: Path) -> str:
    """The embedded database of a data folder."""
    return f"sqlite:///{database_file(data_dir).resolve()}"


def is_embedded(url: str | None) -> bool:
    """Whether ``url`` (``None``: the default) is a SQLite file (one host, one server)."""
    return not url or url.startswith("sqlite")


def redacted(url: str) -> str:
    """``url`` without its password, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "an unparseable URL"


class Database:
    """One engine over the library's database. Thread-safe; :meth:`close` it once."""

    def __init__(self, url: str) -> None:
        try:
            parsed = make_url(url)
        except ArgumentError:
            raise DatabaseError(f"database_url: not a database URL ({redacted(url)})") from None
        backend = parsed.get_backend_name()
        if backend == "sqlite":
            if not parsed.database or parsed.database == ":memory:":
                raise DatabaseError("database_url: an embedded database needs a file")
            self.path: Path | None = Path(parsed.database)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = create_engine(
                parsed, connect_args={"check_same_thread": False, "timeout": 30}
            )
            _sqlite_transactions(self.engine)
        elif backend == "postgresql":
            self.path = None
            self.engine = create_engine(parsed.set(drivername="postgresql+psycopg"),
                                        pool_pre_ping=True, pool_size=10, max_overflow=20)
        else:
            raise DatabaseError(f"database_url: {backend} is not supported "
                                "(use sqlite:///file or postgresql://...)")
        self.url = parsed
        self._savers: list[Any] = []
        self._lock = threading.Lock()
        self._named: dict[str, threading.Lock] = {}
        try:
            self._migrate()
        except OperationalError as exc:
            self.engine.dispose()
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            raise DatabaseError(f"cannot open the database {redacted(url)}: {reason}") from None

    @property
    def embedded(self) -> bool:
        """Whether this is a SQLite file (one host; one server process)."""
        return self.path is not None

    def __repr__(self) -> str:
        return f"Database({self.url.render_as_string(hide_password=True)})"

    # --- schema --------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Bring the schema to the newest revision (Alembic), then import legacy files."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._one_at_a_time(230001) as conn:  # one migrating worker at a time
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    @contextmanager
    def _one_at_a_time(self, key: int) -> Iterator[Connection]:
        """A transaction that, on PostgreSQL, waits for every other process holding ``key``."""
        with self.engine.begin() as conn:
            if not self.embedded:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
            yield conn

    @contextmanager
    def _polled_lock(self, key: int) -> Iterator[None]:
        """A PostgreSQL advisory lock taken by polling, outside any transaction.

        The checkpointer's setup builds an index ``CONCURRENTLY``, which waits for every
        running statement: a waiter blocked inside ``pg_advisory_lock`` would never end.
        """
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            taken = text("SELECT pg_try_advisory_lock(:key)")
            while not conn.execute(taken, {"key": key}).scalar():
                time.sleep(0.05)
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})

    @contextmanager
    def held(self, name: str) -> Iterator[None]:
        """Hold the lock ``name`` against every thread and process using this database.

        On PostgreSQL a session advisory lock (taken by polling); on SQLite a lock of this
        process, then a byte-range lock in ``<database>.locks`` for the other processes.
        """
        digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big", signed=True)
        if not self.embedded:
            with self._polled_lock(key):
                yield
            return
        with self._lock:
            mine = self._named.setdefault(name, threading.Lock())
        assert self.path is not None
        with mine, open(self.path.with_name(self.path.name + ".locks"), "a+b") as file:
            fcntl.lockf(file, fcntl.LOCK_EX, 1, abs(key) % 2**40)
            try:
                yield
            finally:
                fcntl.lockf(file, fcntl.LOCK_UN, 1, abs(key) % 2**40)

    # --- transactions --------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One atomic write (on SQLite it takes the write lock at once: BEGIN IMMEDIATE)."""
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A consistent read (no write lock)."""
        with self.engine.connect() as conn:
            conn.execution_options(**{_READ: True})
            with conn.begin():
                yield conn

    def insert(self, table: Table) -> Any:
        """An INSERT with the backend's ``on_conflict_do_*`` clauses."""
        if self.embedded:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            return sqlite_insert(table)
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)

    def insert_ignore(self, table: Table) -> Insert:
        """An INSERT that keeps an existing row with the same key."""
        return self.insert(table).on_conflict_do_nothing()  # type: ignore[no-any-return]

    def bump(self, conn: Connection, counter: str) -> None:
        """Increment ``counter`` inside the caller's transaction."""
        table = schema.counters
        stmt = self.insert(table).values(name=counter, value=1)
        conn.execute(stmt.on_conflict_do_update(index_elements=[table.c.name],
                                                set_={"value": table.c.value + 1}))

    def counter(self, counter: str) -> int:
        """The current value of ``counter`` (0 before its first bump)."""
        with self.reading() as conn:
            value = conn.execute(
                select(schema.counters.c.value).where(schema.counters.c.name == counter)
            ).scalar()
        return int(value or 0)

    # --- conversations -------------------------------------------------------------------
    def checkpointer(self) -> BaseCheckpointSaver[Any]:
        """A LangGraph checkpointer on this database (closed with it)."""
        saver: Any
        if self.path is not None:
            from langgraph.checkpoint.sqlite import SqliteSaver

            conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # checkpoints are written every step
            saver = SqliteSaver(conn)
            closer: Any = conn
        else:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool

            conninfo = self.url.set(drivername="postgresql").render_as_string(
                hide_password=False)
            pool: ConnectionPool[Any] = ConnectionPool(
                conninfo, min_size=1, max_size=8, open=True,
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            )
            saver = PostgresSaver(pool)
            closer = pool
            with self._polled_lock(230002):  # workers starting together create its tables once
                saver.setup()
        if self.path is not None:
            saver.setup()
        with self._lock:
            self._savers.append(closer)
        return saver  # type: ignore[no-any-return]

    def thread_ids(self) -> list[str]:
        """Every conversation id the checkpointer holds."""
        with self.reading() as conn:
            exists = conn.dialect.has_table(conn, "checkpoints")
            if not exists:
                return []
            rows = conn.execute(text("SELECT DISTINCT thread_id FROM checkpoints"))
            return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Close the checkpointers' connections and the engine's pool."""
        with self._lock:
            for closer in self._savers:
                closer.close()
            self._savers.clear()
        self.engine.dispose()


def _sqlite_transactions(engine: Engine) -> None:
    """WAL, a busy timeout, and writes that take the lock when they begin.

    pysqlite's own transaction handling begins lazily (a write that upgrades a read lock
    can fail at once when another writer is busy); SQLAlchemy's recipe hands BEGIN to us.
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        read = conn.get_execution_options().get(_READ, False)
        conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")


def open_database(url: str | None, data_dir: Path) -> Database:
    """The library's database: ``url``, or the SQLite file in ``data_dir``.

    Opening the default file imports the separate SQLite files of older versions of the
    library (catalog, contexts, turns, server, graph, conversations) once.
    """
    database = Database(url or default_url(data_dir))
    if database.path is not None and database.path.parent == data_dir.resolve():
        from archivist.storage.legacy import import_legacy_files

        try:
            import_legacy_files(database.path, data_dir)
        except BaseException:
            database.close()
            raise
    return database
