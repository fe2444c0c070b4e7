"""Who is behind a web UI session: the key given as the password at login, with its role."""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr

from archivist.app.api.auth import OPEN_CALLER, Caller, KeyChecker
from archivist.app.api.errors import ApiError


class UiLogins:
    """Which key each logged-in UI user name stands for (one key per user name)."""

    def __init__(self, checker: KeyChecker) -> None:
        self.checker = checker
        self._callers: dict[str, Caller] = {}

    def login(self, user: str, key: str) -> bool:
        """Gradio's auth check: a valid key, and a user name not taken by another key."""
        caller = self.checker.lookup(key)
        return caller is not None and self._callers.setdefault(user, caller) == caller

    def caller(self, request: gr.Request | None) -> Caller:
        """The caller behind a UI request (the anonymous admin on an open server)."""
        if not self.checker.enabled:
            return OPEN_CALLER
        user = getattr(request, "username", None)
        caller = self._callers.get(user) if user else None
        if caller is None:
            raise ApiError(401, "unauthorized", "log in again")
        return caller


def refusal(check: Callable[[], object]) -> str | None:
    """The message of the ``ApiError`` that ``check()`` raises, if any."""
    try:
        check()
    except ApiError as exc:
        return exc.message
    return None
