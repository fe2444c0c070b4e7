"""Item 4b: /v1/chat/completions caps messages and history like /v1/conversations."""

from __future__ import annotations

import httpx
from tests.security.attack import KEYS, Server

from archivist.app.limits import HISTORY_MAX_MESSAGES, MESSAGE_MAX_CHARS


def _chat(server: Server, messages: list[dict[str, str]]) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/chat/completions", timeout=120,
                      headers={"Authorization": f"Bearer {KEYS['alice']}"},
                      json={"model": "archivist", "messages": messages})


def test_chat_messages_and_history_are_capped(keyed_server: Server, figure) -> None:
    long = _chat(keyed_server, [{"role": "user", "content": "x" * (MESSAGE_MAX_CHARS + 1)}])
    assert long.status_code == 422
    assert str(MESSAGE_MAX_CHARS) in long.json()["error"]["message"]
    turns = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"turn {n}"}
             for n in range(HISTORY_MAX_MESSAGES + 1)]
    history = _chat(keyed_server, turns)
    assert history.status_code == 422
    conversation = httpx.post(f"{keyed_server.url}/v1/conversations", timeout=60,
                              headers={"Authorization": f"Bearer {KEYS['alice']}"}, json={})
    thread = conversation.json()["thread_id"]
    same = httpx.post(f"{keyed_server.url}/v1/conversations/{thread}/messages", timeout=60,
                      headers={"Authorization": f"Bearer {KEYS['alice']}"},
                      json={"message": "x" * (MESSAGE_MAX_CHARS + 1)})
    assert same.status_code == 422
    figure(f"chat completion with a {MESSAGE_MAX_CHARS + 1}-char message: {long.status_code}; "
           f"with {HISTORY_MAX_MESSAGES + 1} messages: {history.status_code}; "
           f"/v1/conversations same message: {same.status_code}")
