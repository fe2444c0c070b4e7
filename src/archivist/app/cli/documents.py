"""Document commands: ingest, list, collections, remove, show, search."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from archivist.app.cli.common import (
    EXIT_DEGRADED,
    EXIT_ERROR,
    EXIT_USAGE,
    Collection,
    DataDir,
    JsonOutput,
    console,
    err_console,
    fail,
    open_app_or_server,
    plain,
    print_json,
    printable,
    validation_problems,
)
from archivist.app.cli.layout import document_table, hit_lines
from archivist.filings.where import WHERE_HELP
from archivist.settings import MAX_SEARCH_K, SEARCH_MODES
from archivist.types import (
    FILING_FIELDS,
    AmbiguousDocument,
    ArchivistError,
    Child,
    DocumentRecord,
    IngestOutcome,
    IngestReport,
    Parent,
    UnknownDocument,
    format_pages,
)

if TYPE_CHECKING:
    from archivist.ingest_progress import IngestProgress


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn Archivist's own errors into one line and a meaningful exit code."""
    try:
        yield
    except (UnknownDocument, AmbiguousDocument) as exc:
        fail(str(exc), EXIT_USAGE)
    except ArchivistError as exc:
        fail(str(exc), EXIT_ERROR)


def _print_summary(report: IngestReport) -> None:
    counts = report.counts
    console.print(
        f"added {counts['added']} · unchanged {counts['unchanged']} · "
        f"replaced {counts['replaced']} · failed {counts['failed']} · "
        f"skipped {counts['skipped']}"
    )
    ocr_pages = sum(r.ocr_pages for r in report.results)
    if ocr_pages:
        console.print(f"OCR: {ocr_pages} pages in {report.timings['ocr']:.1f} s")
    if report.contexts:
        console.print(
            f"context sentences: {report.contexts['children']} chunks, "
            f"{report.contexts['calls']} model calls ({report.contexts['cached']} cached), "
            f"{report.timings.get('context', 0.0):.1f} s"
        )
    for result in report.of(IngestOutcome.FAILED):
        console.print(Text.assemble(("failed", "red"), "  ", plain(
            f"{result.path}: {result.reason}")))
    for result in report.of(IngestOutcome.SKIPPED):
        console.print(Text.assemble(("skipped", "yellow"), " ", plain(
            f"{result.path}: {result.reason}")))


def document_json(record: DocumentRecord) -> dict[str, Any]:
    """A catalog row as JSON."""
    return {
        "document_id": record.document_id,
        "name": record.name,
        "path": record.path,
        "collection": record.collection,
        "pages": record.page_count,
        "parents": record.parent_count,
        "chunks": record.child_count,
        "size_bytes": record.size_bytes,
        "added_at": record.added_at,
        **{name: getattr(record, name) for name in FILING_FIELDS},
    }


def flag_note(kind: str) -> str:
    """How ``show`` marks a flagged section: what it is, and that search skips it."""
    what = {"contents": "table of contents", "index": "back-of-book index"}.get(kind, kind)
    return f"({what}: stored, not searched)"


def chunk_json(chunk: Parent | Child) -> dict[str, Any]:
    """A parent or child chunk as JSON (its text included)."""
    return {
        "id": chunk.parent_id if isinstance(chunk, Parent) else chunk.child_id,
        "pages": format_pages(chunk.page_start, chunk.page_end),
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "heading_path": list(chunk.heading_path),
        "sections": chunk.sections,
        "chars": len(chunk.text),
        "kind": chunk.kind,
        "text": chunk.text,
    }


