"""The first ingest in a fresh cache: one line about the embedding model, nothing else.

Runs ``archivist`` as a user does (a new process), with the ONNX cache in a temp dir, and
reads everything it writes to stderr.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

#: What a third party's chatter looks like: a warning, a tqdm bar, a traceback.
NOISE = re.compile(r"\w+Warning\b|warnings\.warn|\d+%\|| it/s\]|Traceback|Loading weights")


def archivist(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``archivist ARGS`` in a new process."""
    return subprocess.run([sys.executable, "-m", "archivist", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_first_ingest_prepares_the_model_behind_one_line(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\n## Install\n\nRun `make install`.\n")
    env = {**os.environ, "ARCHIVIST_CACHE": str(tmp_path / "cache"),
           "ARCHIVIST_DATA_DIR": str(tmp_path / "lib"), "NO_COLOR": "1"}
    env.pop("PYTHONWARNINGS", None)

    first = archivist("ingest", str(docs), env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "added 1" in first.stdout
    lines = [line for line in first.stderr.splitlines() if line.strip()]
    preparing = [line for line in lines if line.startswith("preparing the embedding model")]
    assert preparing == ["preparing the embedding model (once, ~10 s)"], lines
    assert not NOISE.search(first.stderr), first.stderr
    assert list((tmp_path / "cache" / "onnx").glob("*/model.onnx"))

    (docs / "usage.md").write_text("# Usage\n\nAsk a question.\n")
    second = archivist("ingest", str(docs), env=env, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "preparing" not in second.stderr and not NOISE.search(second.stderr)


def test_model_prepare_does_it_ahead_and_then_has_nothing_to_do(tmp_path: Path) -> None:
    env = {**os.environ, "ARCHIVIST_CACHE": str(tmp_path / "cache"), "NO_COLOR": "1"}
    first = archivist("model", "prepare", env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.strip() == "preparing the embedding model (once, ~10 s)"
    assert first.stdout.startswith("embedding model ready (")
    again = archivist("model", "prepare", env=env, cwd=tmp_path)
    assert again.returncode == 0 and again.stderr == ""
    assert re.match(r"embedding model ready \(0\.\d s\)", again.stdout), again.stdout
