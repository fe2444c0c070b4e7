"""What every CLI command shares: the console, opening the application, failing cleanly."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.text import Text

from archivist.app.server_file import running_server
from archivist.application import Application
from archivist.index.vectors import LibraryInUse
from archivist.settings import InvalidSettings, Settings, load_settings
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.app.cli.remote import RemoteApplication
    from archivist.application import Application

# emoji=False: ``root:x:0:0`` in a document must never print as ``root❌0:0``
console = Console(highlight=False, soft_wrap=True, emoji=False)
err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

# What a terminal would act on: C0 controls but tab and newline (ESC starts colours, OSC-8
# links, cursor moves, screen clears), DEL, C1 controls, and the bidi overrides that make
# text display in another order than it reads.
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# Options every command that opens a library takes.
DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Library folder (default ./.archivist or ARCHIVIST_DATA_DIR)."),
]
Collection = Annotated[
    str | None, typer.Option("--collection", "-c", help="Knowledge base (default 'default').")
]

JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print one JSON document (for scripts) instead of text.")
]

# Exit codes, so scripts can tell outcomes apart.
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DEGRADED = 3  # some files failed, or the answer is retrieval-only


def printable(text: object) -> str:
    """``text`` without the characters a terminal would act on (see ``plain``)."""
    return _TERMINAL_CONTROLS.sub("", str(text))


def plain(text: object, style: str = "") -> Text:
    """Untrusted text (a document's text, name or headings, an answer) to print as it is.

    A ``Text`` is never read as Rich markup, so ``[link=…]`` or ``[conceal]`` in a
    document stay literal; the consoles do not replace ``:x:`` emoji codes; and terminal
    controls (ESC sequences, C1 codes, bidi overrides) are removed. Every CLI line that
    shows document text goes through here.
    """
    return Text(printable(text), style=style)


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """Print one clear line to stderr and exit with ``code``."""
    err_console.print(Text.assemble(("error:", "red"), " ", plain(message)))
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    """Write ``data`` to stdout as one JSON document."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def quiet_libraries(pdf: bool = True) -> None:
    """Keep third-party chatter (progress bars, warnings, MuPDF) off the user's terminal.

    Python warnings are a library's advice to its programmer, not to our user: they are
    off unless asked for (``python -W`` or ``PYTHONWARNINGS``), in worker processes too.
    ``pdf=False`` leaves MuPDF alone (and unimported) for commands that convert nothing.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if not sys.warnoptions:
        warnings.simplefilter("ignore")
        os.environ.setdefault("PYTHONWARNINGS", "ignore")
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    notices = logging.getLogger("archivist.notice")  # one-line notices, shown as they are
    if not notices.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        notices.addHandler(handler)
        notices.setLevel(logging.INFO)
        notices.propagate = False
    if not pdf:
        return
    try:
        import pymupdf

        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
    except (ImportError, AttributeError):
        logging.getLogger(__name__).debug("pymupdf not available to silence")


def validation_problems(exc: ValidationError) -> str:
    """A pydantic error as one line: ``field: problem; ...``."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())


def settings_from_cli(**overrides: Any) -> Settings:
    """Settings with CLI flags on top; a bad setting is one clear line, exit 2."""
    try:
        return load_settings(**overrides)
    except InvalidSettings as exc:
        fail(f"invalid settings: {exc}", EXIT_USAGE)


def open_app_from_cli(
    data_dir: Path | None = None,
    collection: str | None = None,
    *,
    converts: bool = False,
    command: str = "",
    **overrides: Any,
) -> Application:
    """Build the application for a CLI command, turning any failure into one clear line.

    ``converts``: the command converts files (ingest), so MuPDF's chatter is silenced.
    ``command`` names the command in the line shown when ``archivist serve`` holds the library.
    """
    quiet_libraries(pdf=converts)
    settings = settings_from_cli(data_dir=data_dir, collection=collection, **overrides)
    return _open_local(settings, command)


def open_app_or_server(
    data_dir: Path | None = None,
    collection: str | None = None,
    *,
    converts: bool = False,
    **overrides: Any,
) -> Application | RemoteApplication:
    """The application, or the ``archivist serve`` that holds its library (over HTTP)."""
    quiet_libraries(pdf=converts)
    settings = settings_from_cli(data_dir=data_dir, collection=collection, **overrides)
    address = running_server(settings.data_dir)
    if address is None:
        return _open_local(settings)
    if overrides.get("llm", {}).get("model"):
        fail(
            f"the library in {settings.data_dir} is served by `archivist serve` at "
            f"{address.url}, which answers with its own model; drop --llm or stop the server"
        )
    from archivist.app.cli.remote import RemoteApplication  # httpx, the ingest types

    return RemoteApplication(settings, address)


def in_use_message(settings: Settings, exc: LibraryInUse, command: str = "") -> str:
    """What to do when another process holds the library: stop ``serve``, say, if it is that."""
    address = running_server(settings.data_dir)
    if address is None:
        return str(exc)
    what = f"`archivist {command}`" if command else "this command"
    return (
        f"the library in {settings.data_dir} is held by `archivist serve` at "
        f"{address.url} (pid {address.pid}); {what} needs the library to itself: "
        f"stop the server (Ctrl-C in its terminal, or kill {address.pid}) and run it "
        "again, or use another --data-dir"
    )


def _open_local(settings: Settings, command: str = "") -> Application:
    try:
        application = Application(settings)
    except LibraryInUse as exc:
        fail(in_use_message(settings, exc, command))
    except ArchivistError as exc:
        fail(str(exc))
    except OSError as exc:  # data_dir vanished or turned read-only after the settings check
        fail(f"data_dir {settings.data_dir}: {exc.strerror or exc}", EXIT_USAGE)
    for repair in application.store.repairs:
        err_console.print(f"[yellow]repaired:[/yellow] {repair}")
    return application
