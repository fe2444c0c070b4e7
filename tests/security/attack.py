"""Tools of the security tests: a real ``archivist serve`` process, a raw-socket uploader
that keeps sending until the server answers, and a sampler of the bytes a process holds on disk.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

BOUNDARY = "archivist-test-boundary"
KEYS = {"admin": "admin-key-0123456789", "alice": "alice-key-0123456789",
        "bob": "bob-key-0123456789", "reader": "reader-key-0123456789"}


@dataclass
class Server:
    """A running ``archivist serve``: its URL, process, data dir and spool (TMPDIR)."""

    url: str
    process: subprocess.Popen[str]
    data_dir: Path
    spool: Path
    output: list[str]

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.url.rsplit(":", 1)[1])


@contextmanager
def archivist_serve(root: Path, *flags: str, **settings: str) -> Iterator[Server]:
    """Run ``archivist serve --port 0 [flags]`` with ``ARCHIVIST_<NAME>`` settings."""
    process = launch(root, "serve", "--port", "0", *flags, **settings)
    with running(process, r"listening on (http://\S+)") as server:
        yield server


def launch(root: Path, *args: str, **settings: str) -> Server:
    """Start ``archivist <args>`` on the library in ``root`` (not yet up: see :func:`running`)."""
    data_dir, spool = root / "data", root / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update({f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()})
    env.update(ARCHIVIST_DATA_DIR=str(data_dir), ARCHIVIST_CONFIG="",
               TMPDIR=str(spool), HF_HUB_OFFLINE="1")
    env.setdefault("ARCHIVIST_LLM__MODEL", "scripted")
    process = subprocess.Popen(
        [sys.executable, "-m", "archivist", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    return Server("", process, data_dir, spool, [])


@contextmanager
def running(server: Server, ready: str) -> Iterator[Server]:
    """``server`` once a line of its output matches ``ready`` (its group 1, if any, is the
    URL); stopped (SIGTERM, then SIGKILL) on the way out."""
    process, lines = server.process, server.output
    assert process.stdout is not None
    match = None
    deadline = time.monotonic() + 120
    try:
        while match is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            match = re.search(ready, line)
        if match is None:
            raise AssertionError(f"archivist {process.args[3:]} did not start:\n"
                                 + "".join(lines))
        threading.Thread(target=_drain, args=(process, lines), daemon=True).start()
        server.url = match.group(1) if match.groups() else ""
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def _drain(process: subprocess.Popen[str], lines: list[str]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)


def wait_healthy(url: str) -> None:
    """Block until ``/health`` answers."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("server not healthy")


class DiskSampler:
    """Samples, in a thread, the bytes of files a process holds open under some folders
    (including unlinked temp files) plus the files lying in them; keeps the peak."""

    def __init__(self, pid: int, folders: list[Path]) -> None:
        self.pid = pid
        self.folders = [str(f.resolve()) for f in folders]
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> DiskSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.now())

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            time.sleep(0.005)

    def now(self) -> int:
        """Bytes held right now: open files (linked or not) and files lying in the folders."""
        total, seen = 0, set()
        fd_dir = Path(f"/proc/{self.pid}/fd")
        try:
            fds = list(fd_dir.iterdir())
        except OSError:
            fds = []
        for fd in fds:
            try:
                target = os.readlink(fd)
                if target.startswith(tuple(self.folders)):
                    info = os.stat(fd)
                    seen.add((info.st_dev, info.st_ino))
                    total += info.st_size
            except OSError:
                continue
        for folder in self.folders:
            for path in Path(folder).rglob("*"):
                try:
                    info = path.stat()
                except OSError:
                    continue
                if path.is_file() and (info.st_dev, info.st_ino) not in seen:
                    total += info.st_size
        return total


@dataclass
class Answer:
    """What a raw upload got back."""

    status: int
    body: bytes
    sent: int


