"""Ingest with PDFs converted in a pool of processes: same documents as converting in-line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pymupdf
import pytest

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.ingest import IngestProgress
from archivist.settings import Settings


def _pdf(path: Path, topic: str, pages: int) -> Path:
    pdf = pymupdf.open()
    for number in range(1, pages + 1):
        page = pdf.new_page()
        page.insert_text((72, 72), f"{topic} chapter {number}", fontsize=18)
        for line in range(12):
            page.insert_text(
                (72, 110 + 16 * line),
                f"Page {number} of the {topic} notes explains step {line} in plain words.",
            )
    pdf.save(path)
    return path


def _ingest(tmp_path: Path, name: str, workers: int, embedder, files: list[Path]):
    settings = Settings(data_dir=tmp_path / name, index={"ingest_workers": workers})
    seen: list[tuple[int, str]] = []

    def on_file(event: IngestProgress) -> None:
        if event.result is not None:  # a finished file (not a stage within one)
            seen.append((event.files_done, Path(event.path).name))

    with Application(settings, embedder=embedder) as library:
        report = library.ingest.files(files, progress=on_file)
        docs = {d.name: d for d in library.store.documents()}
        children = {
            name: [
                (c.text, c.page_start, c.page_end) for c in library.store.children_of(d.document_id)
            ]
            for name, d in docs.items()
        }
    return report, seen, children


@pytest.mark.slow
def test_pool_conversion_gives_the_same_documents_in_file_order(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, pages in (("a-gardening", 3), ("b-cooking", 2), ("c-sailing", 4)):
        _pdf(docs / f"{name}.pdf", name.split("-")[1], pages)
    (docs / "d-notes.md").write_text("# Notes\n\nA Markdown file converts in-line.\n")
    pooled, seen, pooled_children = _ingest(tmp_path, "pooled", 2, embedder, [docs])
    inline, _, inline_children = _ingest(tmp_path, "inline", 1, embedder, [docs])
    assert pooled.counts["added"] == 4, pooled.results
    assert seen == [
        (1, "a-gardening.pdf"),
        (2, "b-cooking.pdf"),
        (3, "c-sailing.pdf"),
        (4, "d-notes.md"),
    ]
    assert [r.pages for r in pooled.results] == [3, 2, 4, 0]
    assert pooled_children == inline_children
    assert pooled.timings["conversion"] > 0


def _descendants(root: int) -> set[int]:
    """Every live process below ``root`` (read from /proc; zombies count as gone)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def _is_converter(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if state[state.rindex(")") + 2] != "Z":
            alive.add(pid)
    return alive


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_terminated_ingest_leaves_no_converter_processes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("gardening", "cooking", "sailing", "walking"):
        _pdf(docs / f"{name}.pdf", name, 30)
    env = os.environ | {"ARCHIVIST_DATA_DIR": str(tmp_path / "lib")}
    env["ARCHIVIST_INDEX__INGEST_WORKERS"] = "2"
    ingest = subprocess.Popen(
        [sys.executable, "-m", "archivist", "ingest", str(docs)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    below: set[int] = set()
    try:
        deadline = time.monotonic() + 600
        converters: set[int] = set()
        while len(converters) < 2 and time.monotonic() < deadline and ingest.poll() is None:
            time.sleep(0.5)
            converters = {pid for pid in _descendants(ingest.pid) if _is_converter(pid)}
        assert len(converters) == 2, "the pool never started"
        time.sleep(2.0)  # let them start converting; idle or busy, they must not stay
        below = _descendants(ingest.pid)
        ingest.send_signal(signal.SIGTERM)
        assert ingest.wait(timeout=60) == -signal.SIGTERM
        deadline = time.monotonic() + 30
        while _alive(below) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _alive(below), "processes outlived the ingest"
    finally:
        for pid in _alive(below | _descendants(ingest.pid)):
            os.kill(pid, signal.SIGKILL)
        if ingest.poll() is None:
            ingest.kill()
