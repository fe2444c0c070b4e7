"""Library upkeep: ``archivist reindex`` and ``archivist migrate --to postgresql://...``.

``reindex`` rebuilds the embedded vectors from the catalog; ``migrate`` copies an embedded
library into PostgreSQL.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from archivist.app.cli.common import (
    EXIT_DEGRADED,
    EXIT_ERROR,
    DataDir,
    console,
    err_console,
    fail,
    in_use_message,
    quiet_libraries,
    settings_from_cli,
)
from archivist.index.vectors import LibraryInUse
from archivist.types import ArchivistError


def register(app: typer.Typer) -> None:
    """Add ``reindex`` to the CLI."""

    @app.command()
    def reindex(data_dir: DataDir = None) -> None:
        """Rebuild every collection's vectors from the catalog (after an upgrade or a loss)."""
        from archivist.index.embeddings import SentenceTransformerEmbedder
        from archivist.reindex import reindex as rebuild

        quiet_libraries()
        settings = settings_from_cli(data_dir=data_dir)
        progress = Progress(
            TextColumn("[bold]reindex[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("documents"),
            TimeElapsedColumn(),
            console=err_console,
        )
        tasks: dict[str, TaskID] = {}

        def on_progress(collection: str, done: int, total: int) -> None:
            if collection not in tasks:
                tasks[collection] = progress.add_task(collection, total=total)
            progress.update(tasks[collection], completed=done)

        def embedder_for(model: str) -> SentenceTransformerEmbedder:
            return SentenceTransformerEmbedder(model, settings.index.embedding_batch_size)

        try:
            with progress:
                report = rebuild(settings, embedder_for, on_progress)
        except LibraryInUse as exc:
            fail(in_use_message(settings, exc, "reindex"), EXIT_ERROR)
        except ArchivistError as exc:
            fail(str(exc), EXIT_ERROR)
        for collection, documents in report.documents.items():
            chunks = report.children[collection]
            console.print(f"reindexed {collection}: {documents} documents · {chunks} chunks")
        if not report.documents:
            console.print("nothing to reindex: the library has no collections")
        if report.backup is not None:
            console.print(
                f"the old vector store is kept in {report.backup} (delete it once satisfied)"
            )

    @app.command()
    def migrate(
        to: Annotated[str, typer.Option("--to", help="The PostgreSQL database to copy into "
                                        "(postgresql://user:password@host/db).")],
        data_dir: DataDir = None,
    ) -> None:
        """Copy this embedded library (documents, vectors, conversations, feedback) to PostgreSQL.

        Safe to run again: what is already there is kept. Point database_url at the target
        afterwards to serve the library from it.
        """
        from archivist.migrate import migrate_library
        from archivist.storage import redacted

        quiet_libraries()
        settings = settings_from_cli(data_dir=data_dir)
        try:
            report = migrate_library(settings, to, lambda line: err_console.print(line))
        except LibraryInUse as exc:
            fail(in_use_message(settings, exc, "migrate"), EXIT_ERROR)
        except ArchivistError as exc:
            fail(str(exc), EXIT_ERROR)
        documents = report.tables.get("documents", (0, 0))[0]
        vectors = sum(source for source, _ in report.vectors.values())
        console.print(f"copied to {redacted(to)}: {documents} documents, {vectors} vectors, "
                      f"{report.checkpoints[0]} checkpoints, "
                      f"{report.tables.get('turns', (0, 0))[0]} turns, "
                      f"{report.tables.get('feedback', (0, 0))[0]} ratings")
        if problems := report.mismatches():
            fail("the counts differ: " + "; ".join(problems), EXIT_DEGRADED)
        console.print("every count matches")
