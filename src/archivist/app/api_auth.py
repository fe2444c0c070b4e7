"""Who is calling (bearer keys) and which conversations each caller owns.

With no keys configured the server is open and every caller is the anonymous owner. With
keys, each request needs ``Authorization: Bearer <key>``; the owner is a hash of the key,
so keys are never stored. A conversation belongs to the owner that created it; any other
owner is told it does not exist (404), even when it knows the id.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import threading
import time
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from archivist.app.api_errors import ApiError

ANONYMOUS = "anonymous"
UI_OWNER = "ui"

bearer_scheme = HTTPBearer(
    auto_error=False,
    description="One of the keys in ARCHIVIST_API_KEYS (only when keys are configured).",
)


def owner_of(key: str) -> str:
    """The stored identity of an API key: a short SHA-256 digest, never the key itself."""
    return "key:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


class KeyChecker:
    """Checks bearer keys against the configured list (constant-time comparison)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = list(keys)

    @property
    def enabled(self) -> bool:
        """Whether any key is configured (otherwise the server is open)."""
        return bool(self.keys)

    def valid(self, key: str) -> bool:
        """Whether ``key`` is one of the configured keys."""
        return any(hmac.compare_digest(key.encode(), k.encode()) for k in self.keys)

    def owner(self, credentials: HTTPAuthorizationCredentials | None) -> str:
        """The caller's owner id, or a 401 ``ApiError``."""
        if not self.enabled:
            return ANONYMOUS
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise ApiError(
                401,
                "unauthorized",
                "this server needs an API key: send 'Authorization: Bearer <key>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if not self.valid(credentials.credentials):
            raise ApiError(
                401, "unauthorized", "invalid API key", headers={"WWW-Authenticate": "Bearer"}
            )
        return owner_of(credentials.credentials)


def current_owner(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> str:
    """FastAPI dependency: the calling owner (401 when keys are configured and missing)."""
    checker: KeyChecker = request.app.state.keys
    return checker.owner(credentials)


Owner = Annotated[str, Depends(current_owner)]


class ThreadRegistry:
    """Conversation ownership (and the collection each conversation searches), in SQLite."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._conn:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS threads (thread_id TEXT PRIMARY KEY, owner TEXT NOT "
                "NULL, collection TEXT NOT NULL, created_at REAL NOT NULL, title TEXT NOT NULL "
                "DEFAULT '')"
            )
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS chat_prefixes (owner TEXT NOT NULL, digest TEXT NOT "
                "NULL, thread_id TEXT NOT NULL, PRIMARY KEY (owner, digest))"
            )

    def create(self, thread_id: str, owner: str, collection: str) -> None:
        """Record a new conversation for ``owner``."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO threads (thread_id, owner, collection, created_at) VALUES (?,?,?,?)",
                (thread_id, owner, collection, time.time()),
            )

    def collection_of(self, thread_id: str, owner: str) -> str | None:
        """The conversation's collection if ``owner`` owns it; ``None`` otherwise."""
        with self._lock:
            row = self._conn.execute(
                "SELECT collection FROM threads WHERE thread_id = ? AND owner = ?",
                (thread_id, owner),
            ).fetchone()
        return str(row[0]) if row else None

    def exists(self, thread_id: str) -> bool:
        """Whether any owner has a conversation with this id."""
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,)
            ).fetchone()
        return row is not None

    def set_title(self, thread_id: str, title: str) -> None:
        """Name a conversation after its first message (only once)."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE threads SET title = ? WHERE thread_id = ? AND title = ''",
                (title[:80], thread_id),
            )

    def owned(self, owner: str) -> list[tuple[str, str, float, str]]:
        """``(thread_id, collection, created_at, title)`` of an owner's conversations."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT thread_id, collection, created_at, title FROM threads WHERE owner = ? "
                "ORDER BY created_at DESC",
                (owner,),
            ).fetchall()
        return [(str(a), str(b), float(c), str(d)) for a, b, c, d in rows]

    def delete(self, thread_id: str, owner: str) -> bool:
        """Forget an owner's conversation; ``False`` when it is not theirs."""
        with self._lock, self._conn:
            cursor = self._conn.execute(
                "DELETE FROM threads WHERE thread_id = ? AND owner = ?", (thread_id, owner)
            )
            self._conn.execute(
                "DELETE FROM chat_prefixes WHERE thread_id = ? AND owner = ?", (thread_id, owner)
            )
        return cursor.rowcount > 0

    # --- OpenAI-style continuity: a digest of the messages so far -> thread -------------
    def thread_for_prefix(self, owner: str, digest: str) -> str | None:
        """The thread that produced exactly this conversation so far, if known."""
        with self._lock:
            row = self._conn.execute(
                "SELECT thread_id FROM chat_prefixes WHERE owner = ? AND digest = ?",
                (owner, digest),
            ).fetchone()
        return str(row[0]) if row else None

    def remember_prefix(self, owner: str, digest: str, thread_id: str) -> None:
        """Remember which thread a conversation (as the client will resend it) belongs to."""
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO chat_prefixes (owner, digest, thread_id) VALUES (?,?,?)",
                (owner, digest, thread_id),
            )

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._conn.close()
