"""``archivist eval``: retrieval metrics over BEIR folders, answer quality over QA sets."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from archivist.app._common import (
    EXIT_ERROR,
    EXIT_USAGE,
    console,
    err_console,
    fail,
    open_library_from_cli,
)
from archivist.evaluation.beir import DatasetError
from archivist.types import ArchivistError

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Library folder (default ./.archivist or ARCHIVIST_DATA_DIR)."),
]
Out = Annotated[Path | None, typer.Option("--out", help="Write the report files here.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N queries.")]

_MODES = ("bm25", "dense", "hybrid")


@contextmanager
def eval_errors() -> Iterator[None]:
    """Bad input (missing files, malformed lines) exits 2; any other known error exits 1."""
    try:
        yield
    except DatasetError as exc:
        fail(str(exc), EXIT_USAGE)
    except ArchivistError as exc:
        fail(str(exc), EXIT_ERROR)


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )


def _stage_updater(progress: Progress) -> Callable[[str, int, int], None]:
    tasks: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = progress.add_task(stage, total=total)
        progress.update(tasks[stage], completed=done, total=total)

    return update


def retrieval(
    beir: Annotated[
        Path,
        typer.Option("--beir", help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv."),
    ],
    mode: Annotated[
        list[str] | None,
        typer.Option(
            "--mode", "-m", help="bm25, dense or hybrid; repeat for several (default all)."
        ),
    ] = None,
    out: Out = None,
    limit: Limit = None,
    collection: Annotated[
        str | None,
        typer.Option(
            "--collection", "-c", help="Collection for the corpus (default beir_<folder>)."
        ),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """nDCG@10, Recall@10, Recall@100 and MRR@10 of each search mode on a BEIR test split."""
    from archivist.evaluation.beir import load_beir
    from archivist.evaluation.retrieval import evaluate_retrieval

    modes = list(dict.fromkeys(mode or _MODES))
    unknown = [m for m in modes if m not in _MODES]
    if unknown:
        fail(f"unknown mode '{unknown[0]}' (use bm25, dense or hybrid)", EXIT_USAGE)
    with eval_errors():
        dataset = load_beir(beir)
        with open_library_from_cli(data_dir) as library, _progress() as progress:
            report = evaluate_retrieval(
                library,
                dataset,
                modes=modes,  # type: ignore[arg-type]
                collection=collection,
                limit_queries=limit,
                progress=_stage_updater(progress),
            )
        table = Table(title=f"{report.dataset}: {report.query_count} queries")
        table.add_column("metric")
        for name in report.modes:
            table.add_column(name, justify="right")
        for metric, values in report.table():
            table.add_row(metric, *(f"{v:.4f}" for v in values))
        console.print(table)
        console.print(f"ingest {report.ingest_seconds:.1f} s · collection {report.collection}")
        if out is not None:
            from archivist.evaluation.report import write_retrieval_report

            for path in write_retrieval_report(report, out):
                console.print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add the ``eval`` command group to the ``archivist`` app."""
    group = typer.Typer(
        name="eval", help="Measure retrieval and answer quality.", no_args_is_help=True
    )
    group.command("retrieval")(retrieval)
    app.add_typer(group, name="eval")
