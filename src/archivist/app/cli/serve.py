"""``archivist serve`` (HTTP API + web UI; ``--workers N`` processes) and ``archivist mcp``."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from typing import Annotated

import typer

from archivist.app.cli.common import (
    EXIT_ERROR,
    EXIT_USAGE,
    Collection,
    DataDir,
    console,
    err_console,
    fail,
    quiet_libraries,
    settings_from_cli,
)
from archivist.app.server_file import (
    ServerAddress,
    new_token,
    remove_server_file,
    write_server_file,
)
from archivist.settings import Settings
from archivist.types import ArchivistError

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
_ANY_HOST = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


def _reachable(host: str, port: int) -> str:
    """The URL a client on this machine uses for a server bound to ``host:port``."""
    host = _ANY_HOST.get(host, host)
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0 picks a free one), or one clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", EXIT_USAGE)
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def shared_problem(settings: Settings, what: str) -> str | None:
    """Why ``what`` (one of several processes) cannot share this library, in one line."""
    from archivist.index.engines import vector_engine
    from archivist.storage import is_embedded

    if is_embedded(settings.storage.database_url):
        return (f"{what}: embedded storage serves one process; set storage.database_url "
                "(ARCHIVIST_STORAGE__DATABASE_URL) to a postgresql:// database to run several")
    if vector_engine(settings) == "qdrant-edge":
        return (f"{what}: the embedded vector engine serves one process; set "
                "storage.vector_engine to pgvector (or auto) or storage.qdrant_url "
                "(ARCHIVIST_STORAGE__QDRANT_URL) to a shared engine "
                "to run several")
    return None


def workers_problem(settings: Settings, workers: int) -> str | None:
    """Why ``workers`` processes cannot share this library, in one line (``None``: they can)."""
    return shared_problem(settings, f"--workers {workers}") if workers > 1 else None


def _serve_workers(settings: Settings, sock: socket.socket, workers: int, token: str,
                   ingest: bool) -> None:
    """Run ``workers`` server processes on ``sock`` (each builds its own app)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from archivist.app.api.workers import NO_INGEST, WORKER_TOKEN

    os.environ.update({"ARCHIVIST_DATA_DIR": str(settings.data_dir.resolve()),
                       "ARCHIVIST_COLLECTION": settings.collection,
                       "ARCHIVIST_SERVER__HOST": settings.server.host, WORKER_TOKEN: token,
                       NO_INGEST: "" if ingest else "1"})
    config = uvicorn.Config("archivist.app.api.workers:worker_app", factory=True,
                            workers=workers, log_level="warning", timeout_keep_alive=30)
    Multiprocess(config, sockets=[sock]).run()


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``worker`` and ``mcp`` to the CLI."""

    @app.command()
    def serve(
        host: Annotated[
            str | None, typer.Option(help="Address to bind (default 127.0.0.1).")
        ] = None,
        port: Annotated[
            int | None, typer.Option(min=0, max=65535, help="Port (default 8000; 0 = any free).")
        ] = None,
        data_dir: DataDir = None,
        collection: Collection = None,
        workers: Annotated[
            int, typer.Option(min=1, max=64, help="Server processes (more than 1 needs "
                              "database_url on PostgreSQL and a shared vector engine).")
        ] = 1,
        ingest: Annotated[
            bool, typer.Option("--ingest/--no-ingest", help="Also ingest queued uploads "
                               "(--no-ingest leaves them to `archivist worker` processes).")
        ] = True,
    ) -> None:
        """Serve the HTTP API, the OpenAI-compatible endpoint and the web UI."""
        import uvicorn

        from archivist.app.api.app import create_app
        from archivist.app.api.auth import key_checker
        from archivist.application import Application
        from archivist.llm import describe_llm
        from archivist.llm.capabilities import describe_profile
        from archivist.llm.spec import llm_is_set

        quiet_libraries()
        logging.getLogger("archivist.sync").setLevel(logging.INFO)  # what a watched folder did
        settings = settings_from_cli(server={"host": host, "port": port}, data_dir=data_dir,
                                     collection=collection)
        if problem := workers_problem(settings, workers):
            fail(problem, EXIT_USAGE)
        if not ingest and (problem := shared_problem(settings, "--no-ingest")):
            fail(problem.replace("run several", "run `archivist worker`"), EXIT_USAGE)
        try:  # with several workers, this process only checks that the library opens
            api = (create_app(Application(settings), close_application=True, ingest=ingest)
                   if workers == 1 else None)
            if api is None:
                Application(settings).close()
        except ArchivistError as exc:
            fail(str(exc), EXIT_ERROR)
        except RuntimeError as exc:  # embedded Qdrant already open in another process
            fail(f"cannot open the library in {settings.data_dir}: {exc}", EXIT_ERROR)
        sock = bind(settings.server.host, settings.server.port)
        bound_port = sock.getsockname()[1]
        shown = f"[{settings.server.host}]" if ":" in settings.server.host else settings.server.host
        url = f"http://{shown}:{bound_port}"
        console.print(f"Archivist listening on {url}  (web UI {url}/ui · API docs {url}/docs)")
        console.print(f"answers with the {describe_llm(settings)}; "
                      f"profile {describe_profile(settings)}")
        if not llm_is_set(settings) and not settings.llm.model.startswith("local"):
            err_console.print(
                "[yellow]note:[/yellow] no local model is fetched; `archivist model fetch` "
                "gets one, or set ARCHIVIST_LLM__MODEL"
            )
        listen = settings.server
        if listen.host not in LOCAL_HOSTS and not key_checker(settings).enabled:
            err_console.print(
                "[yellow]warning:[/yellow] listening beyond localhost with no API keys; "
                "set ARCHIVIST_SERVER__API_KEYS to require them"
            )
        if listen.host not in LOCAL_HOSTS and set(listen.trusted_host_list) <= LOCAL_HOSTS:
            err_console.print(
                "[yellow]note:[/yellow] the server answers only to the host names "
                f"{', '.join(listen.trusted_host_list)}; set "
                "ARCHIVIST_SERVER__TRUSTED_HOSTS to the names clients use"
            )
        # the CLI on this machine finds the server here and goes through it
        address = ServerAddress(_reachable(listen.host, bound_port), new_token(), os.getpid())
        if api is None:
            write_server_file(settings.data_dir, address)
            try:
                _serve_workers(settings, sock, workers, address.token, ingest)
            finally:
                remove_server_file(settings.data_dir, address)
            return
        api.state.keys.allow_local(address.token)
        write_server_file(settings.data_dir, address)
        # uvicorn ends the process with the signal that stopped it: withdraw on shutdown
        api.state.shutdown_hooks.append(lambda: remove_server_file(settings.data_dir, address))
        try:
            server = uvicorn.Server(
                uvicorn.Config(api, log_level="warning", timeout_keep_alive=30)
            )
            server.run(sockets=[sock])
        finally:
            remove_server_file(settings.data_dir, address)

    @app.command()
    def worker(data_dir: DataDir = None, collection: Collection = None) -> None:
        """Ingest the uploads queued by `archivist serve` processes (shared storage only)."""
        settings = settings_from_cli(data_dir=data_dir, collection=collection)
        if problem := shared_problem(settings, "archivist worker"):
            fail(problem.replace("run several", "run workers"), EXIT_USAGE)
        quiet_libraries()
        run_ingest_worker(settings)

    @app.command()
    def mcp(data_dir: DataDir = None, collection: Collection = None) -> None:
        """Serve MCP over stdio (search_documents, ask, list_documents) for AI assistants."""
        from archivist.app.mcp.server import run_stdio

        quiet_libraries()
        settings = settings_from_cli(data_dir=data_dir, collection=collection)
        try:
            run_stdio(settings)
        except ArchivistError as exc:
            fail(str(exc), EXIT_ERROR)
        except RuntimeError as exc:  # embedded Qdrant already open in another process
            fail(f"cannot open the library in {settings.data_dir}: {exc}", EXIT_ERROR)


def run_ingest_worker(settings: Settings) -> None:
    """Work the ingest job queue until SIGTERM or Ctrl-C (the running job is finished first)."""
    from archivist.app.jobs import IngestJobs
    from archivist.application import Application

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        application = Application(settings)
    except ArchivistError as exc:
        fail(str(exc), EXIT_ERROR)
    try:
        jobs = IngestJobs(application)
        console.print(f"Archivist ingest worker {jobs.queue.worker} waiting for uploads "
                      f"in {settings.data_dir}")
        try:
            while not stop.wait(1.0):
                pass
        except KeyboardInterrupt:
            console.print("stopping after the running job")
        jobs.close()
    finally:
        application.close()
