"""The ingest job queue on both backends: claims, leases, dead workers, give-up reason."""

from __future__ import annotations

import time

from archivist.storage import Database
from archivist.storage.jobs import MAX_ATTEMPTS, JobQueue


def _submit(queue: JobQueue, job_id: str, owner: str = "key:a") -> None:
    queue.submit(job_id, owner, "default", owner, [f"/staging/{job_id}/a.md"],
                 {"results": []})


def test_each_job_is_claimed_by_one_worker_oldest_first(database: Database) -> None:
    first, second = JobQueue(database, "w1", 30), JobQueue(database, "w2", 30)
    _submit(first, "j1")
    _submit(first, "j2", "key:b")
    claimed = [first.claim(), second.claim(), first.claim()]
    assert [(c.job_id, c.worker) for c in claimed if c] == [("j1", "w1"), ("j2", "w2")]
    assert claimed[2] is None  # nothing left: a running job under a live lease stays put
    assert second.renew("j2", {"stage": "embedding"})
    assert not first.renew("j2")  # not w1's lease
    assert second.get("j2").progress == {"stage": "embedding"}


def test_an_owners_jobs_run_one_at_a_time_and_others_go_first(database: Database) -> None:
    first, second = JobQueue(database, "w1", 30), JobQueue(database, "w2", 30)
    _submit(first, "big")
    _submit(first, "next")  # the same owner's: waits for "big"
    _submit(first, "small", "key:b")  # submitted last, claimed before "next"
    assert first.claim().job_id == "big"
    assert second.claim().job_id == "small"
    assert second.claim() is None
    first.finish("big", "done", {"status": "done"})
    assert second.claim().job_id == "next"


def test_keys_take_turns_on_one_worker(database: Database) -> None:
    worker = JobQueue(database, "w1", 30)
    for job_id in ("a1", "a2", "a3"):
        _submit(worker, job_id)
    _submit(worker, "b1", "key:b")  # after all of a's, but b has not been served yet
    _submit(worker, "b2", "key:b")
    order = []
    while (row := worker.claim()) is not None:
        order.append(row.job_id)
        time.sleep(0.01)  # the finish times tell the keys apart
        worker.finish(row.job_id, "done", {"status": "done"})
    assert order == ["a1", "b1", "a2", "b2", "a3"]


def test_a_dead_workers_job_is_taken_over_when_its_lease_runs_out(database: Database) -> None:
    dying, alive = JobQueue(database, "dying", 0.3), JobQueue(database, "alive", 30)
    _submit(dying, "j1")
    assert dying.claim() is not None
    assert alive.claim() is None
    time.sleep(0.5)  # the dying worker stopped renewing
    taken = alive.claim()
    assert taken is not None and (taken.worker, taken.attempts) == ("alive", 2)
    assert not dying.renew("j1")  # the dead worker, were it to wake, knows it lost the job
    alive.finish("j1", "done", {"status": "done"})
    assert alive.get("j1").status == "done" and alive.active() == []


def test_a_job_that_keeps_killing_its_worker_fails_with_a_reason(database: Database) -> None:
    queue = JobQueue(database, "w", 0.01)
    _submit(queue, "j1")
    for _ in range(MAX_ATTEMPTS):
        assert queue.claim() is not None
        time.sleep(0.05)
    assert queue.claim() is None
    failed = queue.get("j1")
    assert failed.status == "failed" and failed.error is not None
    assert "interrupted 3 times" in failed.error and "upload the files again" in failed.error


def test_a_restarted_embedded_server_frees_its_running_jobs_at_once(database: Database) -> None:
    old, new = JobQueue(database, "old", 3600), JobQueue(database, "new", 3600)
    _submit(old, "j1")
    assert old.claim() is not None and new.claim() is None
    assert new.release_all() == 1
    assert new.claim().worker == "new"


def _claim_all(url: str, worker: str, out: list[str]) -> None:
    """Claim and finish jobs until none is left (run in its own process)."""
    database = Database(url)
    queue = JobQueue(database, worker, 30)
    while (job := queue.claim()) is not None:
        out.append(job.job_id)
        queue.finish(job.job_id, "done", {})
    database.close()


def test_four_processes_claim_forty_jobs_each_exactly_once(database: Database) -> None:
    import multiprocessing

    queue = JobQueue(database, "submitter", 30)
    for n in range(40):
        _submit(queue, f"j{n:02d}")
    url = database.url.render_as_string(hide_password=False)
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        claims = manager.list()
        workers = [context.Process(target=_claim_all, args=(url, f"w{i}", claims))
                   for i in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
            assert worker.exitcode == 0
        claimed = list(claims)
    assert sorted(claimed) == [f"j{n:02d}" for n in range(40)]  # each once, none lost
    assert queue.active() == []
