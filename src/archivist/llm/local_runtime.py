"""llama.cpp in this process, through xllamacpp's server API: one loaded model per file.

:func:`local_server` loads a GGUF once per process (keyed by file and runtime options) and
returns a :class:`LocalServer`, whose :meth:`LocalServer.chat` sends one OpenAI-style chat
completion request to the in-process server and returns the reply, or streams its chunks.
The server serves ``parallel`` requests at once (slots, with continuous batching); further
requests wait in its queue. Errors come back as :class:`LocalModelError` carrying an
HTTP-like ``status_code`` (so that 5xx counts as transient, like any provider's).

Every request has a deadline: ``timeout`` seconds when given (``local_timeout_s``), else
sized from the speed this model has shown in this process (:meth:`LocalServer.timeout_for`).
A call past it raises :class:`LocalTimeout` (a ``TimeoutError``: an LLM failure like a
remote provider's read timeout) and its generation is stopped at its next token.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
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


class LocalTimeout(LocalModelError, TimeoutError):
    """A call to the local model did not finish before its deadline."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"local model did not answer within {seconds:.0f}s (local_timeout_s; the "
            "machine may be overloaded)", status_code=504,
        )


#: Speeds assumed before the model has answered once (tokens/s; a 1.5B model on two busy
#: cores measured about 6 prompt and 2.6 generated tokens/s).
SLOW_PROMPT_TPS = 5.0
SLOW_GENERATION_TPS = 2.0
#: A sized deadline is this many times the expected time, and never under the floor.
TIMEOUT_SLACK = 4.0
TIMEOUT_FLOOR_S = 60.0
#: Reply tokens assumed when a request sets no cap.
DEFAULT_REPLY_TOKENS = 512


@dataclass
class Speed:
    """Prompt and generation tokens per second, the slowest of the recent replies."""

    prompt_tps: float = SLOW_PROMPT_TPS
    generation_tps: float = SLOW_GENERATION_TPS
    measured: bool = False
    recent: list[tuple[float, float]] = field(default_factory=list)

    def record(self, timings: Any) -> None:
        """Fold in one reply's ``timings`` (llama.cpp's ``prompt_per_second`` etc.)."""
        if not isinstance(timings, dict):
            return
        prompt = float(timings.get("prompt_per_second") or 0)
        generation = float(timings.get("predicted_per_second") or 0)
        if prompt <= 0 and generation <= 0:
            return
        self.recent = [*self.recent, (prompt, generation)][-8:]
        prompts = [p for p, _ in self.recent if p > 0]
        generations = [g for _, g in self.recent if g > 0]
        if prompts:
            self.prompt_tps = min(prompts)
        if generations:
            self.generation_tps = min(generations)
        self.measured = True


def expected_seconds(speed: Speed, prompt_tokens: int, reply_tokens: int) -> float:
    """How long one call should take at ``speed``."""
    return prompt_tokens / max(speed.prompt_tps, 0.1) + reply_tokens / max(
        speed.generation_tps, 0.1
    )


def sized_timeout(speed: Speed, prompt_tokens: int, reply_tokens: int, parallel: int) -> float:
    """A deadline for one call, at least :data:`TIMEOUT_FLOOR_S`.

    It is the slack times the call's expected time, times the slots it may share the model
    with (or wait behind).
    """
    expected = expected_seconds(speed, prompt_tokens, reply_tokens)
    return max(TIMEOUT_FLOOR_S, TIMEOUT_SLACK * expected * max(1, parallel))


def prompt_tokens_of(request: dict[str, Any]) -> int:
    """A rough prompt size in tokens (about 3.5 characters each) of a chat request."""
    chars = sum(len(str(m.get("content") or "")) for m in request.get("messages") or [])
    chars += len(str(request.get("tools") or "")) + len(str(request.get("response_format") or ""))
    return int(chars / 3.5) + 16


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
        self.speed = Speed()
        log.info("loaded %s in %.1fs (%d slots)", path.name, self.load_seconds, options.parallel)

    def timeout_for(self, request: dict[str, Any]) -> float:
        """The deadline of ``request`` sized from this model's measured speed."""
        reply = int(request.get("max_tokens") or DEFAULT_REPLY_TOKENS)
        return sized_timeout(self.speed, prompt_tokens_of(request), reply, self.options.parallel)

    def chat(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """One chat completion (``stream`` must be false): the response object.

        Past ``timeout`` seconds (default: :meth:`timeout_for`) raises :class:`LocalTimeout`;
        the abandoned request then ends in the background (its reply is capped).
        """
        seconds = timeout if timeout is not None else self.timeout_for(request)
        done: queue.Queue[tuple[str, Any]] = queue.Queue()

        def run() -> None:
            try:
                done.put(("ok", self._server.handle_chat_completions({**request, "stream": False})))
            except Exception as exc:  # surfaced to the caller below
                done.put(("failed", exc))

        _start_worker(run, "archivist-local-chat", None)
        try:
            kind, response = done.get(timeout=seconds)
        except queue.Empty:
            raise LocalTimeout(seconds) from None
        if kind == "failed":
            raise LocalModelError(f"local model call failed: {response}") from response
        error = _error_of(response)
        if error is not None:
            raise error
        if isinstance(response.get("timings"), dict):
            self.speed.record(response["timings"])
        return dict(response)

    def stream(
        self, request: dict[str, Any], timeout: float | None = None
    ) -> Iterator[dict[str, Any]]:
        """Stream a chat completion's chunks; closing the iterator stops the generation.

        The request runs in a worker thread (xllamacpp calls back from the calling
        thread); chunks reach the caller through a queue. An error chunk, or the worker
        failing, raises :class:`LocalModelError` here; no chunk by the deadline (``timeout``
        seconds from the start, default :meth:`timeout_for`) raises :class:`LocalTimeout`.
        """
        seconds = timeout if timeout is not None else self.timeout_for(request)
        deadline = time.monotonic() + seconds
        chunks: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            if isinstance(chunk, dict) and isinstance(chunk.get("timings"), dict):
                self.speed.record(chunk["timings"])
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

        _start_worker(run, "archivist-local-stream", stop)
        try:
            while True:
                try:
                    kind, item = chunks.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise LocalTimeout(seconds) from None
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
#: Requests running in worker threads, with the flag that stops a streamed one.
_WORKERS: dict[threading.Thread, threading.Event | None] = {}
#: How long the process waits at exit for requests still inside llama.cpp.
EXIT_WAIT_S = 120.0


def _start_worker(run: Any, name: str, stop: threading.Event | None) -> None:
    def tracked() -> None:
        try:
            run()
        finally:
            with _LOCK:
                _WORKERS.pop(threading.current_thread(), None)

    worker = threading.Thread(target=tracked, name=name, daemon=True)
    with _LOCK:
        _WORKERS[worker] = stop
    worker.start()


def _finish_requests() -> None:
    """At exit: stop streamed requests, wait for the rest.

    A call abandoned at its timeout runs on to its reply cap; a thread still inside
    llama.cpp when the interpreter shuts down crashes the process.
    """
    with _LOCK:
        workers = dict(_WORKERS)
    for stop in workers.values():
        if stop is not None:
            stop.set()
    deadline = time.monotonic() + EXIT_WAIT_S
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))


atexit.register(_finish_requests)


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
