"""``archivist --help`` and ``--version`` start without importing any heavy library."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "sentence_transformers", "qdrant_client", "qdrant_edge", "langgraph",
         "gradio", "transformers", "fastapi", "pymupdf")

# Runs the console script's entry point, then reports which heavy packages got imported.
PROBE = """
import atexit, json, sys
heavy = {heavy!r}
atexit.register(lambda: sys.stderr.write(
    "\\nIMPORTED " + json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set(heavy)))
))
sys.argv = ["archivist", *{args!r}]
from archivist.app.cli import main
main()
"""


def imported_heavy(*args: str) -> tuple[list[str], str]:
    """The heavy top-level packages a CLI run imported, and its stdout."""
    code = PROBE.format(heavy=HEAVY, args=list(args))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    line = done.stderr.rsplit("IMPORTED ", 1)[1]
    return json.loads(line), done.stdout


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["search", "--help"]])
def test_help_and_version_import_no_heavy_package(args: list[str]) -> None:
    heavy, out = imported_heavy(*args)
    assert heavy == []
    assert ("archivist 0" in out) if args == ["--version"] else ("Usage" in out)


def test_the_probe_sees_an_import() -> None:
    code = PROBE.format(heavy=("json",), args=["--version"])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert json.loads(done.stderr.rsplit("IMPORTED ", 1)[1]) == ["json"]
