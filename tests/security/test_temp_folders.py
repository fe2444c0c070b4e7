"""A server leaves nothing in the temp dir: no empty exports folder after start and SIGTERM."""

from __future__ import annotations

from pathlib import Path

from tests.security.attack import archivist_serve, wait_healthy


def test_a_server_start_and_stop_leaves_no_exports_folder(tmp_path: Path) -> None:
    with archivist_serve(tmp_path) as server:
        wait_healthy(server.url)
        spool = server.spool
    assert server.process.returncode is not None  # stopped by SIGTERM
    assert list(spool.glob("archivist-exports-*")) == []
