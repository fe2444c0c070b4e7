"""A throwaway PostgreSQL cluster (with pgvector) in a temp folder, for tests and benchmarks.

The server comes from the ``pgserver`` wheel (PostgreSQL 16 with pgvector 0.6, no system
packages), which the ``dev`` extra installs. ``initdb`` and ``postgres`` run straight from
that wheel's ``bin`` folder: the cluster lives in one temp folder, listens on 127.0.0.1 on
a free port, and is removed by :meth:`ThrowawayPostgres.stop`.

PostgreSQL refuses to run as root. Under root the cluster runs as a dedicated system user
(:data:`CLUSTER_USER`, created with ``useradd`` when missing) that owns only the temp
folder; nothing else on the machine changes.

    with ThrowawayPostgres() as cluster:
        url = cluster.create_database()      # postgresql://postgres@127.0.0.1:PORT/db_1
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

#: The system user the cluster runs as when the caller is root.
CLUSTER_USER = "archivist-pg"

#: A throwaway cluster needs no durability: no fsync, no full-page writes.
_SERVER_OPTIONS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
    "shared_buffers": "64MB",
    "unix_socket_directories": "",
}


class PostgresUnavailable(RuntimeError):
    """The bundled PostgreSQL could not be found or started."""


def _bin_dir() -> Path:
    """The wheel's ``bin`` folder (found without importing pgserver, which has side effects)."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or spec.origin is None:
        raise PostgresUnavailable("the pgserver package is not installed (pip install -e '.[dev]')")
    return Path(spec.origin).parent / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cluster_user() -> pwd.struct_passwd | None:
    """The unprivileged user to run as under root (created if missing); None otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(CLUSTER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
             CLUSTER_USER],
            check=True, capture_output=True, text=True,
        )
        return pwd.getpwnam(CLUSTER_USER)


def _die_with_parent() -> None:
    """In the server process: stop (fast shutdown) when the process that started it dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG


class ThrowawayPostgres:
    """One PostgreSQL cluster in a temp folder; every database in it has pgvector."""

    def __init__(self, *, start_timeout: float = 60.0) -> None:
        self.start_timeout = start_timeout
        self.folder: Path | None = None
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._user = _cluster_user()
        self._databases = 0

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> ThrowawayPostgres:
        """Create the cluster (initdb), start the server and wait until it accepts queries."""
        bin_dir = _bin_dir()
        self.folder = Path(tempfile.mkdtemp(prefix="archivist-pg-"))
        data = self.folder / "data"
        data.mkdir(mode=0o700)
        if self._user is not None:
            for path in (self.folder, data):
                os.chown(path, self._user.pw_uid, self._user.pw_gid)
        self._run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
        )
        for attempt in range(3):
            self.port = _free_port()
            if self._launch(bin_dir, data):
                break
            if attempt == 2:
                log = (self.folder / "server.log").read_text(errors="replace")
                self.stop()
                raise PostgresUnavailable(f"PostgreSQL did not start:\n{log[-2000:]}")
        self.execute("template1", "CREATE EXTENSION IF NOT EXISTS vector")
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown, then kill) and delete the temp folder."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> ThrowawayPostgres:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- databases ------------------------------------------------------------------
    def url(self, database: str = "postgres") -> str:
        """The ``postgresql://`` URL of one database of this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A fresh, empty database (with the ``vector`` extension); returns its URL."""
        self._databases += 1
        name = name or f"db_{self._databases}"
        self.execute("postgres", f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop one database, closing any connection still open to it."""
        self.execute("postgres", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def execute(self, database: str, statement: str) -> None:
        """Run one statement in autocommit mode (CREATE DATABASE cannot run in a transaction)."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(statement.encode())

    # -- internals ------------------------------------------------------------------
    def _launch(self, bin_dir: Path, data: Path) -> bool:
        assert self.folder is not None
        options: list[str] = []
        for key, value in {**_SERVER_OPTIONS, "port": str(self.port)}.items():
            options += ["-c", f"{key}={value}"]
        log = open(self.folder / "server.log", "ab")  # noqa: SIM115 -- the server holds it
        with log:
            self._process = subprocess.Popen(
                [str(bin_dir / "postgres"), "-D", str(data), "-h", "127.0.0.1", *options],
                stdout=log, stderr=subprocess.STDOUT, cwd=self.folder,
                start_new_session=True, preexec_fn=_die_with_parent,
                **self._identity(),
            )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:  # e.g. the port was taken meanwhile
                self._process = None
                return False
            if self._accepts_queries():
                return True
            time.sleep(0.1)
        raise PostgresUnavailable(f"PostgreSQL did not accept queries in {self.start_timeout}s")

    def _accepts_queries(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.url(), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def _identity(self) -> dict[str, Any]:
        """Popen arguments that drop root for the cluster user (none when not root)."""
        if self._user is None:
            return {}
        return {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []}

    def _run(self, command: list[str]) -> None:
        assert self.folder is not None
        result = subprocess.run(
            command, capture_output=True, text=True, cwd=self.folder, **self._identity(),
        )
        if result.returncode != 0:
            output = (result.stdout + result.stderr)[-2000:]
            self.stop()
            raise PostgresUnavailable(f"{Path(command[0]).name} failed:\n{output}")
