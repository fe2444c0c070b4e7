"""What an ingest reports while it runs: per-file progress and per-stage callbacks."""

from __future__ import annotations

import errno
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from archivist.types import FileResult

__all__ = [
    "EMBED_STEP", "IngestProgress", "describe_file", "no_stage", "ProgressCallback",
    "StageCallback", "content_hash", "stage_reporter",
]


@dataclass
class IngestProgress:
    """What a progress display needs after each file (``result`` set), and during one.

    While a file is being ingested, ``stage`` says what happens to it (``converting``,
    ``embedding``, ``indexing``), with its pages converted so far (``stage_pages``) out of
    its page count (``stage_page_count``, 0 until known) and the chunks embedded so far
    out of ``stage_total``; ``pages`` and ``chunks`` stay 0 until the file is done.
    ``pages_converted`` counts the pages converted so far in every file of the run (PDFs
    convert several at a time, ahead of the one being written): exact, never estimated.
    """

    files_done: int
    files_total: int
    path: str
    pages: int = 0
    chunks: int = 0
    result: FileResult | None = None
    ocr_pages: int = 0
    ocr_seconds: float = 0.0
    stage: str = "done"
    stage_pages: int = 0
    stage_done: int = 0
    stage_total: int = 0
    pages_converted: int = 0
    stage_page_count: int = 0

    def describe_file(self) -> str:
        """The file at hand as progress shows it: ``converting x.pdf (page 8 of 70)``."""
        return describe_file(self.stage, Path(self.path).name, self.stage_pages,
                             self.stage_page_count, self.stage_done, self.stage_total)


def describe_file(stage: str, name: str, pages: int, page_count: int, done: int = 0,
                  total: int = 0) -> str:
    """One file's stage as every progress display words it (the UI, the job, the CLI).

    While it converts, ``page 8 of 70``: pages converted so far of the file's page count;
    after that, ``70 pages``; then its chunks embedded so far of ``total``.
    """
    text = f"{stage} {name}" if name else stage
    if stage == "converting" and page_count:
        text += f" (page {pages} of {page_count})"
    elif page_count or pages:
        text += f" ({max(page_count, pages)} pages)"
    if total:
        text += f": {done}/{total} chunks"
    return text


ProgressCallback = Callable[[IngestProgress], None]
StageCallback = Callable[..., None]
EMBED_STEP = 256  # chunks embedded between two progress reports


def no_stage(*_args: object) -> None:
    """No progress display."""


def stage_reporter(
    progress: ProgressCallback | None, files_done: int, files_total: int, path: str,
    converted: Callable[[], int] = lambda: 0,
) -> StageCallback:
    """A callback reporting one file's stages to ``progress`` (if any).

    ``converted`` says how many pages the run has converted so far.
    """
    if progress is None:
        return no_stage

    def report(stage: str, pages: int = 0, done: int = 0, total: int = 0,
               page_count: int = 0) -> None:
        progress(IngestProgress(files_done, files_total, path, stage=stage, stage_pages=pages,
                                stage_done=done, stage_total=total,
                                pages_converted=converted(), stage_page_count=page_count))

    return report


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes; its first 16 hex digits are the document id."""
    return hashlib.sha256(data).hexdigest()


def write_reason(exc: Exception) -> str:
    """Why writing a document failed, in one line (a full disk says so)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC
    if full or "disk is full" in text or "No space left" in text:
        return text if text.startswith("disk full") else f"disk full: {text}"
    return text


def loader_reason(exc: Exception, path: Path) -> str:
    """The reason part of a loader message (the CLI prints the path itself)."""
    message = str(exc)
    for prefix in (f"{path}: ", f"{path.name}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message
