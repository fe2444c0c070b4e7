"""Item 4a: a zip-bomb .docx fails that file with one line, in bounded memory."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.security.attack import KEYS, Server
from tests.security.bombs import MB, docx_bomb, docx_with_entries

from archivist.documents.loaders import MAX_DOCX_ENTRIES, load_file
from archivist.types import LoadError

MEASURE = """
import json, re, sys, time
from pathlib import Path
from archivist.documents.loaders import load_file
from archivist.types import LoadError
def peak_rss_kb():  # VmHWM: this process's own peak (ru_maxrss would include the parent's)
    status = open("/proc/self/status").read()
    return int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1))
started = time.perf_counter()
try:
    load_file(Path(sys.argv[1]))
    outcome = "loaded"
except LoadError as exc:
    outcome = str(exc)
print(json.dumps({"outcome": outcome, "seconds": time.perf_counter() - started,
                  "peak_rss_mb": peak_rss_kb() / 1024}))
"""


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 GB-inflating .docx of about 2 MB."""
    return docx_bomb(tmp_path_factory.mktemp("bombs") / "bomb.docx", 1024)


def _measure(path: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True,
                         text=True, timeout=300, check=True)
    return dict(json.loads(run.stdout))


def test_zip_bomb_fails_in_bounded_memory(bomb: Path, tmp_path: Path, figure) -> None:
    baseline = _measure(docx_with_entries(tmp_path / "small.docx", 0))
    assert baseline["outcome"] == "loaded"
    result = _measure(bomb)
    assert result["outcome"].startswith(f"{bomb}: refused, the .docx unpacks to ")
    assert "\n" not in result["outcome"]
    assert result["peak_rss_mb"] < baseline["peak_rss_mb"] + 50, (result, baseline)
    figure(f"zip-bomb .docx ({bomb.stat().st_size / MB:.1f} MB -> 1024 MB): "
           f"'{result['outcome'].split(': ', 1)[1]}', peak RSS {result['peak_rss_mb']:.0f} MB, "
           f"{result['seconds']:.2f} s (a one-paragraph .docx: {baseline['peak_rss_mb']:.0f} MB)")


def test_too_many_entries_fail_with_one_line(tmp_path: Path) -> None:
    path = docx_with_entries(tmp_path / "many.docx", MAX_DOCX_ENTRIES)
    with pytest.raises(LoadError) as error:
        load_file(path)
    assert str(error.value).startswith(f"{path}: refused, the .docx archive holds ")
    assert f"(the limit is {MAX_DOCX_ENTRIES})" in str(error.value)


def test_a_bomb_in_an_upload_fails_alone(keyed_server: Server, bomb: Path) -> None:
    files = [("files", ("bomb.docx", bomb.read_bytes(), "application/octet-stream")),
             ("files", ("fine.md", b"# Fine\n\nThe fine file says hello.", "text/markdown"))]
    response = httpx.post(f"{keyed_server.url}/v1/documents", files=files,
                          params={"wait": "true"}, timeout=300,
                          headers={"Authorization": f"Bearer {KEYS['alice']}"})
    assert response.status_code == 200, response.text
    outcomes = {r["file"]: r for r in response.json()["results"]}
    assert outcomes["fine.md"]["outcome"] == "added"
    assert outcomes["bomb.docx"]["outcome"] == "failed"
    assert outcomes["bomb.docx"]["reason"].startswith("refused, the .docx unpacks to")
    time.sleep(0)  # the server answers the next request at once
    assert httpx.get(f"{keyed_server.url}/health", timeout=10).status_code == 200
