"""Convert files in a pool of processes, ahead of the thread that embeds and writes them.

Each converter process sends the pages it has converted so far, with the file's page
count (``(position, pages, total)``), back on a queue, so the writing thread can show
every PDF's pages counting up while several convert at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archivist.documents.loaders import load_file
from archivist.documents.pdf import OcrMode, pdf_page_count
from archivist.types import DocumentRecord, LoadedDocument

__all__ = [
    "ConversionJob", "ConversionPool", "PagesCallback", "conversion_pool", "converted_ahead",
]

PagesCallback = Callable[[int, int, int], None]  # (file's position, pages converted, in all)
_updates: Any = None  # in a converter process: the queue its page counts go to


@dataclass
class ConversionJob:
    """A file to convert and write: what was learnt from its bytes before converting."""

    path: Path
    digest: str
    size: int
    abs_path: str
    previous: list[DocumentRecord]
    page_count: int = 0  # a PDF's, known before it converts

    @property
    def is_pdf(self) -> bool:
        """PDFs go to the pool; other formats convert in a moment where they are."""
        return self.path.suffix.lower() == ".pdf"

    def over_limit(self, max_pages: int) -> str | None:
        """Why the file is refused when it has more than ``max_pages`` pages (0: no limit)."""
        if not max_pages or self.page_count <= max_pages:
            return None
        return (f"{self.path.name}: {self.page_count:,} pages, more than the {max_pages:,} "
                "a PDF may have (index.max_pdf_pages)")

    @classmethod
    def of(cls, path: Path, data: bytes, digest: str, abs_path: str,
           previous: list[DocumentRecord]) -> ConversionJob:
        """The job for a file's bytes (a PDF's page count read from them at once)."""
        job = cls(path, digest, len(data), abs_path, previous)
        job.page_count = pdf_page_count(data) if job.is_pdf else 0
        return job


def _start_converter(updates: Any, parent: int) -> None:
    """Run once in each converter process: keep the page-count queue; follow ``parent``."""
    global _updates
    _updates = updates
    _follow_parent(parent)


def _convert(position: int, path: Path, ocr: OcrMode, layout: bool) -> LoadedDocument:
    """``load_file`` in a converter process, sending its page counts to the parent."""
    updates = _updates

    def report(pages: int, total: int) -> None:
        if updates is not None:
            updates.put((position, pages, total))

    return load_file(path, ocr, on_pages=report, layout=layout)


class ConversionPool:
    """Spawned processes converting PDFs, and the page counts they report."""

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.workers = workers
        self._updates = context.Queue()
        self._executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_converter,
            initargs=(self._updates, os.getpid()),
        )

    def submit(self, position: int, path: Path, ocr: OcrMode, layout: bool
               ) -> Future[LoadedDocument]:
        """Convert the file at ``path`` (the ``position``-th of the run) in a process."""
        return self._executor.submit(_convert, position, path, ocr, layout)

    def drain(self, on_pages: PagesCallback, timeout: float = 0.0) -> None:
        """Pass on every page count reported so far, waiting up to ``timeout`` for one."""
        while True:
            try:
                position, pages, total = (self._updates.get(timeout=timeout) if timeout
                                          else self._updates.get_nowait())
            except queue.Empty:
                return
            on_pages(position, pages, total)
            timeout = 0.0

    def wait(self, future: Future[LoadedDocument], on_pages: PagesCallback,
             poll: float = 0.1) -> LoadedDocument:
        """The converted file, passing on page counts while it (and others) convert."""
        while not future.done():
            self.drain(on_pages, poll)
        self.drain(on_pages)
        return future.result()

    def close(self) -> None:
        """Stop the processes (pending conversions are cancelled)."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._updates.close()
        self._updates.join_thread()


def converted_ahead(pool: ConversionPool | None, jobs: Sequence[object], ocr: OcrMode,
                    layout: bool) -> Iterator[Future[LoadedDocument] | None]:
    """Each job's conversion, in order: a future for a PDF sent to the pool, else None.

    PDFs are submitted a few files ahead of the one being written.
    """
    inflight: deque[Future[LoadedDocument] | None] = deque()
    ahead = max(2, 2 * pool.workers) if pool is not None else 1
    position = 0
    for _ in jobs:
        while position < len(jobs) and len(inflight) < ahead:
            job = jobs[position]
            if pool is not None and isinstance(job, ConversionJob) and job.is_pdf:
                inflight.append(pool.submit(position, job.path, ocr, layout))
            else:
                inflight.append(None)
            position += 1
        yield inflight.popleft()


@contextmanager
def conversion_pool(workers: int, pdfs: int) -> Iterator[ConversionPool | None]:
    """Processes converting PDFs, or None when one process is enough.

    ``workers`` 0 means one per CPU core, at most 4. A pool is worth its start-up (about a
    second per process, to import PyMuPDF) only for two PDFs or more. Processes are
    spawned, not forked: the parent may hold threads (torch, Qdrant) that a fork would
    copy in a locked state. Each process ends when the parent does, however it ends (a
    SIGTERM or SIGKILL runs no clean-up in the parent): see ``_follow_parent``.
    """
    count = min(workers or min(os.cpu_count() or 1, 4), pdfs)
    if count < 2:
        yield None
        return
    pool = ConversionPool(count)
    try:
        yield pool
    finally:
        pool.close()


_PR_SET_PDEATHSIG = 1


def _follow_parent(parent: int) -> None:
    """In a converter process: end this process when ``parent`` ends.

    On Linux the kernel sends SIGTERM when the parent dies (``prctl(PR_SET_PDEATHSIG)``);
    elsewhere a thread checks every second whether the process was handed to a new parent.
    Either way a converter never outlives an ingest that was killed.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            if os.getppid() != parent:  # the parent died before the prctl call
                os._exit(1)
            return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)
