"""``archivist sync DIR… [--watch]``: keep a collection in step with folders."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from archivist.app.cli.common import (
    Collection,
    DataDir,
    console,
    err_console,
    fail,
    open_app_from_cli,
    plain,
)
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.sync import SyncReport

_STYLE = {"skipped": "yellow", "added": "green", "replaced": "cyan", "renamed": "cyan",
          "removed": "yellow", "failed": "red"}


def _print(report: SyncReport) -> None:
    for change in [*report.skipped, *report.changes]:
        style = _STYLE.get(change.action, "white")
        detail = f" ({change.detail})" if change.detail else ""
        console.print(Text.assemble((f"{change.action:>8}", style), " ",
                                    plain(f"{change.path}{detail}")))


def sync(
    folders: Annotated[list[Path], typer.Argument(help="Folders to mirror into the collection.")],
    watch: Annotated[bool, typer.Option("--watch", "-w", help="Keep syncing as files change.")
                     ] = False,
    interval: Annotated[float, typer.Option(min=0.2, help="Seconds between checks (--watch).")
                        ] = 1.0,
    collection: Collection = None,
    data_dir: DataDir = None,
) -> None:
    """Mirror folders: ingest new and changed files, remove documents whose file is gone."""
    for folder in folders:
        if not folder.is_dir():
            fail(f"{folder}: not a folder (sync mirrors folders; use 'ingest' for files)", 2)
    with open_app_from_cli(data_dir, collection, command="sync") as application:
        from archivist.sync import FolderSync  # the loaders: only when syncing

        syncer = FolderSync(application, folders, collection)
        try:
            report = syncer.run_once()
        except ArchivistError as exc:
            fail(str(exc))
        _print(report)
        failed = report.count("failed")
        if not watch:
            console.print(f"in sync: {len(report.changes) - failed} changes, {failed} failed")
            if failed:
                raise typer.Exit(3)
            return
        err_console.print(f"watching {', '.join(str(f) for f in folders)} (Ctrl-C to stop)")
        stop = threading.Event()
        try:
            syncer.watch(stop, interval, _print)
        except KeyboardInterrupt:
            stop.set()
            err_console.print("stopped")


def register(app: typer.Typer) -> None:
    """Add ``sync`` to the ``archivist`` app."""
    app.command("sync")(sync)
