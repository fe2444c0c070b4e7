"""A real HTTP server on a free localhost port, for tests of clients (LLM, web search)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import HTTPServer


@contextmanager
def serving(server: HTTPServer) -> Iterator[str]:
    """Serve ``server`` in a background thread; yield ``http://127.0.0.1:PORT``."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A localhost port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
