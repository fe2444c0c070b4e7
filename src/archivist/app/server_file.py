"""The address a running ``archivist serve`` leaves in its data directory.

``serve`` holds the library (the embedded engine allows one process), so it writes
``server.json`` beside it: its URL, its pid and a random token readable only by the
library's owner (mode 0600). A CLI command on the same data directory finds the file,
proves it can read the library's folder by sending the token as its bearer key, and goes
through the server's HTTP API instead of failing. The file goes when the server stops;
one left by a killed server is ignored (nothing answers at its address with its token).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import httpx

SERVER_FILE = "server.json"
LOCAL_OWNER = "local"


@dataclass(frozen=True)
class ServerAddress:
    """Where a library's server listens, and the token that says "I can read its folder"."""

    url: str
    token: str
    pid: int


def auth_header(address: ServerAddress) -> dict[str, str]:
    """The header that proves the caller read the token from the data dir."""
    return {"Authorization": f"Bearer {address.token}"}


def new_token() -> str:
    """A fresh random token for one server run."""
    return secrets.token_urlsafe(32)


def write_server_file(data_dir: Path, address: ServerAddress) -> Path:
    """Publish the server's address in its data directory (owner-only)."""
    path = data_dir / SERVER_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"url": address.url, "token": address.token, "pid": address.pid}, out)
    tmp.replace(path)
    return path


def remove_server_file(data_dir: Path, address: ServerAddress) -> None:
    """Withdraw the address, unless another server has written its own since."""
    path = data_dir / SERVER_FILE
    if read_server_file(data_dir) == address:
        path.unlink(missing_ok=True)


def read_server_file(data_dir: Path) -> ServerAddress | None:
    """The address in the data directory, if there is a readable one."""
    try:
        raw = json.loads((data_dir / SERVER_FILE).read_text(encoding="utf-8"))
        return ServerAddress(str(raw["url"]), str(raw["token"]), int(raw["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running_server(data_dir: Path, timeout_s: float = 3.0) -> ServerAddress | None:
    """The server that holds ``data_dir`` right now, checked by asking it; else ``None``."""
    address = read_server_file(data_dir)
    if address is None:
        return None
    try:
        response = httpx.get(
            f"{address.url}/v1/local/library",
            headers=auth_header(address),
            timeout=timeout_s,
        )
        if response.status_code != 200:
            return None
        served = Path(response.json()["data_dir"])
    except (httpx.HTTPError, ValueError, KeyError):
        return None
    return address if served == data_dir.resolve() else None
