"""``archivist ask`` and ``archivist chat``: the agent on the command line.

Both print the answer as it streams, then its Sources and its confidence (high, medium or
low, derived by code from the graded evidence). A clarification question is printed
and the next message (``chat``) or the next ``ask --thread ID`` answers it.
Exit codes: 0 answered (or asked back), 3 retrieval-only (the LLM could not be reached, or
failed after retries: 5xx, a cut stream, a timeout; for `chat`, in any turn),
1 error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.text import Text

from archivist.app.cli.common import (
    EXIT_DEGRADED,
    EXIT_ERROR,
    Collection,
    DataDir,
    JsonOutput,
    console,
    err_console,
    fail,
    open_app_or_server,
    plain,
    print_json,
)
from archivist.events import Event, unsupported_note
from archivist.types import ArchivistError, source_label

Verbose = Annotated[
    bool, typer.Option("--verbose", "-v", help="Show the steps (rewrites, searches) and stats.")
]
Llm = Annotated[
    str | None,
    typer.Option("--llm", help='"provider:model" or "scripted" (default: the llm.model setting).'),
]


@contextmanager
def _user_errors() -> Iterator[None]:
    try:
        yield
    except ArchivistError as exc:
        fail(str(exc), EXIT_ERROR)


def turn_json(stream: Iterable[Event]) -> dict[str, Any]:
    """A whole turn as one JSON document: answer, status, thread, sources, confidence, stats."""
    out: dict[str, Any] = {
        "thread_id": "", "status": "answered", "answer": "", "clarification": None,
        "sources": [], "confidence": None, "claims": [], "steps": [], "stats": {},
        "errors": [],
    }
    tokens: list[str] = []
    for event in stream:
        data = event.data
        if event.type == "token":
            tokens.append(data["text"])
        elif event.type == "step":
            out["steps"].append(data)
        elif event.type == "clarification":
            out["clarification"] = data["question"]
        elif event.type == "sources":
            out["sources"] = data["sources"]
            out["confidence"] = data.get("confidence")
            out["claims"] = data.get("claims") or []
        elif event.type == "stats":
            out["stats"] = data
        elif event.type == "error":
            out["errors"].append(data["message"])
        elif event.type == "done":
            out["thread_id"] = data["thread_id"]
            out["status"] = data.get("status", "answered")
            out["answer"] = data.get("answer") or "".join(tokens)
    return out


def render(stream: Iterable[Event], verbose: bool = False) -> tuple[str, str]:
    """Print a turn's events; return its status and thread id."""
    status, thread_id, at_line_start = "answered", "", True
    for event in stream:
        data = event.data
        if event.type == "step" and verbose:
            extra = f" ({data['results']} results)" if "results" in data else ""
            console.print(plain(f"· {data['kind']}: {data['detail']}{extra}", style="dim"))
        elif event.type == "token":
            console.print(plain(data["text"]), end="")
            at_line_start = data["text"].endswith("\n")
        elif event.type == "clarification":
            console.print(plain(f"? {data['question']}", style="bold yellow"))
        elif event.type == "error":
            err_console.print(plain(data["message"], style="yellow"))
        elif event.type == "sources":
            if not at_line_start:
                console.print()
            _print_sources(data)
        elif event.type == "stats" and verbose:
            console.print(Text(_stats_line(data), style="dim"))
        elif event.type == "done":
            status, thread_id = data["status"], data["thread_id"]
    return status, thread_id


def _print_sources(data: dict[str, Any]) -> None:
    """Unsupported sentences (marked), then the Sources (numbered when cited by number)."""
    claims = data.get("claims") or []
    note = unsupported_note(claims)
    if note:
        console.print(plain(note, style="bold yellow"))
    items = data.get("sources") or []
    if not items:
        console.print(Text("Sources: none", style="dim"))
    else:
        console.print(Text("Sources:", style="bold"))
    for number, item in enumerate(items, start=1):
        label = source_label(item)
        if item.get("kind") == "web" and item.get("url"):
            label = f"{label} (web: {item['url']})"
        console.print(plain(f"  [{number}] {label}" if claims else f"  - {label}"))
    if data.get("confidence"):
        console.print(Text(f"confidence: {data['confidence']}", style="dim"))


def _stats_line(data: dict[str, Any]) -> str:
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in (data.get("stages") or {}).items())
    return (
        f"{data.get('llm_calls', 0)} LLM calls, {data.get('tool_calls', 0)} tool calls, "
        f"{data.get('tokens_in', 0)} tokens in / {data.get('tokens_out', 0)} out, "
        f"{data.get('wall_seconds', 0):.2f}s ({stages})"
    )


def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Continue this conversation.")
    ] = None,
    verbose: Verbose = False,
    collection: Collection = None,
    data_dir: DataDir = None,
    llm: Llm = None,
    as_json: JsonOutput = False,
) -> None:
    """Ask one question; the answer streams, then its Sources and the thread id."""
    with _user_errors(), open_app_or_server(
        data_dir, collection, llm={"model": llm}
    ) as application:
        service = application.agent
        if as_json:
            result = turn_json(service.stream(question, thread, collection))
            print_json(result)
            if result["status"] == "retrieval_only":
                raise typer.Exit(EXIT_DEGRADED)
            return
        status, thread_id = render(service.stream(question, thread, collection), verbose)
    hint = " (reply with --thread to answer)" if status == "clarification" else ""
    console.print(Text(f"thread: {thread_id}{hint}", style="dim"))
    if status == "retrieval_only":
        raise typer.Exit(EXIT_DEGRADED)


def chat(
    verbose: Verbose = False,
    collection: Collection = None,
    data_dir: DataDir = None,
    llm: Llm = None,
    thread: Annotated[
        str | None, typer.Option("--thread", "-t", help="Continue this conversation.")
    ] = None,
) -> None:
    """An interactive conversation: /new starts a new one, /exit (or Ctrl-D) quits."""
    with _user_errors(), open_app_or_server(
        data_dir, collection, llm={"model": llm}
    ) as application:
        service = application.agent
        console.print(Text("Ask about your documents. /new starts over, /exit quits.", "dim"))
        degraded = False
        while True:
            try:
                line = console.input("[bold]> [/bold]").strip()
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            if not line:
                continue
            if line in ("/exit", "/quit"):
                break
            if line == "/new":
                thread = None
                console.print(Text("new conversation", style="dim"))
                continue
            status, thread = render(service.stream(line, thread, collection), verbose)
            degraded = degraded or status == "retrieval_only"
            console.print()
    if degraded:  # as `ask`: some answer was retrieval-only (the LLM failed)
        raise typer.Exit(EXIT_DEGRADED)


def register(app: typer.Typer) -> None:
    """Add ``ask`` and ``chat`` to the main CLI."""
    app.command("ask")(ask)
    app.command("chat")(chat)
