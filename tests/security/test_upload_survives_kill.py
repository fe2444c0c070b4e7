"""An accepted upload survives kill -9 of the server, and startup removes upload leftovers.

The server answers 202 with a job id, then is killed (SIGKILL) while it embeds the file. A
new server on the same library takes the job up again from the database and finishes it:
the job reads ``done`` with the document added once, and ``uploads/`` holds that document's
file and nothing else (no orphan file, no staging folder).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
from tests.security.attack import Server, archivist_serve, wait_healthy


def _long_markdown(path: Path) -> Path:
    sections = [
        f"## Section {i}\n\n" + " ".join(
            f"Pump {i} note {j}: the valve {i * j % 97} is checked on day {j} of the cycle."
            for j in range(40))
        for i in range(40)
    ]
    path.write_text("# Field manual\n\n" + "\n\n".join(sections) + "\n", encoding="utf-8")
    return path


def _job(server: Server, job_id: str) -> dict:
    reply = httpx.get(f"{server.url}/v1/documents/jobs/{job_id}", timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _files(uploads: Path) -> list[str]:
    return sorted(str(p.relative_to(uploads)) for p in uploads.rglob("*") if p.is_file())


def test_a_job_killed_while_embedding_is_finished_after_restart(tmp_path: Path, figure) -> None:
    manual = _long_markdown(tmp_path / "manual.md")
    with archivist_serve(tmp_path) as server:
        wait_healthy(server.url)
        with manual.open("rb") as handle:
            reply = httpx.post(f"{server.url}/v1/documents",
                               files={"files": ("manual.md", handle, "text/markdown")},
                               timeout=60)
        assert reply.status_code == 202, reply.text
        job_id = reply.json()["job_id"]
        deadline = time.monotonic() + 120
        while (before := _job(server, job_id))["current_chunks_done"] == 0:
            assert before["status"] in ("queued", "running"), before
            assert time.monotonic() < deadline, "the ingest never started embedding"
            time.sleep(0.05)
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
    uploads = server.data_dir / "uploads"
    left_before = _files(uploads)
    assert left_before == [f"default/{Path(left_before[0]).parent.name}/manual.md"]
    # what else an interrupted upload leaves: an empty staging folder, a file no one names
    (uploads / ".staging" / "0123abcd").mkdir(parents=True)
    (uploads / "default" / "orphan.md").write_text("# left behind\n")

    with archivist_serve(tmp_path) as again:
        wait_healthy(again.url)
        deadline = time.monotonic() + 180
        while (after := _job(again, job_id))["status"] not in ("done", "failed"):
            assert time.monotonic() < deadline, (after, again.output[-20:])
            time.sleep(0.2)
        listed = httpx.get(f"{again.url}/v1/documents", timeout=30).json()
    figure(f"upload killed while embedding ({before['current_chunks_done']} of "
           f"{before['current_chunks_total']} chunks): job {before['status']} before the "
           f"kill -> {after['status']} after restart, counts {after['counts']}")
    assert after["status"] == "done" and after["error"] is None
    assert after["counts"]["added"] == 1 and after["counts"]["failed"] == 0
    documents = listed["documents"] if isinstance(listed, dict) else listed
    assert [d["name"] for d in documents] == ["manual.md"]
    assert _files(uploads) == left_before  # the document's file, nothing else
    assert not (uploads / ".staging").exists() or list((uploads / ".staging").iterdir()) == []
