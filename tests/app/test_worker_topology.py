"""Several processes on one PostgreSQL: 3 API workers (``serve --no-ingest``) and 1 ingest
worker (``archivist worker``), real uvicorn processes on their own ports, 2 API keys.

20 uploads and 30 conversations go to the API workers at once, each conversation continued
on another worker than the one that started it. Nothing is lost (every document ingested,
every turn there), nothing crosses between keys, and each upload is ingested once (one
catalog row per file, one job claim per upload). Then the ingest worker is killed with
SIGKILL in the middle of a job: no API worker takes it up; a new ingest worker does once
the lease runs out, and finishes it with no orphan file and no duplicate document.
"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from tests.security.attack import Server, launch, running

KEYS = ("ann-key-0123456789abcdef", "ben-key-0123456789abcdef")
LEASE_S = 2.0
LISTENING = r"listening on (http://\S+)"
INGESTING = r"ingest worker \S+ waiting"


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _job(url: str, key: str, job_id: str) -> dict:
    reply = httpx.get(f"{url}/v1/documents/jobs/{job_id}", headers=_auth(key), timeout=30)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _until_finished(url: str, key: str, job_id: str, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    while (job := _job(url, key, job_id))["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    return job


def _upload(url: str, key: str, name: str, text: str) -> str:
    reply = httpx.post(f"{url}/v1/documents", headers=_auth(key), timeout=60,
                       files=[("files", (name, text.encode(), "text/markdown"))])
    assert reply.status_code == 202, reply.text
    return str(reply.json()["job_id"])


def _note(owner: int, i: int) -> str:
    return (f"# Pump {owner}-{i}\n\nPump {owner}-{i} of station {i * 7 + owner} is "
            f"serviced every {i + 2} weeks; its seal is model S{owner}{i:02d}.\n")


def _converse(api: list[Server], key: str, i: int) -> tuple[str, int, int]:
    """Start a conversation on one worker and continue it on the next."""
    first, second = api[i % 3], api[(i + 1) % 3]
    made = httpx.post(f"{first.url}/v1/conversations", headers=_auth(key), timeout=30)
    assert made.status_code == 201, made.text
    thread = made.json()["thread_id"]
    for server, question in ((first, f"When is pump {i} serviced?"),
                             (second, f"And what seal does pump {i} have?")):
        reply = httpx.post(f"{server.url}/v1/conversations/{thread}/messages",
                           headers=_auth(key), json={"message": question}, timeout=120)
        assert reply.status_code == 200, reply.text
    return thread, i % 3, (i + 1) % 3


def _long_manual() -> str:
    return "# Field manual\n\n" + "\n\n".join(
        f"## Section {i}\n\n" + " ".join(
            f"Pump {i} note {j}: the valve {i * j % 97} is checked on day {j} of the cycle."
            for j in range(40))
        for i in range(40))


@pytest.mark.slow  # five server processes, about 2 minutes
def test_three_api_workers_and_one_ingest_worker_share_one_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    settings = {"database_url": postgres_url, "api_keys": ",".join(KEYS),
                "job_lease_s": str(LEASE_S)}
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    with ExitStack() as stack:
        started = time.monotonic()
        # the first process creates the schema; the others then start together
        api = [stack.enter_context(running(
            launch(tmp_path, "serve", "--port", "0", "--no-ingest", **settings), LISTENING))]
        rest = [launch(tmp_path, "serve", "--port", "0", "--no-ingest", **settings)
                for _ in range(2)] + [launch(tmp_path, "worker", **settings)]
        api += [stack.enter_context(running(p, LISTENING)) for p in rest[:2]]
        ingest = stack.enter_context(running(rest[2], INGESTING))
        up_s = time.monotonic() - started
        assert len({s.url for s in api}) == 3

        # 20 uploads (10 per key) and 30 conversations (15 per key), all at once
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=12) as pool:
            uploads = {(k, i): pool.submit(_upload, api[(k + i) % 3].url, KEYS[k],
                                           f"pump-{k}-{i}.md", _note(k, i))
                       for k in (0, 1) for i in range(10)}
            talks = {(k, i): pool.submit(_converse, api, KEYS[k], i)
                     for k in (0, 1) for i in range(15)}
            job_ids = {where: f.result() for where, f in uploads.items()}
            threads = {where: f.result() for where, f in talks.items()}
        jobs = {where: _until_finished(api[(where[0] + where[1] + 1) % 3].url, KEYS[where[0]],
                                       job_id, 300)
                for where, job_id in job_ids.items()}
        load_s = time.monotonic() - started

        # nothing lost, each upload ingested once
        assert all(j["status"] == "done" and j["counts"]["added"] == 1 for j in jobs.values()), \
            jobs
        with engine.connect() as conn:
            documents = conn.execute(sa.text(
                "SELECT name, owner, child_count FROM documents")).all()
            claims = conn.execute(sa.text("SELECT status, attempts FROM jobs")).all()
            owners = dict(conn.execute(sa.text("SELECT thread_id, owner FROM threads")).all())
        assert sorted(d.name for d in documents) == sorted(
            f"pump-{k}-{i}.md" for k in (0, 1) for i in range(10))
        assert all(d.child_count > 0 for d in documents)
        assert len({d.owner for d in documents}) == 2  # each key owns its uploads
        assert sorted(claims) == [("done", 1)] * 20
        mine = {k: {t for (key, _), (t, _, _) in threads.items() if key == k} for k in (0, 1)}
        assert len(mine[0]) == len(mine[1]) == 15 and not mine[0] & mine[1]
        assert {owners[t] for t in mine[0]}.isdisjoint({owners[t] for t in mine[1]})

        # every turn is there, read from the third worker; no key sees the other's
        for (k, i), (thread, a, b) in threads.items():
            third = api[3 - a - b]
            turns = httpx.get(f"{third.url}/v1/conversations/{thread}/turns",
                              headers=_auth(KEYS[k]), timeout=30)
            assert turns.status_code == 200, turns.text
            assert [t["question"] for t in turns.json()["turns"]] == [
                f"When is pump {i} serviced?", f"And what seal does pump {i} have?"]
            other = KEYS[1 - k]
            assert httpx.get(f"{third.url}/v1/conversations/{thread}", headers=_auth(other),
                             timeout=30).status_code == 404
            assert httpx.post(f"{third.url}/v1/conversations/{thread}/messages",
                              headers=_auth(other), json={"message": "mine?"},
                              timeout=30).status_code == 404
        for server in api:
            for k in (0, 1):
                listed = httpx.get(f"{server.url}/v1/conversations", headers=_auth(KEYS[k]),
                                   timeout=30).json()["conversations"]
                assert {c["thread_id"] for c in listed} == mine[k]
        theirs = jobs[(0, 0)]["results"][0]["document_id"]
        denied = httpx.delete(f"{api[2].url}/v1/documents/{theirs}", headers=_auth(KEYS[1]),
                              timeout=30)
        assert denied.status_code == 403, denied.text

        # kill -9 the ingest worker in the middle of a job
        job_id = _upload(api[0].url, KEYS[0], "manual.md", _long_manual())
        deadline = time.monotonic() + 120
        while (before := _job(api[1].url, KEYS[0], job_id))["current_chunks_done"] == 0:
            assert before["status"] in ("queued", "running"), before
            assert time.monotonic() < deadline, "the ingest never started embedding"
            time.sleep(0.05)
        os.kill(ingest.process.pid, signal.SIGKILL)
        ingest.process.wait(timeout=30)
        time.sleep(LEASE_S * 2)  # the lease has run out: only an ingest worker takes it up
        stalled = _job(api[2].url, KEYS[0], job_id)
        assert stalled["status"] == "running", stalled
        replacement = stack.enter_context(running(launch(tmp_path, "worker", **settings),
                                                  INGESTING))
        after = _until_finished(api[1].url, KEYS[0], job_id, 300)
        assert replacement.process.poll() is None
        assert after["status"] == "done" and after["counts"]["added"] == 1, after
        with engine.connect() as conn:
            manuals = conn.execute(sa.text(
                "SELECT document_id, path FROM documents WHERE name = 'manual.md'")).all()
            attempts = conn.execute(sa.text("SELECT attempts FROM jobs WHERE job_id = :j"),
                                    {"j": job_id}).scalar_one()
            paths = set(conn.execute(sa.text("SELECT path FROM documents")).scalars())
        assert len(manuals) == 1 and attempts == 2
        uploads_dir = tmp_path / "data" / "uploads"
        files = {str(p.resolve()) for p in uploads_dir.rglob("*") if p.is_file()}
        assert files == {str(Path(p).resolve()) for p in paths}  # no orphan, none missing
        staging = uploads_dir / ".staging"
        assert not staging.exists() or not any(staging.iterdir())
    engine.dispose()
    print(f"\n3 API + 1 ingest worker on PostgreSQL: up in {up_s:.1f} s; 20 uploads and "
          f"30 conversations (60 turns) from 2 keys in {load_s:.1f} s; ingest worker killed at "
          f"{before['current_chunks_done']}/{before['current_chunks_total']} chunks -> "
          f"finished by a new worker (attempt {attempts}), {len(files)} files for "
          f"{len(paths)} documents")
