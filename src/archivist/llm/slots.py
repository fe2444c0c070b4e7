"""Request slots: at most N calls in flight to one model server; the rest wait their turn.

A local server (Ollama, llama.cpp) serves one or a few requests at a time and queues the
rest, while the client's timeout keeps ticking: three sub-agents fanned out against a
one-slot server time out in the queue. :func:`slot` makes a call wait for a free slot
*before* its request (and its timeout) starts. Slots are shared per server key by every
model object in the process (copies, bindings, the answer and fast roles alike).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

_SLOTS: dict[str, threading.BoundedSemaphore] = {}
_LOCK = threading.Lock()


def semaphore(key: str, size: int) -> threading.BoundedSemaphore:
    """The process's semaphore for ``key`` (its size fixed by the first caller)."""
    with _LOCK:
        if key not in _SLOTS:
            _SLOTS[key] = threading.BoundedSemaphore(max(1, size))
        return _SLOTS[key]


@contextmanager
def slot(key: str | None, size: int | None) -> Iterator[None]:
    """Hold one of ``size`` slots of ``key`` for the block (no limit when either is None)."""
    if not key or not size:
        yield
        return
    gate = semaphore(key, size)
    gate.acquire()
    try:
        yield
    finally:
        gate.release()


@asynccontextmanager
async def aslot(key: str | None, size: int | None) -> AsyncIterator[None]:
    """:func:`slot` for async callers: the wait happens off the event loop."""
    if not key or not size:
        yield
        return
    gate = semaphore(key, size)
    await asyncio.to_thread(gate.acquire)
    try:
        yield
    finally:
        gate.release()