def raw_upload(
    server: Server,
    total: int,
    *,
    key: str | None = None,
    chunked: bool = True,
    declared: int | None = None,
    path: str = "/v1/documents",
    host: str | None = None,
    origin: str | None = None,
    filename: str = "big.txt",
) -> Answer:
    """POST a multipart upload of ``total`` bytes, stopping as soon as the server answers.

    ``chunked`` sends no Content-Length (``Transfer-Encoding: chunked``); otherwise the
    header says ``declared`` (default: the real size).
    """
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; "
            f"filename=\"{filename}\"\r\nContent-Type: text/plain\r\n\r\n").encode()
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    size = len(head) + total + len(tail)
    lines = _head_lines(server, path, f"multipart/form-data; boundary={BOUNDARY}", key, host)
    if origin:
        lines.append(f"Origin: {origin}")
    lines.append("Transfer-Encoding: chunked" if chunked
                 else f"Content-Length: {declared if declared is not None else size}")
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    sent = 0
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        piece = b"x" * (256 * 1024)

        def send(data: bytes) -> bool:
            nonlocal sent
            if select.select([sock], [], [], 0)[0]:
                return False  # the server answered (or closed): stop like a client would
            frame = f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                return False
            sent += len(data)
            return True

        going = send(head)
        left = total
        while going and left > 0:
            going = send(piece[: min(left, len(piece))])
            left -= min(left, len(piece))
        if going:
            going = send(tail)
        if going and chunked:
            sock.sendall(b"0\r\n\r\n")
        return _read_answer(sock, sent)
    finally:
        sock.close()


def _head_lines(server: Server, path: str, content_type: str, key: str | None,
                host: str | None = None) -> list[str]:
    """A POST's request line and common headers: host, content type and the key, if any."""
    lines = [f"POST {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{server.port}'}",
             f"Content-Type: {content_type}"]
    if key:
        lines.append(f"Authorization: Bearer {key}")
    return lines


def head_only(server: Server, declared: int, *, key: str | None = None, path: str,
              content_type: str = "application/json") -> Answer:
    """Send a request's head declaring ``declared`` body bytes, and read the answer first.

    The client of ``Expect: 100-continue`` (curl's way with a large body): it sends the body
    only when asked for it. A server that refuses by the declared size answers from the
    head alone, and nothing unread is left in its socket: its hang-up is a close, not a
    reset that can lose the answer's body on the way (as it did to ``raw_upload``'s, which
    sends until answered, on a loaded machine).
    """
    lines = [*_head_lines(server, path, content_type, key),
             f"Content-Length: {declared}", "Expect: 100-continue"]
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return _read_answer(sock, 0)
    finally:
        sock.close()


def _read_answer(sock: socket.socket, sent: int) -> Answer:
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        while length and len(body) < int(length.group(1)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    status = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    if status is None:
        raise AssertionError(f"no HTTP answer after {sent} bytes: {data[:200]!r}")
    return Answer(int(status.group(1)), body, sent)


@dataclass
class Stubborn:
    """What a client that ignores the answer managed to push: status seen, bytes sent."""

    status: int | None
    sent: int
    ended: str  # "closed" (the server hung up), "stalled" (it stopped reading) or "cap"


def stubborn_upload(server: Server, cap: int, key: str, stall_s: float = 5.0) -> Stubborn:
    """Stream a chunked upload with ``key`` and keep streaming whatever the server answers,
    until the server closes the connection, stops reading for ``stall_s``, or ``cap`` bytes
    are sent. The bytes sent bound from above what the server read (plus socket buffers)."""
    lines = ["POST /v1/documents HTTP/1.1", f"Host: 127.0.0.1:{server.port}",
             f"Content-Type: multipart/form-data; boundary={BOUNDARY}",
             f"Authorization: Bearer {key}", "Transfer-Encoding: chunked"]
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=stall_s)
    piece = b"x" * (256 * 1024)
    frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    sent, answer, ended = 0, b"", "cap"
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while sent < cap:
            if select.select([sock], [], [], 0)[0]:
                try:
                    data = sock.recv(65536)
                except ConnectionResetError:  # the server hung up with data unread: a reset
                    data = b""
                if not data:
                    ended = "closed"
                    break
                answer += data
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                ended = "closed"
                break
            except TimeoutError:
                ended = "stalled"
                break
            sent += len(piece)
        if not answer:  # the answer may still wait in the socket (unless the reset dropped it)
            with contextlib.suppress(OSError):
                answer = sock.recv(65536)
    finally:
        sock.close()
    status = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    return Stubborn(int(status.group(1)) if status else None, sent, ended)
