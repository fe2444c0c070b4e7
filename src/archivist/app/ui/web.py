"""The web UI (Gradio), mounted in the API server at ``/ui``.

A sidebar lists the person's conversations (newest first, titled from their first question;
rename, delete) and a collection picker; a reload brings the open conversation back with its
sources. Answers stream in with their steps; ``[n]`` markers and Sources lines open the
passage beside the chat (for a PDF, the page with the passage highlighted). Answers can be
rated with a comment, conversations exported as Markdown or JSON. A documents panel uploads
(one progress display per upload: stage, pages, chunks), lists and deletes documents. With
API keys the UI asks for one at login and acts with its role (see ``docs/security.md``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import gradio as gr
from fastapi import FastAPI

from archivist.app.api.auth import UI_OWNER, Caller, KeyChecker
from archivist.app.api.errors import ApiError
from archivist.app.api.turns import ChatRunner
from archivist.app.jobs import IngestJobs, Job
from archivist.app.limits import MESSAGE_MAX_CHARS
from archivist.app.ui.logins import UiLogins, refusal
from archivist.app.ui.render import (
    CSS,
    NO_SOURCE,
    SOURCE_JS,
    ChatTurn,
    Message,
    parse_source_ref,
    thread_note,
    turn_messages,
)
from archivist.app.ui.session import (
    UiConversations,
    browser_owner,
    new_browser_id,
    outcome_lines,
    png_image,
    stage_files,
)
from archivist.application import Application
from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.events import Event
from archivist.types import ArchivistError

log = logging.getLogger(__name__)


def build_ui(application: Application, jobs: IngestJobs, chat: ChatRunner,
             logins: UiLogins | None = None) -> gr.Blocks:
    """The Gradio app (``logins``: the key login; none means an open server)."""
    settings = application.settings
    store = application.store
    sessions = logins or UiLogins(KeyChecker([]))
    convs = UiConversations(store, chat.registry, chat.turns)

    def caller(request: gr.Request) -> Caller:
        """The key behind this session, with its role (a notice when it is unknown)."""
        try:
            return sessions.caller(request)
        except ApiError as exc:
            raise gr.Error(exc.message) from None

    def owner(request: gr.Request, browser: dict[str, Any] | None) -> str:
        """Whose conversations: the key's owner, or this browser's on an open server."""
        found = caller(request)
        if sessions.checker.enabled:
            return found.owner
        return browser_owner(str((browser or {}).get("id") or "unknown"))

    def usable(request: gr.Request, name: str) -> str:
        """``name`` if this session's key may use it (else a notice)."""
        if refused := refusal(lambda: caller(request).check_collection(name)):
            raise gr.Error(refused)
        return name

    def collections(current: str | None = None, request: gr.Request | None = None) -> Any:
        names = sorted({*store.collections(), settings.collection, current or ""} - {""})
        if request is not None:
            found = caller(request)
            names = [n for n in names if found.may_use(n)]
        return gr.update(choices=names, value=current or settings.collection)

    def conversation_list(who: str, thread_id: str | None) -> Any:
        return gr.update(choices=convs.choices(who), value=thread_id)

    def start(browser: dict[str, Any] | None, request: gr.Request) -> tuple[Any, ...]:
        state = dict(browser or {})
        state.setdefault("id", new_browser_id())
        state["id"] = state["id"] or new_browser_id()
        who = owner(request, state)
        thread_id = state.get("thread")
        collection = convs.collection(thread_id, who)
        if collection is None:
            thread_id = None
            state["thread"] = None
        messages = turn_messages(chat.turns.turns(thread_id)) if thread_id else []
        name = collection or settings.collection
        note = gr.update(value=thread_note(thread_id), elem_classes=["loaded"])
        return (state, thread_id, messages, note,
                conversation_list(who, thread_id), collections(name, request),
                *documents(name, request))

    def switch(thread_id: str | None, browser: dict[str, Any] | None, request: gr.Request
               ) -> tuple[Any, ...]:
        who = owner(request, browser)
        collection = convs.collection(thread_id, who)
        if collection is None:
            thread_id = None
        state = {**(browser or {}), "thread": thread_id}
        messages = turn_messages(chat.turns.turns(thread_id)) if thread_id else []
        name = collection or settings.collection
        return (state, thread_id, messages, thread_note(thread_id),
                collections(name, request), *documents(name, request))

    def respond(
        question: str, history: list[Message] | None, thread_id: str | None,
        browser: dict[str, Any] | None, collection: str | None, request: gr.Request,
    ) -> Iterator[tuple[Any, ...]]:
        history = list(history or [])
        question = (question or "").strip()
        who = owner(request, browser)
        state = dict(browser or {})
        if not question:
            yield history, "", thread_id, thread_note(thread_id), gr.update(), state
            return
        name = convs.collection(thread_id, who) or collection or settings.collection
        refused = refusal(lambda: caller(request).check_collection(name))
        if refused is None and len(question) > MESSAGE_MAX_CHARS:
            refused = f"a question may hold at most {MESSAGE_MAX_CHARS} characters"
        if refused is not None:
            turn = ChatTurn(history, question[:200], 0)
            turn.apply(Event("error", {"message": refused}))
            turn.finished = True
            yield turn.messages(), "", thread_id, thread_note(thread_id), gr.update(), state
            return
        if convs.collection(thread_id, who) is None:
            thread_id = chat.create(who, name)
        state["thread"] = thread_id
        assert thread_id is not None
        turn = ChatTurn(history, question, len(chat.turns.turns(thread_id)) + 1)
        yield turn.messages(), "", thread_id, thread_note(thread_id), gr.update(), state
        try:
            events = chat.events(question, thread_id, name)
            listed = False
            try:
                for event in events:
                    turn.apply(event)
                    if event.type not in ("token", "step", "clarification",
                                          "sources", "done", "error"):
                        continue
                    update = gr.update()
                    if not listed:
                        update, listed = conversation_list(who, thread_id), True
                    yield (turn.messages(), "", thread_id, thread_note(thread_id), update,
                           state)
            finally:
                events.close()
        except (ArchivistError, ApiError) as exc:
            turn.apply(Event("error", {"message": str(exc)}))
            turn.finished = True
        except Exception as exc:  # shown as a notice; the traceback goes to the log
            log.exception("UI turn failed")
            turn.apply(Event("error", {"message": f"the answer failed: {type(exc).__name__}"}))
            turn.finished = True
        yield (turn.messages(), "", thread_id, thread_note(thread_id),
               conversation_list(who, thread_id), state)

    def reset(browser: dict[str, Any] | None, request: gr.Request) -> tuple[Any, ...]:
        who = owner(request, browser)
        return ([], "", None, thread_note(None), conversation_list(who, None),
                {**(browser or {}), "thread": None})

    def pick_collection(name: str | None, thread_id: str | None, browser: dict[str, Any] | None,
                        request: gr.Request) -> tuple[Any, ...]:
        who = owner(request, browser)
        name = usable(request, name or settings.collection)
        if thread_id and convs.collection(thread_id, who) == name:
            return (gr.update(), gr.update(), thread_id, thread_note(thread_id), gr.update(),
                    browser, *documents(name, request))
        # a new conversation; the question box is left alone (a question typed while the
        # switch was on its way is kept)
        return ([], gr.update(), None, thread_note(None), conversation_list(who, None),
                {**(browser or {}), "thread": None}, *documents(name, request))

    def rename(title: str, thread_id: str | None, browser: dict[str, Any] | None,
               request: gr.Request) -> tuple[Any, str]:
        who = owner(request, browser)
        title = " ".join((title or "").split())
        if not thread_id or not title or not chat.registry.rename(thread_id, who, title):
            return gr.update(), "Type a title for the open conversation first."
        return conversation_list(who, thread_id), f"Renamed to “{title}”."

    def delete_conversation(thread_id: str | None, browser: dict[str, Any] | None,
                            request: gr.Request) -> tuple[Any, ...]:
        who = owner(request, browser)
        note = "Deleted." if thread_id and convs.forget(thread_id, who) else "Nothing to delete."
        return (*reset(browser, request), note)

    def cleared(thread_id: str | None, shown_for: str | None) -> tuple[Any, ...]:
        """The side panel, feedback line and export of another conversation, emptied.

        Not when the panel shows the new one's source: a conversation gets its id as its
        first answer ends, and a source clicked at once may open before this runs.
        """
        if thread_id is not None and thread_id == shown_for:
            return tuple(gr.update() for _ in range(7))
        return (NO_SOURCE, gr.update(value=None, visible=False), gr.update(visible=False),
                "", "", gr.update(value=None, visible=False), None)

    def open_source(ref: str, thread_id: str | None, browser: dict[str, Any] | None,
                    request: gr.Request) -> tuple[Any, ...]:
        parsed = parse_source_ref(ref or "")
        if parsed is None or not thread_id:
            return gr.update(), gr.update(), gr.update(), gr.update(), gr.update()
        opened = convs.open_source(thread_id, *parsed, owner(request, browser))
        image = gr.update(value=None, visible=False)
        if opened.page_png is not None:
            image = gr.update(value=png_image(opened.page_png), visible=True,
                              label=f"page {opened.page}")
        # the page says where the passage is; without one, the section is shown open
        section = gr.update(visible=bool(opened.section), open=opened.page_png is None)
        return opened.markdown, image, section, opened.section, thread_id

    def rate(rating: str, comment: str, thread_id: str | None, browser: dict[str, Any] | None,
             request: gr.Request) -> tuple[str, str]:
        said = convs.rate(thread_id, owner(request, browser), rating, comment or "")
        return (said, "") if said else ("There is no answer to rate yet.", comment)

    def export(fmt: str, thread_id: str | None, browser: dict[str, Any] | None,
               request: gr.Request) -> Any:
        path = convs.export(thread_id, owner(request, browser), fmt) if thread_id else None
        if path is None:
            gr.Warning("Ask something first: there is nothing to export.")
            return gr.update(value=None, visible=False)
        return gr.update(value=str(path), visible=True)

    def documents(collection: str | None = None, request: gr.Request | None = None
                  ) -> tuple[list[list[Any]], Any]:
        name = collection or settings.collection
        if request is not None and refusal(lambda: caller(request).check_collection(name)):
            return [], gr.update(choices=[], value=None)
        docs = store.documents(name)
        rows = [[d.name, d.page_count or "-", d.child_count, d.added_at, d.document_id[:12]]
                for d in docs]
        choices = [(f"{d.name} ({d.document_id[:8]})", d.document_id) for d in docs]
        return rows, gr.update(choices=choices, value=None)

    def list_documents(collection: str | None, request: gr.Request
                       ) -> tuple[list[list[Any]], Any]:
        return documents(collection, request)

    def upload(files: list[str] | None, collection: str | None, request: gr.Request,
               progress: gr.Progress = gr.Progress()  # noqa: B008
               ) -> tuple[str, list[list[Any]], Any, None]:
        name = collection or settings.collection
        who = caller(request)
        if refused := refusal(lambda: who.check_write(name)):
            return (f"**Could not upload:** {refused}", *documents(name, request), None)
        if not files:
            return ("Choose one or more files first.", *documents(name, request), None)
        job = Job(uuid.uuid4().hex[:16], UI_OWNER, name, [], document_owner=who.document_owner)
        lines = stage_files(files, jobs.staging_dir(), job.staged, settings.server.max_upload_files)
        if job.staged:
            jobs.submit(job)
            while not (job := jobs.refresh(job, 0.2)).done.is_set():
                progress(job.fraction(), desc=job.describe())
        lines += outcome_lines(job)
        return ("\n".join(lines), *documents(name, request), None)

    def delete_document(document_id: str | None, collection: str | None, request: gr.Request
                        ) -> tuple[str, list[list[Any]], Any]:
        name = collection or settings.collection
        if not document_id:
            return ("Choose a document to delete.", *documents(name, request))
        try:
            who = caller(request)
            who.check_write(name)
            record = store.resolve(document_id, name)
            if not who.may_change(record.owner):
                raise ApiError(403, "forbidden", f"{record.name} belongs to another key")
            record = store.remove(record.document_id, name)
            jobs.forget_upload(record)
            message = f"Deleted {record.name}."
        except (ArchivistError, ApiError) as exc:
            message = f"**Could not delete:** {exc}"
        return (message, *documents(name, request))

    with gr.Blocks(title="Archivist") as demo:
        browser = gr.BrowserState({"id": None, "thread": None}, storage_key="archivist-ui")
        thread = gr.State(None)
        with gr.Sidebar(elem_id="sidebar"):
            new = gr.Button("New conversation", elem_id="new-conversation", size="sm")
            collection = gr.Dropdown(label="Collection", choices=[settings.collection],
                                     value=settings.collection, allow_custom_value=True,
                                     elem_id="collection")
            conversations = gr.Radio(label="Conversations", choices=[], elem_id="conversations")
            with gr.Accordion("Rename or delete", open=False, elem_id="manage"):
                title = gr.Textbox(label="New title", elem_id="rename-title")
                with gr.Row():
                    rename_button = gr.Button("Rename", size="sm", elem_id="rename")
                    delete_chat = gr.Button("Delete", size="sm", variant="stop",
                                            elem_id="delete-conversation")
                manage_status = gr.Markdown(elem_id="manage-status")
        gr.Markdown("## Archivist\nAsk questions about your documents; answers cite their pages.")
        with gr.Tab("Chat", id="chat"), gr.Row():
            with gr.Column(scale=3):
                chatbot = gr.Chatbot(label="Conversation", height=520, elem_id="chatbot",
                                     feedback_options=None, buttons=["copy"])
                with gr.Row():
                    box = gr.Textbox(placeholder="Ask about your documents…",
                                     show_label=False, scale=8, elem_id="question",
                                     autofocus=True)
                    send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
                note = gr.Markdown(thread_note(None), elem_id="thread-id")
                with gr.Row():
                    up = gr.Button("Helpful", size="sm", scale=0, elem_id="thumbs-up")
                    down = gr.Button("Not helpful", size="sm", scale=0, elem_id="thumbs-down")
                    comment = gr.Textbox(placeholder="What was good or wrong? (optional)",
                                         show_label=False, scale=6,
                                         elem_id="feedback-comment")
                feedback_status = gr.Markdown(elem_id="feedback-status")
                with gr.Row():
                    export_md = gr.Button("Export Markdown", size="sm", elem_id="export-md")
                    export_json = gr.Button("Export JSON", size="sm", elem_id="export-json")
                export_file = gr.File(label="Export", visible=False, elem_id="export-file")
            with gr.Column(scale=2, elem_id="source-view"):
                source_ref = gr.Textbox(elem_id="source-ref", show_label=False)
                passage = gr.Markdown(NO_SOURCE, elem_id="source-passage")
                page_image = gr.Image(label="page", visible=False, interactive=False,
                                      format="png", elem_id="source-page",
                                      buttons=["fullscreen"])
                with gr.Accordion("The whole section", open=False, visible=False,
                                  elem_id="source-section") as section_box:
                    section_text = gr.Markdown(elem_id="source-section-text")
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
                refresh = gr.Button("Refresh", elem_id="refresh-documents", scale=1)
            delete_status = gr.Markdown(elem_id="delete-status")

        chat_out = [chatbot, box, thread, note, conversations, browser]
        source_out = [passage, page_image, section_box, section_text]
        shown_for = gr.State(None)  # the conversation whose source the panel shows
        thread.change(cleared, [thread, shown_for],
                      [*source_out, feedback_status, export_file, shown_for],
                      show_progress="hidden")
        box.submit(respond, [box, chatbot, thread, browser, collection], chat_out)
        send.click(respond, [box, chatbot, thread, browser, collection], chat_out)
        new.click(reset, [browser], chat_out)
        chatbot.clear(reset, [browser], chat_out)  # the chat's bin starts a new conversation
        conversations.input(switch, [conversations, browser], [
            browser, thread, chatbot, note, collection, table, choice])
        collection.input(pick_collection, [collection, thread, browser],
                         [*chat_out, table, choice])
        rename_button.click(rename, [title, thread, browser], [conversations, manage_status])
        delete_chat.click(delete_conversation, [thread, browser], [*chat_out, manage_status])
        source_ref.change(open_source, [source_ref, thread, browser], [*source_out, shown_for],
                          show_progress="hidden")
        up.click(rate, [gr.State("up"), comment, thread, browser], [feedback_status, comment])
        down.click(rate, [gr.State("down"), comment, thread, browser],
                   [feedback_status, comment])
        export_md.click(export, [gr.State("md"), thread, browser], [export_file])
        export_json.click(export, [gr.State("json"), thread, browser], [export_file])
        upload_button.click(upload, [files, collection], [status, table, choice, files],
                            show_progress_on=[status], api_name="upload")
        delete_button.click(delete_document, [choice, collection],
                            [delete_status, table, choice], api_name="delete")
        refresh.click(list_documents, [collection], [table, choice], api_name="documents")
        demo.load(start, [browser], [browser, thread, chatbot, note, conversations,
                                     collection, table, choice])
    return demo


def mount_ui(app: FastAPI, application: Application, path: str) -> None:
    """Mount the UI on the API app at ``path`` (behind a key login when keys are set)."""
    settings = application.settings
    checker: KeyChecker = app.state.keys
    logins = UiLogins(checker)
    demo = build_ui(application, app.state.jobs, app.state.chat, logins)
    gr.mount_gradio_app(
        app, demo, path=path, auth=logins.login if checker.enabled else None,
        auth_message="Log in with a user name of your choice and one of the server's API keys.",
        max_file_size=f"{settings.server.max_upload_mb}mb", footer_links=[], css=CSS,
        head=SOURCE_JS, run_history=False,
    )
