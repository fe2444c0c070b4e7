"""What the web UI does for one person, without Gradio: whose conversations, open a source.

Who the person is: with API keys, the key they logged in with (so the UI and the API with
that key share conversations); on an open server, their browser (an id kept in the
browser's local storage).
"""

from __future__ import annotations

import atexit
import io
import json
import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archivist.app.api.auth import UI_OWNER, ThreadRegistry
from archivist.app.jobs import Job
from archivist.app.upload_names import safe_name
from archivist.conversations import TurnLog, json_export, markdown_export
from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.documents.pages import render_page
from archivist.index.store import DocumentStore
from archivist.types import (
    ArchivistError,
    document_title,
    format_pages,
    section_path,
    source_label,
)


def browser_owner(browser_id: str) -> str:
    """The owner of an open server's browser."""
    return f"{UI_OWNER}:{browser_id}"


def new_browser_id() -> str:
    """A fresh browser id."""
    return uuid.uuid4().hex


@dataclass
class OpenedSource:
    """What opening a source shows: the passage (Markdown) and, for a PDF, the page."""

    markdown: str
    page_png: bytes | None = None
    page: int | None = None
    section: str = ""  # the whole section, when it says more than the passage


class UiConversations:
    """Conversation lists, stored turns, sources and exports for the UI."""

    def __init__(self, store: DocumentStore, registry: ThreadRegistry, turns: TurnLog) -> None:
        self.store = store
        self.registry = registry
        self.turns = turns
        self._export_dir: Path | None = None

    @property
    def export_dir(self) -> Path:
        """The folder of the process's exports: made at the first export, removed at exit."""
        if self._export_dir is None:
            self._export_dir = Path(tempfile.mkdtemp(prefix="archivist-exports-"))
            atexit.register(shutil.rmtree, self._export_dir, ignore_errors=True)
        return self._export_dir

    def choices(self, owner: str) -> list[tuple[str, str]]:
        """``(title, thread_id)`` of the owner's conversations, newest first."""
        return [(title or f"conversation {thread[:8]}", thread)
                for thread, _c, _at, title in self.registry.owned(owner)]

    def collection(self, thread_id: str | None, owner: str) -> str | None:
        """The conversation's collection when ``owner`` owns it."""
        return self.registry.collection_of(thread_id, owner) if thread_id else None

    def title(self, thread_id: str, owner: str) -> str:
        """The conversation's title."""
        return next((t for th, _c, _a, t in self.registry.owned(owner) if th == thread_id), "")

    def open_source(self, thread_id: str, turn: int, number: int, owner: str) -> OpenedSource:
        """The passage behind source ``number`` of ``turn``, and its page for a PDF."""
        collection = self.collection(thread_id, owner)
        record = self.turns.turn(thread_id, turn) if collection else None
        if record is None or not 1 <= number <= len(record.sources):
            return OpenedSource("That source is no longer available.")
        source = record.sources[number - 1]
        name = str(source.get("document_name") or "source")
        label = f"**[{number}] {source_label(source)}**"
        if source.get("kind") == "web":
            return OpenedSource(f"{label}\n\n{source.get('passage') or ''}\n\n{source.get('url')}")
        document = self.store.get_document(str(source["document_id"]), collection)
        if document is None:
            return OpenedSource(f"{label}\n\n_{name} is no longer in the collection._")
        parent = self.store.get_parent(str(source.get("parent_id") or ""), collection)
        passage = str(source.get("passage") or "")
        lines = [label]
        if parent is not None:
            title = document_title(document.title, document.name)
            cited = source.get("heading_path")  # the cited text's section (else the parent's)
            headings = list(cited) if isinstance(cited, list) else parent.location_path
            where = " › ".join(section_path(headings, title))
            pages = format_pages(parent.page_start, parent.page_end)
            lines.append(f"_Section: {where}" + (f" ({pages})_" if pages else "_"))
        if passage:
            lines.append(quoted(passage))
        opened = OpenedSource("\n\n".join(lines))
        if parent is not None and parent.text.strip() != passage.strip():
            opened.section = parent.text
        start = source.get("page_start")
        path = Path(document.path)
        if start and path.suffix.lower() == ".pdf" and path.is_file():
            try:
                rendered = render_page(path, int(start), passage)
            except ArchivistError as exc:
                opened.markdown += f"\n\n_The page cannot be shown: {exc}_"
            else:
                opened.page_png, opened.page = rendered.png, rendered.page
        return opened

    def export(self, thread_id: str, owner: str, fmt: str) -> Path | None:
        """The conversation written to a file for download (``md`` or ``json``)."""
        collection = self.collection(thread_id, owner)
        if collection is None:
            return None
        title = self.title(thread_id, owner)
        records = self.turns.turns(thread_id)
        path = self.export_dir / uuid.uuid4().hex[:8] / f"conversation-{thread_id[:8]}.{fmt}"
        path.parent.mkdir(parents=True)
        if fmt == "json":
            data: Any = json_export(title, thread_id, collection, records)
            path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        else:
            path.write_text(markdown_export(title, thread_id, collection, records),
                            encoding="utf-8")
        return path

    def rate(self, thread_id: str | None, owner: str, rating: str, comment: str) -> str:
        """Rate the latest answer of the owner's conversation; what to tell (empty: none)."""
        owned = thread_id is not None and self.collection(thread_id, owner) is not None
        record = self.turns.turn(thread_id) if owned and thread_id else None
        if not thread_id or record is None or rating not in ("up", "down"):
            return ""
        self.turns.rate(thread_id, record.turn, rating, comment.strip())  # type: ignore[arg-type]
        verdict = "helpful" if rating == "up" else "not helpful"
        return f"Thanks. Answer {record.turn} rated: {verdict}."

    def forget(self, thread_id: str, owner: str) -> bool:
        """Delete the owner's conversation and its turns."""
        if not self.registry.delete(thread_id, owner):
            return False
        self.turns.forget(thread_id)
        return True