def register(app: typer.Typer) -> None:
    """Add the document commands to the CLI."""

    @app.command()
    def ingest(
        paths: Annotated[list[Path], typer.Argument(help="Files or folders (walked recursively).")],
        collection: Collection = None,
        data_dir: DataDir = None,
    ) -> None:
        """Add documents; unchanged files are skipped, changed ones replaced."""
        with user_errors(), open_app_or_server(
            data_dir, collection, converts=True
        ) as application:
            totals = {"pages": 0, "chunks": 0, "ocr_pages": 0, "ocr_s": 0.0}
            progress = Progress(
                TextColumn("[bold]ingest[/bold]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(
                    "files · {task.fields[pages]} pages · {task.fields[chunks]} chunks"
                    "{task.fields[ocr]}"
                ),
                TimeElapsedColumn(),
                TextColumn("{task.description}", markup=False),
                console=err_console,
                transient=False,
            )
            with progress:
                task = progress.add_task("", total=None, pages=0, chunks=0, ocr="")

                def on_file(event: IngestProgress) -> None:
                    if event.result is None:  # a stage of the file at hand: its pages count up
                        progress.update(task, total=event.files_total,
                                        completed=event.files_done,
                                        description=printable(event.describe_file()),
                                        pages=max(totals["pages"], event.pages_converted))
                        progress.refresh()
                        return
                    totals["pages"] += event.pages
                    totals["chunks"] += event.chunks
                    totals["ocr_pages"] += event.ocr_pages
                    totals["ocr_s"] += event.ocr_seconds
                    ocr = (
                        f" · OCR {totals['ocr_pages']:.0f} pages {totals['ocr_s']:.1f} s"
                        if totals["ocr_pages"]
                        else ""
                    )
                    progress.update(
                        task,
                        total=event.files_total,
                        completed=event.files_done,
                        description=printable(Path(event.path).name),
                        pages=max(totals["pages"], event.pages_converted),
                        chunks=totals["chunks"],
                        ocr=ocr,
                    )

                report = application.ingest.files(paths, collection, progress=on_file)
                progress.update(task, description="done")
            _print_summary(report)
            if report.of(IngestOutcome.FAILED):
                raise typer.Exit(EXIT_DEGRADED)

    @app.command("list")
    def list_documents(
        collection: Collection = None, data_dir: DataDir = None, as_json: JsonOutput = False
    ) -> None:
        """List the documents in a collection."""
        with user_errors(), open_app_or_server(data_dir, collection) as application:
            docs = application.store.documents()
            name = application.settings.collection
            if as_json:
                print_json({"collection": name, "documents": [document_json(d) for d in docs]})
                return
            if not docs:
                console.print(plain(f"no documents in collection '{name}'"))
                return
            console.print(document_table(docs, console.width))

    @app.command()
    def collections(data_dir: DataDir = None) -> None:
        """List the collections (knowledge bases) in the data directory."""
        with user_errors(), open_app_or_server(data_dir) as application:
            for name in application.store.collections():
                count = len(application.store.documents(name))
                console.print(plain(f"{name}  {count} document{'' if count == 1 else 's'}"))

    @app.command()
    def remove(
        doc: Annotated[str, typer.Argument(help="Document id prefix or file name.")],
        collection: Collection = None,
        data_dir: DataDir = None,
    ) -> None:
        """Remove a document, its parents, chunks and vectors."""
        with user_errors(), open_app_or_server(data_dir, collection) as application:
            record = application.store.remove(doc)
            console.print(plain(f"removed {record.name} ({record.document_id[:12]})"))

    @app.command()
    def show(
        doc: Annotated[str, typer.Argument(help="Document id prefix or file name.")],
        children: Annotated[bool, typer.Option("--children/--no-children")] = True,
        collection: Collection = None,
        data_dir: DataDir = None,
        as_json: JsonOutput = False,
    ) -> None:
        """Show how a document was chunked: parents and children, sizes, headings, pages."""
        with user_errors(), open_app_or_server(data_dir, collection) as application:
            record = application.store.resolve(doc)
            kids = application.store.children_of(record.document_id) if children else []
            parents = application.store.parents_of(record.document_id)
            if as_json:
                print_json({"document": document_json(record), "parents": [
                    {**chunk_json(p), "children": [
                        chunk_json(c) for c in kids if c.parent_id == p.parent_id
                    ]}
                    for p in parents
                ]})
                return
            console.print(Text.assemble(
                plain(record.name, "bold"), f"  id {record.document_id}  "
                f"{record.page_count or 'no'} pages · {record.parent_count} parents · "
                f"{record.child_count} chunks\n", plain(record.path)
            ))
            for parent in parents:
                heading = " > ".join(parent.heading_path) or "(before the first heading)"
                pages = format_pages(parent.page_start, parent.page_end)
                flag = Text()
                if parent.kind != "body":
                    flag = Text(f"  {flag_note(parent.kind)}", style="yellow")
                console.print(Text.assemble(
                    "\n", plain(parent.parent_id, "bold cyan"), f"  {len(parent.text)} chars  "
                    f"{pages}  ", plain(heading), flag
                ))
                for child in (c for c in kids if c.parent_id == parent.parent_id):
                    preview = " ".join(child.text.split())[:70]
                    console.print(plain(
                        f"  {child.child_id}  {len(child.text):>4} chars  "
                        f"{format_pages(child.page_start, child.page_end):<9} {preview}"
                    ))

    @app.command()
    def search(
        query: Annotated[str, typer.Argument(help="What to look for.")],
        k: Annotated[
            int | None,
            typer.Option("-k", min=1, max=MAX_SEARCH_K, help="How many hits (default: search_k)."),
        ] = None,
        mode: Annotated[
            str | None,
            typer.Option(help="hybrid, bm25, dense, multihop or graph (default: search_mode)."),
        ] = None,
        collection: Collection = None,
        data_dir: DataDir = None,
        as_json: JsonOutput = False,
        where: Annotated[list[str] | None, typer.Option(help=WHERE_HELP)] = None,
    ) -> None:
        """Search the chunks: each hit with its document, pages, heading path and score."""
        from archivist.index.search import SearchRequest

        if mode is not None and mode not in SEARCH_MODES:
            fail(f"unknown mode '{mode}' (use {', '.join(SEARCH_MODES)})", EXIT_USAGE)
        try:
            request = SearchRequest.model_validate(
                {"query": query, "k": k, "mode": mode, "collection": collection, "where": where}
            )
        except ValidationError as exc:
            fail(f"invalid search: {validation_problems(exc)}", EXIT_USAGE)
        with user_errors(), open_app_or_server(data_dir, collection) as application:
            hits = application.searcher.run(request)
            if as_json:
                print_json({
                    "query": query,
                    "collection": collection or application.settings.collection,
                    "k": request.k or application.settings.index.search_k,
                    "mode": request.mode or application.settings.index.search_mode,
                    "where": request.where or [],
                    "hits": [h.to_dict() for h in hits],
                })
                return
            if not hits:
                console.print("no results")
                return
            indent = len(f"{len(hits)}. ")
            for rank, hit in enumerate(hits, start=1):
                for line in hit_lines(rank, hit, console.width, indent):
                    console.print(line)
