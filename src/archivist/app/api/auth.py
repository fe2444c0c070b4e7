"""Who is calling (bearer keys, each with a role) and which conversations each caller owns.

With no keys configured the server is open: every caller is the anonymous admin (the server
trusts whoever can reach it, which by default is this machine only). With keys, each request
needs ``Authorization: Bearer <key>``. A key has a role:

- ``admin`` (``admin_keys``): may change every document;
- ``writer`` (``api_keys``): may upload, and change or delete only the documents it owns;
- ``reader`` (``read_only_keys``): may list, search and ask, never change a document.

``key_collections`` limits a key to some collections (reading and writing); a key not listed
there may use every collection. The owner id is a hash of the key, so keys are never stored.
A conversation belongs to the owner that created it; any other owner is told it does not
exist (404), even when it knows the id.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import delete, select, update

from archivist.app.api.errors import ApiError
from archivist.app.server_file import LOCAL_OWNER
from archivist.settings import Settings
from archivist.storage import Database
from archivist.storage.schema import chat_prefixes, threads
from archivist.types import ADMIN_OWNER

ANONYMOUS = "anonymous"
UI_OWNER = "ui"

Role = Literal["admin", "writer", "reader"]

bearer_scheme = HTTPBearer(
    auto_error=False,
    description="One of the server's API keys (only when keys are configured).",
)


def owner_of(key: str) -> str:
    """The stored identity of an API key: a short SHA-256 digest, never the key itself."""
    return "key:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: its owner id, its role and the collections it may use."""

    owner: str
    role: Role
    collections: frozenset[str] | None = None  # None: every collection

    @property
    def document_owner(self) -> str:
        """Who owns the documents this caller uploads (admins share the admin's)."""
        return ADMIN_OWNER if self.role == "admin" else self.owner

    def may_use(self, collection: str) -> bool:
        """Whether this caller may read (and, by role, write) ``collection``."""
        return self.collections is None or collection in self.collections

    def check_collection(self, collection: str) -> None:
        """403 unless this caller may use ``collection``."""
        if not self.may_use(collection):
            raise ApiError(403, "forbidden",
                           f"this API key has no access to the collection '{collection}'")

    def check_write(self, collection: str) -> None:
        """403 unless this caller may add documents to ``collection``."""
        self.check_collection(collection)
        if self.role == "reader":
            raise ApiError(403, "forbidden", "this API key is read-only")

    def may_change(self, document_owner: str) -> bool:
        """Whether this caller may replace or delete a document owned by ``document_owner``."""
        return self.role == "admin" or (
            self.role == "writer" and document_owner == self.document_owner
        )


OPEN_CALLER = Caller(ANONYMOUS, "admin")
LOCAL_CALLER = Caller(LOCAL_OWNER, "admin")