def quoted(text: str) -> str:
    """``text`` as a Markdown quote of plain lines (a heading in it stays a line)."""
    lines = (re.sub(r"^\s{0,3}#{1,6}\s+", "", line).strip() for line in text.splitlines())
    return "\n".join(f"> {line}" if line else ">" for line in lines)


def stage_files(files: list[str], staging: Path, staged: list[Path],
                max_files: int | None = None) -> list[str]:
    """Copy the supported files into ``staging`` (appended to ``staged``); lines for the rest.

    More than ``max_files`` files are refused whole, with one line saying the limit.
    """
    lines = []
    if max_files is not None and len(files) > max_files:
        shutil.rmtree(staging, ignore_errors=True)
        return [f"- refused: an upload holds at most {max_files:,} files ({len(files):,} chosen)"]
    for file in files:
        filename = safe_name(Path(file).name)
        if Path(filename).suffix.lower() not in SUPPORTED_SUFFIXES:
            lines.append(f"- {filename}: skipped (unsupported file type)")
            continue
        shutil.copyfile(file, staging / filename)
        staged.append(staging / filename)
    if not staged:
        shutil.rmtree(staging, ignore_errors=True)
    return lines


def outcome_lines(job: Job) -> list[str]:
    """One line per file of a finished upload (pages and chunks, or the reason)."""
    lines = [f"- {r.file}: {r.outcome}" + (f" ({r.reason})" if r.reason
                                           else f" ({r.pages} pages, {r.chunks} chunks)")
             for r in job.results]
    return lines + ([f"- ingest failed: {job.error}"] if job.error else [])


def png_image(png: bytes) -> Any:
    """A PNG as a PIL image (what ``gr.Image`` shows)."""
    from PIL import Image

    return Image.open(io.BytesIO(png))
