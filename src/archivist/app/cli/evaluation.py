"""``archivist eval``: retrieval metrics over BEIR folders, answer quality over QA sets."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from archivist.app.cli.common import (
    EXIT_ERROR,
    EXIT_USAGE,
    DataDir,
    console,
    err_console,
    fail,
    open_app_from_cli,
)
from archivist.evaluation.beir import DatasetError
from archivist.types import ArchivistError

Out = Annotated[Path | None, typer.Option("--out", help="Write the report files here.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N queries.")]

_MODES = ("bm25", "dense", "hybrid")
_ALL_MODES = ("bm25", "dense", "hybrid", "multihop", "graph")
_STRATEGIES = ("tools", "pipeline")


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
            "--mode",
            "-m",
            help="bm25, dense, hybrid, multihop or graph; repeat for several "
            "(default bm25, dense and hybrid).",
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
    unknown = [m for m in modes if m not in _ALL_MODES]
    if unknown:
        fail(f"unknown mode '{unknown[0]}' (use {', '.join(_ALL_MODES)})", EXIT_USAGE)
    with eval_errors():
        dataset = load_beir(beir)
        with open_app_from_cli(
            data_dir, command="eval retrieval"
        ) as application, _progress() as progress:
            report = evaluate_retrieval(
                application,
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


def answers(
    dataset: Annotated[
        Path,
        typer.Argument(help="Curated JSON/JSONL, FinanceBench JSON/JSONL, or a BEIR folder."),
    ],
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", help="Collection to ask (BEIR default: beir_<folder>)."),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option("--judge", help="provider:model for RAGAS scores (needs archivist[ragas])."),
    ] = None,
    out: Out = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N items.")
    ] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", help="An earlier answers_report.json.")
    ] = None,
    tolerance: Annotated[
        float, typer.Option("--tolerance", min=0.0, help="Allowed drop per metric vs baseline.")
    ] = 0.02,
    system: Annotated[
        str,
        typer.Option(
            "--system",
            help="agent; naive (top-k hybrid chunks, one answer call); closed-book (no "
            "retrieval).",
        ),
    ] = "agent",
    strategy: Annotated[
        str | None,
        typer.Option("--strategy", help="The agent's research strategy: tools or pipeline."),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="JSONL of {financebench_id, numeric, unit, key_facts} "
                     "per item: a numeric answer is right within 1% of its figure."),
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Ask every question (fresh conversation each) and score the answers.

    Scores: correct (states the key facts), citation_accuracy (a cited page holds the
    answer), abstention_accuracy (abstains exactly on unanswerable items), EM/F1, recall.
    Resumable: finished items are kept in OUT/answers.jsonl and skipped on a rerun.
    Exits 1 when a metric fell more than --tolerance below --baseline.
    """
    from archivist.evaluation.answers import run_answers, summarize
    from archivist.evaluation.answers_report import compare_to_baseline, write_answers_report
    from archivist.evaluation.baselines import SYSTEMS
    from archivist.evaluation.beir import collection_for, ingest_corpus, load_beir
    from archivist.evaluation.qa_datasets import load_qa_dataset

    if system not in SYSTEMS:
        fail(f"unknown system '{system}' (use {', '.join(SYSTEMS)})", EXIT_USAGE)
    if strategy is not None and strategy not in _STRATEGIES:
        fail(f"unknown strategy '{strategy}' (use tools or pipeline)", EXIT_USAGE)
    overrides: dict[str, Any] = {"agent": {"strategy": strategy}} if strategy else {}
    out_dir = out or Path("eval-results") / dataset.stem
    with eval_errors():
        items = load_qa_dataset(dataset, labels)
        if baseline is not None and not baseline.is_file():
            fail(f"missing file: {baseline}", EXIT_USAGE)
        with open_app_from_cli(
            data_dir, command="eval answers", **overrides
        ) as application, _progress() as progress:
            target = collection
            if dataset.is_dir():
                beir = load_beir(dataset)
                target = collection or collection_for(beir)
                update = _stage_updater(progress)
                ingest_corpus(
                    application, beir, target,
                    lambda p: update("ingest", p.files_done, p.files_total),
                )
            elif not application.store.documents(target):
                name = target or application.settings.collection
                fail(
                    f"collection '{name}' has no documents: ingest the dataset's "
                    f"documents first (archivist ingest FILES -c {name})",
                    EXIT_USAGE,
                )
            judge_fn = None
            if judge:
                from archivist.evaluation.ragas_judge import make_ragas_judge

                judge_fn = make_ragas_judge(application.settings, judge, application.store.embedder)
            task = progress.add_task("answers", total=min(len(items), limit or len(items)))
            records = run_answers(
                application,
                items,
                out_dir,
                collection=target,
                limit=limit,
                progress=lambda done, total, _r: progress.update(task, completed=done, total=total),
                judge=judge_fn,
                system=system,
            )
            summary = summarize(dataset.name, target or application.settings.collection, records)
        table = Table(title=f"{summary.dataset}: {summary.items} items")
        table.add_column("metric")
        table.add_column("mean", justify="right")
        table.add_column("items", justify="right")
        for name, value in {**summary.metrics, **summary.judge}.items():
            count = summary.counts.get(name, summary.answered + summary.clarifications)
            table.add_row(name, f"{value:.4f}", str(count))
        console.print(table)
        console.print(
            f"LLM calls {summary.costs['llm_calls_total']:g} · tokens in "
            f"{summary.costs['tokens_in_total']:g} / out {summary.costs['tokens_out_total']:g} · "
            f"{summary.costs['wall_seconds_mean']:.2f} s per item · answered "
            f"{summary.answered} · asked back {summary.clarifications} · errors {summary.errors}"
        )
        warned = sum(1 for r in records if r.get("judge_warnings"))
        if warned:
            console.print(
                f"[yellow]judge warnings[/yellow] on {warned} items: some scores missing "
                "(see judge_warnings in answers.jsonl)"
            )
        for path in write_answers_report(summary, records, out_dir):
            console.print(f"wrote {path}")
        if baseline is not None:
            regressions, skipped = compare_to_baseline(summary, baseline, tolerance)
            if skipped:
                console.print(
                    f"[yellow]not compared[/yellow] (not measured now): {', '.join(skipped)}"
                )
            if regressions:
                for regression in regressions:
                    err_console.print(f"[red]regression[/red] {regression}")
                raise typer.Exit(EXIT_ERROR)
            console.print(f"no metric fell more than {tolerance:g} below the baseline")


def register(app: typer.Typer) -> None:
    """Add the ``eval`` command group to the ``archivist`` app."""
    group = typer.Typer(
        name="eval", help="Measure retrieval and answer quality.", no_args_is_help=True
    )
    group.command("retrieval")(retrieval)
    group.command("answers")(answers)
    app.add_typer(group, name="eval")
