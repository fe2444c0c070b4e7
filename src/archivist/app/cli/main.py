"""The ``archivist`` Typer app: every command group registered, and the entry point.

Each group lives in its own module with a ``register(app)``: documents (ingest, list,
collections, remove, show, search), agent (ask, chat), serve (serve, mcp), evaluation
(eval), reindex and model.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer

from archivist import package_version
from archivist.app.cli import (
    agent,
    documents,
    evaluation,
    feedback,
    model,
    reindex,
    serve,
    sync,
)
from archivist.app.cli.common import EXIT_ERROR, console, err_console

app = typer.Typer(
    name="archivist",
    help="Ask questions about your documents; answers cite the pages they came from.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _print_version(value: bool) -> None:
    if value:
        console.print(f"archivist {package_version()}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Ask questions about your documents; answers cite the pages they came from."""


for _group in (documents, sync, agent, serve, evaluation, reindex, model, feedback):
    _group.register(app)


def run() -> None:
    """Run the CLI: no traceback ever reaches the user."""
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # the last line of defence; details go to the log
        if os.environ.get("ARCHIVIST_DEBUG"):
            raise
        logging.getLogger("archivist").debug("unexpected error", exc_info=True)
        err_console.print(
            f"[red]internal error:[/red] {type(exc).__name__}: {exc} "
            "(set ARCHIVIST_DEBUG=1 to see details)"
        )
        sys.exit(EXIT_ERROR)
