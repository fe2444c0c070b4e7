"""The ingest job queue, in the library's database: any worker submits, any worker claims.

A job is ``queued`` until a worker claims it, then ``running`` under that worker's lease
(``lease_until``), which the worker renews while it works and while it records progress.
A job whose lease ran out (its worker died) is claimed again by whichever worker asks
next, up to :data:`MAX_ATTEMPTS` times; then it is ``failed`` with a reason the client can
read. On PostgreSQL the claim is ``SELECT ... FOR UPDATE SKIP LOCKED``, so workers never
wait on each other's claims; on SQLite the claim is one ``BEGIN IMMEDIATE`` transaction,
which only one connection at a time can hold.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, exists, func, or_, select, update

from archivist.storage.database import Database
from archivist.storage.schema import jobs

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
"""Claims of one job before it is given up (each claim after the first follows a dead worker)."""
ACTIVE = ("queued", "running")
PROGRESS_S = 0.5
"""How often a running job's progress is written (when it changed)."""


@dataclass
class JobRow:
    """One job as stored."""

    job_id: str
    owner: str
    collection: str
    document_owner: str
    status: str
    files: list[str]
    progress: dict[str, Any]
    error: str | None
    attempts: int
    worker: str | None
    lease_until: float | None
    created_at: float


def _row(values: Mapping[str, Any]) -> JobRow:
    return JobRow(
        job_id=values["job_id"], owner=values["owner"], collection=values["collection"],
        document_owner=values["document_owner"], status=values["status"],
        files=json.loads(values["files"]), progress=json.loads(values["progress"]),
        error=values["error"], attempts=int(values["attempts"]), worker=values["worker"],
        lease_until=values["lease_until"], created_at=float(values["created_at"]),
    )


class JobQueue:
    """Jobs of one library.

    ``worker`` names this process; ``lease_s`` is how long a claim holds without renewal.
    """

    def __init__(self, database: Database, worker: str, lease_s: float) -> None:
        self.database = database
        self.worker = worker
        self.lease_s = lease_s

    def submit(self, job_id: str, owner: str, collection: str, document_owner: str,
               files: list[str], progress: dict[str, Any]) -> None:
        """Queue a job."""
        now = time.time()
        with self.database.transaction() as conn:
            conn.execute(jobs.insert().values(
                job_id=job_id, owner=owner, collection=collection,
                document_owner=document_owner, status="queued", files=json.dumps(files),
                progress=json.dumps(progress), created_at=now, updated_at=now))

    def get(self, job_id: str) -> JobRow | None:
        """A job by id."""
        with self.database.reading() as conn:
            row = conn.execute(select(jobs).where(jobs.c.job_id == job_id)).first()
        return _row(dict(row._mapping)) if row else None

    def active(self) -> list[JobRow]:
        """Jobs queued or running (their files must stay)."""
        with self.database.reading() as conn:
            rows = conn.execute(select(jobs).where(jobs.c.status.in_(ACTIVE)))
            return [_row(dict(r._mapping)) for r in rows]

    def claim(self) -> JobRow | None:
        """A queued job, or a running one whose lease ran out, now this worker's.

        Keys take turns: the job claimed is the oldest of the key whose jobs ran longest
        ago (or never). A job whose owner already has a job running in its collection waits
        for it: one owner's jobs take one worker at a time, the other workers serve others.

        A job claimed :data:`MAX_ATTEMPTS` times already is marked failed instead.
        """
        busy, earlier = jobs.alias("busy"), jobs.alias("earlier")
        served = (select(func.max(earlier.c.updated_at))
                  .where(earlier.c.owner == jobs.c.owner, earlier.c.status != "queued")
                  .scalar_subquery())  # when the key last had a job run
        while True:
            now = time.time()
            with self.database.transaction() as conn:
                found = conn.execute(
                    select(jobs).where(or_(
                        jobs.c.status == "queued",
                        and_(jobs.c.status == "running", jobs.c.lease_until < now)),
                        ~exists().where(busy.c.status == "running",
                                        busy.c.lease_until >= now,
                                        busy.c.collection == jobs.c.collection,
                                        busy.c.document_owner == jobs.c.document_owner))
                    .order_by(func.coalesce(served, 0.0), jobs.c.created_at).limit(1)
                    .with_for_update(of=jobs, skip_locked=True)
                ).first()
                if found is None:
                    return None
                job = _row(dict(found._mapping))
                if job.attempts >= MAX_ATTEMPTS:
                    reason = (f"the ingest was interrupted {job.attempts} times (the worker "
                              "running it stopped); upload the files again")
                    conn.execute(update(jobs).where(jobs.c.job_id == job.job_id).values(
                        status="failed", error=reason, worker=None, lease_until=None,
                        updated_at=now,
                        progress=json.dumps({**job.progress, "status": "failed",
                                             "stage": "failed", "error": reason})))
                    continue
                conn.execute(update(jobs).where(jobs.c.job_id == job.job_id).values(
                    status="running", worker=self.worker, lease_until=now + self.lease_s,
                    attempts=job.attempts + 1, updated_at=now))
            job.status, job.worker, job.attempts = "running", self.worker, job.attempts + 1
            return job

    def renew(self, job_id: str, progress: dict[str, Any] | None = None) -> bool:
        """Extend this worker's lease (and store progress); ``False`` if the lease was lost."""
        now = time.time()
        values: dict[str, Any] = {"lease_until": now + self.lease_s, "updated_at": now}
        if progress is not None:
            values["progress"] = json.dumps(progress)
        with self.database.transaction() as conn:
            changed = conn.execute(update(jobs).where(
                jobs.c.job_id == job_id, jobs.c.worker == self.worker,
                jobs.c.status == "running").values(**values)).rowcount
        return int(changed) > 0

    def finish(self, job_id: str, status: str, progress: dict[str, Any],
               error: str | None = None) -> None:
        """Record a job's end (``done`` or ``failed``)."""
        with self.database.transaction() as conn:
            conn.execute(update(jobs).where(jobs.c.job_id == job_id).values(
                status=status, progress=json.dumps(progress), error=error, worker=None,
                lease_until=None, updated_at=time.time()))

    def release_all(self) -> int:
        """Make every running job claimable at once.

        For embedded storage at startup: the process that ran them is gone, since only one
        process serves an embedded library.
        """
        with self.database.transaction() as conn:
            return int(conn.execute(update(jobs).where(jobs.c.status == "running")
                                    .values(lease_until=0.0)).rowcount)


class LeaseKeeper:
    """Renews a running job's lease, and writes its progress, on a thread while it runs.

    ``progress()`` gives what to store; ``changes()`` a number that moves when it changed.
    """

    def __init__(self, queue: JobQueue, job_id: str, progress: Callable[[], dict[str, Any]],
                 changes: Callable[[], int]) -> None:
        self._queue = queue
        self._job_id = job_id
        self._progress = progress
        self._changes = changes
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="archivist-job-lease",
                                        daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        renew_every = self._queue.lease_s / 3
        written, renewed = -1, time.monotonic()
        while not self._stopped.wait(PROGRESS_S):
            changes = self._changes()
            if changes == written and time.monotonic() - renewed < renew_every:
                continue
            try:
                if not self._queue.renew(self._job_id, self._progress()):
                    log.warning("ingest job %s: its lease went to another worker",
                                self._job_id)
            except Exception:  # the database is unreachable for now: tried again
                log.exception("could not renew ingest job %s", self._job_id)
                continue
            written, renewed = changes, time.monotonic()

    def stop(self) -> None:
        """Stop renewing (the job's end is recorded by its runner)."""
        self._stopped.set()
        self._thread.join()
