"""llama.cpp in this process, through xllamacpp's server API: one loaded model per file.

:func:`local_server` loads a GGUF once per process (keyed by file and runtime options) and
returns a :class:`LocalServer`, whose :meth:`LocalServer.chat` sends one OpenAI-style chat
completion request to the in-process server and returns the reply, or streams its chunks.
The server serves ``parallel`` requests at once (slots, with continuous batching); further
requests wait in its queue, with no timeout ticking. Errors come back as
:class:`LocalModelError` carrying an HTTP-like ``status_code`` (so that 5xx counts as
transient, like any provider's).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archivist.types import ArchivistError

log = logging.getLogger(__name__)

#: The optional extra that brings the runtime.
RUNTIME_HINT = "the 'local' provider needs xllamacpp: pip install 'archivist[local]'"


class LocalModelError(ArchivistError):
    """The in-process server answered with an error (``status_code`` as HTTP would)."""

    def __init__(self, message: str, status_code: int = 500) -> None:
        super().__init__(message)
        self.status_code = status_code


@dataclass(frozen=True)
class RuntimeOptions:
    """How to run a model: context per slot, parallel slots, CPU threads."""

    context_per_slot: int = 8192
    parallel: int = 2
    threads: int | None = None

    def cpu_threads(self) -> int:
        """The threads to use (all cores unless set)."""
        return self.threads or max(1, os.cpu_count() or 1)


def _error_of(payload: Any) -> LocalModelError | None:
    """A :class:`LocalModelError` when a response or chunk is an error object."""
    if not isinstance(payload, dict):
        return LocalModelError(f"local model: unexpected reply {type(payload).__name__}")
    error = payload.get("error")
    if error is None and "code" in payload and "message" in payload and "choices" not in payload:
        error = payload  # xllamacpp's own wrapper errors are flat
    if error is None:
        return None
    if isinstance(error, dict):
        code = error.get("code", 500)
        return LocalModelError(
            f"local model error: {error.get('message', error)}",
            code if isinstance(code, int) else 500,
        )
    return LocalModelError(f"local model error: {error}")


class LocalServer:
    """One model loaded by xllamacpp, with its load time and options."""

    def __init__(self, path: Path, options: RuntimeOptions) -> None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise ArchivistError(RUNTIME_HINT) from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_parallel = max(1, options.parallel)
        params.n_ctx = options.context_per_slot * params.n_parallel
        params.kv_unified = True  # slots share one KV pool: a long prompt may use more
        params.cpuparams.n_threads = options.cpu_threads()
        params.cpuparams_batch.n_threads = options.cpu_threads()
        params.cache_prompt = True  # reuse a slot's prompt prefix across calls
        params.port = 0  # its HTTP listener (unused by Archivist) takes a free port
        params.hostnames = ["127.0.0.1"]
        params.verbosity = -1
        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # xllamacpp raises RuntimeError / ValueError from C++
            raise ArchivistError(f"{path}: llama.cpp could not load this model: {exc}") from exc
        self.path = path
        self.options = options
        self.load_seconds = time.perf_counter() - started
        log.info("loaded %s in %.1fs (%d slots)", path.name, self.load_seconds, options.parallel)

    def chat(self, request: dict[str, Any]) -> dict[str, Any]:
        """One chat completion (``stream`` must be false): the response object."""
        response = self._server.handle_chat_completions({**request, "stream": False})
        error = _error_of(response)
        if error is not None:
            raise error
        return dict(response)

    def stream(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Stream a chat completion's chunks; closing the iterator stops the generation.

        The request runs in a worker thread (xllamacpp calls back from the calling
        thread); chunks reach the caller through a queue. An error chunk, or the worker
        failing, raises :class:`LocalModelError` here.
        """
        chunks: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.put(("chunk", chunk))
            return stop.is_set()  # True tells the server to stop streaming

        def run() -> None:
            try:
                self._server.handle_chat_completions(
                    {**request, "stream": True, "stream_options": {"include_usage": True}},
                    on_chunk,
                )
            except Exception as exc:  # surfaced to the consumer below
                chunks.put(("failed", exc))
            finally:
                chunks.put(("done", None))

        worker = threading.Thread(target=run, name="archivist-local-stream", daemon=True)
        worker.start()
        try:
            while True:
                kind, item = chunks.get()
                if kind == "done":
                    return
                if kind == "failed":
                    raise LocalModelError(f"local model stream failed: {item}") from item
                error = _error_of(item)
                if error is not None:
                    raise error
                yield item
        finally:
            stop.set()


_SERVERS: dict[tuple[str, RuntimeOptions], LocalServer] = {}
_LOCK = threading.Lock()


def local_server(path: Path, options: RuntimeOptions) -> LocalServer:
    """The process's server for ``path`` with ``options``, loaded on first use."""
    key = (str(path.resolve()), options)
    with _LOCK:
        server = _SERVERS.get(key)
        if server is None:
            server = _SERVERS[key] = LocalServer(path, options)
        return server


def loaded_servers() -> list[LocalServer]:
    """Every model loaded in this process (for figures and tests)."""
    with _LOCK:
        return list(_SERVERS.values())
