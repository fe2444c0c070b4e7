"""``archivist feedback export``: rated answers as evaluation questions.

The server stores each rating with its question, answer, sources and settings; this writes
them in the curated format ``archivist eval answers`` reads, so a thumbs-down becomes a
regression case in the next evaluation run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

from archivist.app.cli.common import DataDir, console, fail, settings_from_cli
from archivist.conversations import TurnLog, feedback_items
from archivist.storage import DatabaseError, database_file, open_database
from archivist.storage.legacy import legacy_files


def export(
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write (.json or .jsonl).")],
    rating: Annotated[
        Literal["all", "up", "down"], typer.Option(help="Which ratings to export.")
    ] = "all",
    data_dir: DataDir = None,
) -> None:
    """Write rated answers as eval questions (thumbs-down = regression case)."""
    settings = settings_from_cli(data_dir=data_dir)
    if settings.storage.database_url is None:
        path = database_file(settings.data_dir)
        if not path.is_file() and not legacy_files(settings.data_dir):
            fail(f"no feedback yet: {path} does not exist (ratings are given in the server)")
    try:
        database = open_database(settings.storage.database_url, settings.data_dir)
    except DatabaseError as exc:
        fail(str(exc))
    try:
        records = TurnLog(database).rated()
    finally:
        database.close()
    items = [i for i in feedback_items(records) if rating in ("all", i["rating"])]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".jsonl":
        text = "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items)
    else:
        text = json.dumps(items, ensure_ascii=False, indent=2) + "\n"
    out.write_text(text, encoding="utf-8")
    down = sum(1 for i in items if i["rating"] == "down")
    console.print(f"wrote {len(items)} rated answers ({down} regression cases) to {out}")


def register(app: typer.Typer) -> None:
    """Add the ``feedback`` command group to the ``archivist`` app."""
    group = typer.Typer(name="feedback", help="Answer ratings from the server.",
                        no_args_is_help=True)
    group.command("export")(export)
    app.add_typer(group, name="feedback")
