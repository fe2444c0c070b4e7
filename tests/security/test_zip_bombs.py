"""Hostile Word files fail that file with one line, in bounded memory and time: a zip
bomb, a bomb whose main part is not called ``document.xml``, and element-dense XML."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.security.attack import KEYS, Server
from tests.security.bombs import (
    MB,
    docx_bomb,
    docx_dense,
    docx_renamed_bomb,
    docx_with_entries,
)

from archivist.documents.loaders import load_file
from archivist.documents.word import MAX_DOCX_ENTRIES, MAX_DOCX_XML_ELEMENTS
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


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 340 KB: a main part ``word/document.dat`` of 200 MB of empty paragraphs."""
    return docx_renamed_bomb(tmp_path_factory.mktemp("bombs") / "renamed.docx", 200)


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 100 KB, within every byte limit: 40 MB of ``<w:p/>`` (7 million elements)."""
    return docx_dense(tmp_path_factory.mktemp("bombs") / "dense.docx", 40)


def test_renamed_and_dense_word_files_fail_in_bounded_memory(
        renamed: Path, dense: Path, tmp_path: Path, figure) -> None:
    baseline = _measure(docx_with_entries(tmp_path / "small.docx", 0))
    expected = {renamed: "refused, the .docx holds 201 MB of XML (the limit is 48 MB)",
                dense: f"refused, the .docx holds more than {MAX_DOCX_XML_ELEMENTS:,} XML "
                       "elements (the limit; passed in word/document.xml)"}
    for path, reason in expected.items():
        result = _measure(path)
        assert result["outcome"] == f"{path}: {reason}"
        assert result["peak_rss_mb"] < baseline["peak_rss_mb"] + 50, (result, baseline)
        figure(f"{path.name} ({path.stat().st_size // 1024} KB): '{reason}', peak RSS "
               f"{result['peak_rss_mb']:.0f} MB, {result['seconds']:.2f} s "
               f"(a one-paragraph .docx: {baseline['peak_rss_mb']:.0f} MB)")


def test_too_many_entries_fail_with_one_line(tmp_path: Path) -> None:
    path = docx_with_entries(tmp_path / "many.docx", MAX_DOCX_ENTRIES)
    with pytest.raises(LoadError) as error:
        load_file(path)
    assert str(error.value).startswith(f"{path}: refused, the .docx archive holds ")
    assert f"(the limit is {MAX_DOCX_ENTRIES})" in str(error.value)


def _peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def _upload(server: Server, files: list[tuple[str, Path]]) -> dict[str, dict]:
    parts = [("files", (name, path.read_bytes(), "application/octet-stream"))
             for name, path in files]
    parts.append(("files", ("fine.md", b"# Fine\n\nThe fine file says hello.", "text/markdown")))
    response = httpx.post(f"{server.url}/v1/documents", files=parts,
                          params={"wait": "true"}, timeout=300,
                          headers={"Authorization": f"Bearer {KEYS['alice']}"})
    assert response.status_code == 200, response.text
    outcomes = {r["file"]: r for r in response.json()["results"]}
    assert outcomes["fine.md"]["outcome"] in ("added", "unchanged")
    return outcomes


def test_a_bomb_in_an_upload_fails_alone(keyed_server: Server, bomb: Path, renamed: Path,
                                         dense: Path) -> None:
    _upload(keyed_server, [])  # the embedding model is loaded by the first upload
    peak_before = _peak_rss_mb(keyed_server.process.pid)
    outcomes = _upload(keyed_server, [("bomb.docx", bomb)])
    outcomes |= _upload(keyed_server, [("renamed.docx", renamed), ("dense.docx", dense)])
    assert {outcomes[n]["outcome"] for n in ("bomb.docx", "renamed.docx", "dense.docx")} == {
        "failed"}
    assert outcomes["bomb.docx"]["reason"].startswith("refused, the .docx unpacks to")
    assert outcomes["renamed.docx"]["reason"].startswith("refused, the .docx holds 201 MB of XML")
    assert outcomes["dense.docx"]["reason"].startswith("refused, the .docx holds more than")
    assert _peak_rss_mb(keyed_server.process.pid) < peak_before + 100  # was + 4,500 MB
    time.sleep(0)  # the server answers the next request at once
    assert httpx.get(f"{keyed_server.url}/health", timeout=10).status_code == 200