class KeyChecker:
    """Checks bearer keys against the configured ones (constant-time comparison)."""

    def __init__(
        self,
        keys: Iterable[str],
        *,
        admin: Iterable[str] = (),
        read_only: Iterable[str] = (),
        collections: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        roles: list[tuple[str, Role]] = [(k, "admin") for k in admin]
        roles += [(k, "writer") for k in keys]
        roles += [(k, "reader") for k in read_only]
        grants = {k: frozenset(v) for k, v in (collections or {}).items()}
        self._callers = [(k.encode(), Caller(owner_of(k), role, grants.get(k)))
                         for k, role in roles]
        self._local: bytes | None = None

    def allow_local(self, token: str) -> None:
        """Also accept ``archivist serve``'s data-dir token: the CLI of the library's owner.

        It is a key like the others (``Authorization: Bearer <token>``), with the admin role,
        since whoever can read the data dir could open the library itself.
        """
        self._local = token.encode()

    def is_local(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header carries the data-dir token."""
        scheme, _, key = (authorization or "").partition(" ")
        return bool(
            self._local
            and scheme.lower() == "bearer"
            and hmac.compare_digest(key.strip().encode(), self._local)
        )

    @property
    def enabled(self) -> bool:
        """Whether any key is configured (otherwise the server is open)."""
        return bool(self._callers)

    def lookup(self, key: str) -> Caller | None:
        """The caller a key stands for, or ``None`` for an unknown key."""
        found = None
        for known, caller in self._callers:  # compare with every key: constant time
            if hmac.compare_digest(key.encode(), known):
                found = caller
        return found

    def valid(self, key: str) -> bool:
        """Whether ``key`` is one of the configured keys."""
        return self.lookup(key) is not None

    def from_header(self, authorization: str | None) -> Caller:
        """The caller of an ``Authorization`` header value, or a 401 ``ApiError``."""
        if not self.enabled:
            return OPEN_CALLER
        scheme, _, key = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise ApiError(
                401,
                "unauthorized",
                "this server needs an API key: send 'Authorization: Bearer <key>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        caller = self.lookup(key.strip())
        if caller is None and self.is_local(authorization):
            caller = LOCAL_CALLER
        if caller is None:
            raise ApiError(
                401, "unauthorized", "invalid API key", headers={"WWW-Authenticate": "Bearer"}
            )
        return caller

    def owner(self, credentials: HTTPAuthorizationCredentials | None) -> str:
        """The caller's owner id, or a 401 ``ApiError``."""
        header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
        return self.from_header(header).owner


def current_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Caller:
    """FastAPI dependency: the calling key (401 when keys are configured and missing)."""
    checker: KeyChecker = request.app.state.keys
    header = f"{credentials.scheme} {credentials.credentials}" if credentials else None
    return checker.from_header(header)


def current_owner(caller: Annotated[Caller, Depends(current_caller)]) -> str:
    """FastAPI dependency: the calling owner (401 when keys are configured and missing)."""
    return caller.owner


Owner = Annotated[str, Depends(current_owner)]
CallerDep = Annotated[Caller, Depends(current_caller)]


def key_checker(settings: Settings) -> KeyChecker:
    """The key checker of a server's settings."""
    return KeyChecker(settings.server.api_key_list, admin=settings.server.admin_key_list,
                      read_only=settings.server.read_only_key_list,
                      collections=settings.server.key_collections)


class ThreadRegistry:
    """Conversation ownership (and the collection each one searches), in the database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def create(self, thread_id: str, owner: str, collection: str) -> None:
        """Record a new conversation for ``owner``."""
        with self.database.transaction() as conn:
            conn.execute(threads.insert().values(thread_id=thread_id, owner=owner,
                                                 collection=collection, created_at=time.time()))

    def _one(self, query: Any) -> Any:
        with self.database.reading() as conn:
            return conn.execute(query).first()

    def _write(self, statement: Any) -> int:
        with self.database.transaction() as conn:
            return int(conn.execute(statement).rowcount)

    def collection_of(self, thread_id: str, owner: str) -> str | None:
        """The conversation's collection if ``owner`` owns it; ``None`` otherwise."""
        row = self._one(select(threads.c.collection).where(threads.c.thread_id == thread_id,
                                                           threads.c.owner == owner))
        return str(row[0]) if row else None

    def exists(self, thread_id: str) -> bool:
        """Whether any owner has a conversation with this id."""
        return self._one(select(threads.c.thread_id).where(
            threads.c.thread_id == thread_id)) is not None

    def set_title(self, thread_id: str, title: str) -> None:
        """Name a conversation after its first message (only once)."""
        self._write(update(threads).where(threads.c.thread_id == thread_id,
                                          threads.c.title == "").values(title=title[:80]))

    def rename(self, thread_id: str, owner: str, title: str) -> bool:
        """Retitle an owner's conversation; ``False`` when it is not theirs."""
        return self._write(update(threads).where(
            threads.c.thread_id == thread_id, threads.c.owner == owner)
            .values(title=title[:200])) > 0

    def owned(self, owner: str) -> list[tuple[str, str, float, str]]:
        """``(thread_id, collection, created_at, title)`` of an owner's conversations."""
        query = (select(threads.c.thread_id, threads.c.collection, threads.c.created_at,
                        threads.c.title)
                 .where(threads.c.owner == owner).order_by(threads.c.created_at.desc()))
        with self.database.reading() as conn:
            rows = conn.execute(query).all()
        return [(str(a), str(b), float(c), str(d)) for a, b, c, d in rows]

    def delete(self, thread_id: str, owner: str) -> bool:
        """Forget an owner's conversation; ``False`` when it is not theirs."""
        with self.database.transaction() as conn:
            deleted = conn.execute(delete(threads).where(
                threads.c.thread_id == thread_id, threads.c.owner == owner)).rowcount
            conn.execute(delete(chat_prefixes).where(chat_prefixes.c.thread_id == thread_id,
                                                     chat_prefixes.c.owner == owner))
        return int(deleted) > 0

    # --- OpenAI-style continuity: a digest of the messages so far -> thread -------------
    def thread_for_prefix(self, owner: str, digest: str) -> str | None:
        """The thread that produced exactly this conversation so far, if known."""
        row = self._one(select(chat_prefixes.c.thread_id).where(
            chat_prefixes.c.owner == owner, chat_prefixes.c.digest == digest))
        return str(row[0]) if row else None

    def remember_prefix(self, owner: str, digest: str, thread_id: str) -> None:
        """Remember which thread a conversation (as the client will resend it) belongs to."""
        stmt = self.database.insert(chat_prefixes).values(owner=owner, digest=digest,
                                                          thread_id=thread_id)
        with self.database.transaction() as conn:
            conn.execute(stmt.on_conflict_do_update(
                index_elements=[chat_prefixes.c.owner, chat_prefixes.c.digest],
                set_={"thread_id": thread_id}))

    def close(self) -> None:
        """Nothing to release: the database is the application's."""
