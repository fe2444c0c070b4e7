"""The web UI (Gradio), mounted in the API server at ``/ui``.

A chat whose answer streams in, with the agent's steps in a collapsible block and the
sources (document and pages) under the answer; a clarification question is an ordinary
assistant turn, answered by the next message. A documents panel uploads (with progress),
lists and deletes documents. Each browser session has its own conversation (``gr.State``);
"New conversation" starts another. With API keys configured, the UI asks for one at login
(as the password) and then acts with that key's role: a read-only key cannot upload or
delete, a normal key deletes only its own documents (see ``docs/security.md``).
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr
from fastapi import FastAPI

from archivist.app.api.auth import UI_OWNER, KeyChecker, ThreadRegistry
from archivist.app.api.errors import ApiError
from archivist.app.jobs import IngestJobs, Job
from archivist.app.limits import MESSAGE_MAX_CHARS
from archivist.app.ui.logins import UiLogins, refusal
from archivist.app.upload_names import safe_name
from archivist.application import Application
from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.events import Event
from archivist.types import ArchivistError, format_pages

log = logging.getLogger(__name__)

CSS = """
#thread-id { opacity: 0.6; font-size: 0.8em; }
footer { display: none !important; }
"""

Message = dict[str, Any]


class ChatTurn:
    """The chat messages of one turn, rebuilt from the agent's events as they arrive."""

    def __init__(self, history: list[Message], question: str) -> None:
        self.history = [*history, {"role": "user", "content": question}]
        self.steps: list[str] = []
        self.answer = ""
        self.sources = ""
        self.notices: list[str] = []
        self.stats = ""
        self.clarification: str | None = None
        self.started = time.perf_counter()
        self.finished = False

    def apply(self, event: Event) -> None:
        """Fold one event into the turn."""
        data = event.data
        if event.type == "step":
            self.steps.append(f"**{data.get('kind')}**: {data.get('detail', '')}")
        elif event.type == "token":
            self.answer += str(data["text"])
        elif event.type == "clarification":
            self.clarification = str(data["question"])
        elif event.type == "sources":
            self.sources = sources_markdown(data.get("sources") or [], data.get("confidence"))
        elif event.type == "stats":
            self.stats = stats_line(data)
        elif event.type == "error":
            self.notices.append(f"**Warning:** {data['message']}")
        elif event.type == "done":
            self.finished = True
            if not self.answer and not self.clarification and data.get("answer"):
                self.answer = str(data["answer"])

    def messages(self) -> list[Message]:
        """The chat as it should look now."""
        out = list(self.history)
        if self.steps or not self.finished:
            status = "done" if self.finished else "pending"
            metadata: dict[str, Any] = {"title": f"Steps ({len(self.steps)})", "status": status}
            if self.finished:
                metadata["duration"] = round(time.perf_counter() - self.started, 2)
            if self.stats:
                metadata["log"] = self.stats
            content = "\n".join(f"- {s}" for s in self.steps) or "thinking…"
            out.append({"role": "assistant", "content": content, "metadata": metadata})
        for notice in self.notices:
            out.append({"role": "assistant", "content": notice})
        if self.clarification:
            out.append({"role": "assistant", "content": self.clarification})
        elif self.answer:
            text = self.answer + (f"\n\n{self.sources}" if self.sources else "")
            out.append({"role": "assistant", "content": text})
        return out


def sources_markdown(sources: list[dict[str, Any]], confidence: str | None) -> str:
    """The Sources block under an answer: one line per document with its pages."""
    if not sources:
        return ""
    lines = []
    for source in sources:
        name = source.get("document_name") or source.get("url") or "source"
        pages = source.get("pages") or format_pages(source.get("page_start"),
                                                   source.get("page_end"))
        lines.append(f"- {name}" + (f", {pages}" if pages else ""))
    heading = "**Sources**" + (f" _(confidence: {confidence})_" if confidence else "")
    return heading + "\n" + "\n".join(lines)


