"""Security tests: real ``archivist serve`` processes attacked over real sockets.

Each test records the figure the issue asks for (bytes on disk, peak RSS, status codes,
escapes); they are printed in a "security figures" section at the end of the run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.security.attack import KEYS, Server, archivist_serve, wait_healthy

FIGURES: list[str] = []


@pytest.fixture
def figure() -> object:
    """Record one figure line for the end-of-run summary."""
    return FIGURES.append


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the recorded figures."""
    if FIGURES:
        terminalreporter.section("security figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``archivist serve`` with admin, normal and read-only keys and a 2 MB upload limit."""
    root = tmp_path_factory.mktemp("keyed-server")
    with archivist_serve(
        root, admin_keys=KEYS["admin"], api_keys=f"{KEYS['alice']},{KEYS['bob']}",
        read_only_keys=KEYS["reader"], max_upload_mb="2",
        key_collections=f'{{"{KEYS["reader"]}": ["default"]}}',
    ) as server:
        wait_healthy(server.url)
        yield server


@pytest.fixture(scope="session")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``archivist serve`` with no keys (the default: open, on localhost)."""
    root = tmp_path_factory.mktemp("open-server")
    with archivist_serve(root, max_upload_mb="2") as server:
        wait_healthy(server.url)
        yield server
