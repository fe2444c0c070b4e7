"""``archivist serve --workers N``: more than one process needs shared storage, said in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _serve(tmp_path: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update({f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()},
               ARCHIVIST_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1",
               ARCHIVIST_CONFIG="")
    return subprocess.run([sys.executable, "-m", "archivist", "serve", "--port", "0", *args],
                          env=env, capture_output=True, text=True, timeout=120)


def test_several_workers_on_embedded_storage_are_refused_naming_the_setting(
    tmp_path: Path,
) -> None:
    done = _serve(tmp_path, "--workers", "3")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "storage.database_url" in lines[0]
    assert "ARCHIVIST_STORAGE__DATABASE_URL" in lines[0]
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "data").exists()  # refused before anything was opened


def test_several_workers_need_a_shared_vector_engine_too(tmp_path: Path, postgres_url: str) -> None:
    done = _serve(tmp_path, "--workers", "2", storage__database_url=postgres_url,
                  storage__vector_engine="qdrant")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "qdrant_url" in line and "embedded vector engine" in line


def test_api_only_servers_and_ingest_workers_need_shared_storage(tmp_path: Path) -> None:
    """On embedded storage the one server ingests its own uploads: both refuse in one line."""
    api_only = _serve(tmp_path, "--no-ingest")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    worker = subprocess.run([sys.executable, "-m", "archivist", "worker"], text=True,
                            capture_output=True, timeout=120, env={
                                **env, "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
                                "ARCHIVIST_CONFIG": "", "HF_HUB_OFFLINE": "1"})
    for done, what in ((api_only, "--no-ingest"), (worker, "archivist worker")):
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith(f"error: {what}: embedded storage") and "database_url" in line
    assert not (tmp_path / "data").exists()