def stats_line(stats: dict[str, Any]) -> str:
    """Per-answer figures in one short line."""
    parts = [f"{stats.get('llm_calls', 0)} LLM calls", f"{stats.get('tool_calls', 0)} tool calls"]
    if stats.get("wall_seconds") is not None:
        parts.append(f"{stats['wall_seconds']:.2f} s")
    return " · ".join(parts)


def build_ui(application: Application, jobs: IngestJobs, registry: ThreadRegistry,
             logins: UiLogins | None = None) -> gr.Blocks:
    """The Gradio app."""
    settings = application.settings
    sessions = logins or UiLogins(KeyChecker([]))

    def new_thread() -> str:
        thread_id = application.agent.new_thread_id()
        registry.create(thread_id, f"{UI_OWNER}:{uuid.uuid4().hex[:12]}", settings.collection)
        return thread_id

    def respond(
        question: str, history: list[Message] | None, thread_id: str | None,
        request: gr.Request,
    ) -> Iterator[tuple[list[Message], str, str | None, str]]:
        history = list(history or [])
        question = (question or "").strip()
        if not question:
            yield history, "", thread_id, thread_note(thread_id)
            return
        refused = refusal(lambda: sessions.caller(request).check_collection(settings.collection))
        if refused is None and len(question) > MESSAGE_MAX_CHARS:
            refused = f"a question may hold at most {MESSAGE_MAX_CHARS} characters"
        if refused is not None:
            turn = ChatTurn(history, question[:200])
            turn.apply(Event("error", {"message": refused}))
            turn.finished = True
            yield turn.messages(), "", thread_id, thread_note(thread_id)
            return
        thread_id = thread_id or new_thread()
        turn = ChatTurn(history, question)
        yield turn.messages(), "", thread_id, thread_note(thread_id)
        try:
            for event in application.agent.stream(question, thread_id, settings.collection):
                turn.apply(event)
                if event.type in ("token", "step", "clarification", "sources", "done", "error"):
                    yield turn.messages(), "", thread_id, thread_note(thread_id)
        except ArchivistError as exc:
            turn.apply(Event("error", {"message": str(exc)}))
            turn.finished = True
        except Exception as exc:  # shown as a notice; the traceback goes to the log
            log.exception("UI turn failed")
            turn.apply(Event("error", {"message": f"the answer failed: {type(exc).__name__}"}))
            turn.finished = True
        yield turn.messages(), "", thread_id, thread_note(thread_id)

    def reset() -> tuple[list[Message], str, None, str]:
        return [], "", None, thread_note(None)

    def documents(request: gr.Request) -> tuple[list[list[Any]], Any]:
        if refusal(lambda: sessions.caller(request).check_collection(settings.collection)):
            return [], gr.update(choices=[], value=None)
        docs = application.store.documents()
        rows = [[d.name, d.page_count or "-", d.child_count, d.added_at, d.document_id[:12]]
                for d in docs]
        choices = [(f"{d.name} ({d.document_id[:8]})", d.document_id) for d in docs]
        return rows, gr.update(choices=choices, value=None)

    def upload(files: list[str] | None, request: gr.Request,
               progress: gr.Progress = gr.Progress()  # noqa: B008
               ) -> tuple[str, list[list[Any]], Any, None]:
        rows, choices = documents(request)
        if not files:
            return "Choose one or more files first.", rows, choices, None
        caller = sessions.caller(request)
        if refused := refusal(lambda: caller.check_write(settings.collection)):
            return f"**Could not upload:** {refused}", rows, choices, None
        job = Job(uuid.uuid4().hex[:16], UI_OWNER, settings.collection, staged=[],
                  document_owner=caller.document_owner)
        staging = jobs.staging_dir()
        lines = []
        for file in files:
            name = safe_name(Path(file).name)
            if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                lines.append(f"- {name}: skipped (unsupported file type)")
                continue
            target = staging / name
            shutil.copyfile(file, target)
            job.staged.append(target)
        if job.staged:
            jobs.submit(job)
            total = len(job.staged)
            while not job.done.wait(0.1):
                progress((job.files_done, total), desc=f"ingesting {job.current or '…'}",
                         unit="files")
        else:
            shutil.rmtree(staging, ignore_errors=True)
        for result in job.results:
            detail = f" ({result.reason})" if result.reason else f" ({result.chunks} chunks)"
            lines.append(f"- {result.file}: {result.outcome}{detail}")
        if job.error:
            lines.append(f"- ingest failed: {job.error}")
        rows, choices = documents(request)
        return "\n".join(lines), rows, choices, None

    def delete(document_id: str | None, request: gr.Request
               ) -> tuple[str, list[list[Any]], Any]:
        if not document_id:
            rows, choices = documents(request)
            return "Choose a document to delete.", rows, choices
        try:
            caller = sessions.caller(request)
            caller.check_write(settings.collection)
            record = application.store.resolve(document_id)
            if not caller.may_change(record.owner):
                raise ApiError(403, "forbidden", f"{record.name} belongs to another key")
            record = application.store.remove(record.document_id)
            jobs.forget_upload(record)
            message = f"Deleted {record.name}."
        except (ArchivistError, ApiError) as exc:
            message = f"**Could not delete:** {exc}"
        rows, choices = documents(request)
        return message, rows, choices

    with gr.Blocks(title="Archivist") as demo:
        thread = gr.State(None)
        gr.Markdown("## Archivist\nAsk questions about your documents; answers cite their pages.")
        with gr.Tab("Chat", id="chat"):
            chatbot = gr.Chatbot(label="Conversation", height=520, elem_id="chatbot",
                                 feedback_options=None, buttons=["copy"])
            with gr.Row():
                box = gr.Textbox(placeholder="Ask about your documents…", show_label=False,
                                 scale=8, elem_id="question", autofocus=True)
                send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
            with gr.Row():
                new = gr.Button("New conversation", elem_id="new-conversation", size="sm")
                note = gr.Markdown(thread_note(None), elem_id="thread-id")
        with gr.Tab("Documents", id="documents"):
            files = gr.File(label="Upload documents", file_count="multiple",
                            file_types=sorted(SUPPORTED_SUFFIXES), elem_id="upload-files")
            upload_button = gr.Button("Upload", variant="primary", elem_id="upload")
            status = gr.Markdown(elem_id="upload-status")
            table = gr.Dataframe(headers=["name", "pages", "chunks", "added", "id"],
                                 interactive=False, elem_id="documents-table")
            with gr.Row():
                choice = gr.Dropdown(label="Document", choices=[], elem_id="delete-choice",
                                     scale=4)
                delete_button = gr.Button("Delete", variant="stop", elem_id="delete", scale=1)
            delete_status = gr.Markdown(elem_id="delete-status")

        outputs = [chatbot, box, thread, note]
        box.submit(respond, [box, chatbot, thread], outputs)
        send.click(respond, [box, chatbot, thread], outputs)
        new.click(reset, None, outputs)
        upload_button.click(upload, [files], [status, table, choice, files])
        delete_button.click(delete, [choice], [delete_status, table, choice])
        demo.load(documents, None, [table, choice])
    return demo


def thread_note(thread_id: str | None) -> str:
    """The small line naming the current conversation."""
    return f"conversation `{thread_id[:8]}`" if thread_id else "new conversation"


def mount_ui(app: FastAPI, application: Application, path: str) -> None:
    """Mount the UI on the API app at ``path`` (behind a key login when keys are set)."""
    settings = application.settings
    checker: KeyChecker = app.state.keys
    logins = UiLogins(checker)
    demo = build_ui(application, app.state.jobs, app.state.chat.registry, logins)
    auth = logins.login if checker.enabled else None
    gr.mount_gradio_app(
        app, demo, path=path, auth=auth,
        auth_message="Log in with any user name and one of the server's API keys.",
        max_file_size=f"{settings.max_upload_mb}mb", footer_links=[], css=CSS,
        run_history=False,
    )
