"""A synced folder never leads outside itself: symlinks are skipped, not followed.

A real ``archivist serve`` syncs a real folder (``ARCHIVIST_SERVER__SYNC_FOLDERS``) holding a
symlink to ``/etc/passwd`` and a symlinked folder; a read-only key searches for them.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from tests.security.attack import archivist_serve, wait_healthy

WRITER, READER = "kA-0123456789", "kR-0123456789"


def _wait(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the sync did not get there in time"
        time.sleep(0.2)


def test_sync_skips_symlinks_and_survives_a_deleted_folder(tmp_path: Path, figure) -> None:
    share, outside = tmp_path / "share", tmp_path / "outside"
    share.mkdir()
    outside.mkdir()
    (share / "n.md").write_text("# Notes\n\nThe greenhouse opens at nine.\n")
    (share / "kept.md").write_text("# Kept\n\nThe orchard gate is painted blue.\n")
    (outside / "secret.md").write_text("# Secret\n\nThe vault code is zebra-4471.\n")
    (share / "users.txt").symlink_to("/etc/passwd")
    (share / "linked").symlink_to(outside, target_is_directory=True)
    with archivist_serve(tmp_path / "srv", sync_folders=str(share), sync_interval_s="0.2",
                         api_keys=WRITER, read_only_keys=READER) as server:
        wait_healthy(server.url)
        reader = httpx.Client(base_url=server.url, timeout=30,
                              headers={"Authorization": f"Bearer {READER}"})

        def names() -> set[str]:
            return {d["name"] for d in reader.get("/v1/documents").json()["documents"]}

        _wait(lambda: names() == {"n.md", "kept.md"})
        time.sleep(1)  # a few more passes: the links stay out
        assert names() == {"n.md", "kept.md"}
        for query in ("root bash", "vault code zebra"):
            hits = reader.get("/v1/search", params={"query": query, "mode": "bm25"}).json()
            texts = " ".join(h["text"] for h in hits["hits"])
            assert "root:x:0:0" not in texts and "zebra-4471" not in texts, texts
        log = "".join(server.output)
        assert log.count(f"skipped {share / 'users.txt'}: a symbolic link") == 1, log
        assert log.count(f"skipped {share / 'linked'}: a symbolic link") == 1, log

        # a synced file replaced by a link: its document goes, the link's target never comes
        (share / "kept.md").unlink()
        (share / "kept.md").symlink_to(outside / "secret.md")
        _wait(lambda: names() == {"n.md"})

        # the whole folder deleted: one line, no traceback, documents kept. Moved away in one
        # step, then removed: rmtree alone empties it file by file first, and a pass that
        # reads it half empty rightly drops the files it no longer sees
        gone = tmp_path / "gone"
        share.rename(gone)
        shutil.rmtree(gone)
        time.sleep(2)  # about ten passes
        log = "".join(server.output)
        assert "Traceback" not in log, log
        assert log.count("sync paused:") == 1, log
        assert names() == {"n.md"}
        share.mkdir()
        _wait(lambda: "synced folders are back" in "".join(server.output))
        _wait(lambda: names() == set())
    figure("sync: /etc/passwd link and a linked folder skipped (one log line each); "
           "deleted folder: 1 log line, 0 tracebacks")
