"""What the web UI shows one key: its own conversations, sources, ratings and exports only."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient

from archivist.app.api.auth import owner_of
from archivist.app.ui.render import ChatTurn, turn_messages
from archivist.app.ui.session import UiConversations, quoted

ALICE = {"Authorization": "Bearer key-alice"}
QUESTION = "How long does the Zephyr warranty last?"


def test_one_key_never_sees_anothers_conversation_in_the_ui(
    keyed_app: FastAPI, keyed_client: TestClient
) -> None:
    thread = keyed_client.post("/v1/conversations", headers=ALICE).json()["thread_id"]
    reply = keyed_client.post(f"/v1/conversations/{thread}/messages",
                              json={"message": QUESTION}, headers=ALICE)
    assert reply.status_code == 200, reply.text
    chat = keyed_app.state.chat
    convs = UiConversations(keyed_app.state.application.store, chat.registry, chat.turns)
    alice, bob = owner_of("key-alice"), owner_of("key-bob")

    assert (QUESTION.rstrip("?"), thread) in convs.choices(alice)
    assert thread not in [t for _title, t in convs.choices(bob)]

    opened = convs.open_source(thread, 1, 1, alice)
    assert opened.page_png is not None and opened.page == 3
    assert "zephyr-manual.pdf" in opened.markdown and "five years" in opened.markdown
    refused = convs.open_source(thread, 1, 1, bob)
    assert refused.page_png is None and "zephyr" not in refused.markdown.lower()

    assert convs.export(thread, bob, "md") is None
    exported = convs.export(thread, alice, "md")
    assert exported is not None and QUESTION in exported.read_text(encoding="utf-8")

    assert convs.rate(thread, bob, "down", "not mine") == ""
    assert chat.turns.turn(thread).feedback is None
    assert convs.rate(thread, alice, "down", " vague ") == "Thanks. Answer 1 rated: not helpful."
    feedback = chat.turns.turn(thread).feedback
    assert feedback is not None and (feedback.rating, feedback.comment) == ("down", "vague")

    assert not convs.forget(thread, bob)
    assert convs.collection(thread, alice) == "default"
    assert convs.forget(thread, alice)
    assert thread not in [t for _title, t in convs.choices(alice)]


def test_a_quoted_passage_keeps_its_headings_as_plain_lines() -> None:
    assert quoted("## Warranty\n\nFive years.") == "> Warranty\n>\n> Five years."


def test_a_conversation_read_back_shows_the_steps_it_showed_live(
    keyed_app: FastAPI, keyed_client: TestClient
) -> None:
    """The live chat and the chat rebuilt from the turn log (a reload) are the same."""
    chat = keyed_app.state.chat
    thread = chat.create(owner_of("key-alice"), "default")
    live = ChatTurn([], QUESTION, 1)
    events = chat.events(QUESTION, thread, "default")
    try:
        for event in events:
            live.apply(event)
    finally:
        events.close()
    shown = live.messages()
    (steps,) = [m for m in shown if m.get("metadata")]
    assert steps["metadata"]["title"].startswith("Steps (") and "**search**" in steps["content"]
    assert "LLM calls" in steps["metadata"]["log"]
    # the time shows once: as the box's duration, not again in its figures
    assert steps["metadata"]["duration"] >= 0
    assert not re.search(r"\d\s?m?s\b", steps["metadata"]["log"]), steps["metadata"]
    assert turn_messages(chat.turns.turns(thread)) == shown


def test_an_answer_shows_angle_brackets_as_written() -> None:
    from archivist.app.ui.render import answer_markdown

    answer = "Press <Ctrl> and <Enter>; in code `<div>` and\n```\n<b>x</b>\n```\nstay as they are."
    shown = answer_markdown(answer, [], None, 1)
    assert shown == ("Press &lt;Ctrl> and &lt;Enter>; in code `<div>` and\n```\n<b>x</b>\n```"
                     "\nstay as they are.")
