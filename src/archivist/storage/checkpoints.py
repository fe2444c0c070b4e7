"""Keep one checkpoint per conversation: the latest of each namespace, with its writes.

LangGraph saves a checkpoint at every step of a run; a conversation only ever resumes
from its latest one (a paused clarification included), so a finished turn's older
checkpoints are deleted. On PostgreSQL this is the saver's own ``prune(keep_latest)``;
on SQLite the same rule in two statements.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

_OLDER_WRITES = """
DELETE FROM writes WHERE thread_id = ? AND checkpoint_id NOT IN (
    SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? GROUP BY checkpoint_ns)
"""
_OLDER_CHECKPOINTS = """
DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id NOT IN (
    SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? GROUP BY checkpoint_ns)
"""
_FINISHED_CALLS = "DELETE FROM {table} WHERE thread_id = ? AND checkpoint_ns LIKE '%:%'"


def keep_latest(saver: Any, thread_id: str, paused: bool) -> None:
    """Delete the thread's checkpoints but the latest of each namespace.

    Unless the run is ``paused`` (waiting for a clarification), the namespaces of its
    finished subgraph calls go too. A failure is logged: the next turn prunes again.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    try:
        if isinstance(saver, SqliteSaver):
            with saver.lock, saver.conn:
                if not paused:
                    for table in ("writes", "checkpoints"):
                        saver.conn.execute(_FINISHED_CALLS.format(table=table), (thread_id,))
                saver.conn.execute(_OLDER_WRITES, (thread_id, thread_id))
                saver.conn.execute(_OLDER_CHECKPOINTS, (thread_id, thread_id))
        else:
            saver.prune([thread_id], strategy="keep_latest")
    except Exception:
        log.warning("pruning the checkpoints of conversation %s failed; the next turn tries "
                    "again", thread_id, exc_info=True)
