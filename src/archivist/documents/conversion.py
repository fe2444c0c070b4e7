"""Convert files in a pool of processes, ahead of the thread that embeds and writes them."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from archivist.types import DocumentRecord

__all__ = ["ConversionJob", "conversion_pool"]


@dataclass
class ConversionJob:
    """A file to convert and write: what was learnt from its bytes before converting."""

    path: Path
    digest: str
    size: int
    abs_path: str
    previous: list[DocumentRecord]

    @property
    def is_pdf(self) -> bool:
        """PDFs go to the pool; other formats convert in a moment where they are."""
        return self.path.suffix.lower() == ".pdf"


@contextmanager
def conversion_pool(workers: int, pdfs: int) -> Iterator[ProcessPoolExecutor | None]:
    """Processes converting PDFs, or None when one process is enough.

    ``workers`` 0 means one per CPU core, at most 4. A pool is worth its start-up (about a
    second per process, to import PyMuPDF) only for two PDFs or more. Processes are
    spawned, not forked: the parent may hold threads (torch, Qdrant) that a fork would
    copy in a locked state.
    """
    count = min(workers or min(os.cpu_count() or 1, 4), pdfs)
    if count < 2:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn"))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
