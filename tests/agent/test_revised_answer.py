"""An answer revised after it streamed is shown revised everywhere (issue 10).

The 1.5B model streamed "The documents do not contain ..." for a question whose answer was
in a passage graded relevant; the second look found it, and the turn kept the second answer.
The CLI and the web UI still showed the streamed abstention, while the stored turn, the
``done`` event and the evaluation had the kept answer. A ``replace`` event now carries it.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, steps

from archivist.agent.service import collect_turn
from archivist.app.cli import agent as cli_agent
from archivist.app.ui.render import ChatTurn
from archivist.testing import CallInfo, ScriptedChatModel

KEPT = "Install it with `sudo apt install postgresql` [postgres-guide.md]."
STREAMED = "The documents do not contain how to install PostgreSQL."


def _abstain_first(messages: list[BaseMessage], info: CallInfo) -> str | None:
    if info.schema is not None or info.tools:
        return None
    return KEPT if "judged relevant" in str(messages[0].content) else STREAMED


def _revised_turn(make_service) -> list:
    events, _service = _revised_turn_and_service(make_service)
    return events


def _revised_turn_and_service(make_service) -> tuple[list, object]:
    service = make_service(ScriptedChatModel(rules=[_abstain_first]), strategy="pipeline")
    events = run(service, "How do I install PostgreSQL?")
    assert steps(events, "second_look")
    streamed = "".join(e.data["text"] for e in events if e.type == "token")
    assert streamed.strip() == STREAMED  # what the user saw arrive
    return events, service


def test_the_kept_answer_replaces_what_streamed(make_service) -> None:
    events = _revised_turn(make_service)
    (replace,) = [e for e in events if e.type == "replace"]
    assert replace.data["text"] == done(events)["answer"] == KEPT
    types = [e.type for e in events]
    assert types.index("replace") > max(i for i, t in enumerate(types) if t == "token")
    assert types.index("replace") < types.index("sources")
    assert collect_turn(iter(events)).answer == KEPT
    assert cli_agent.turn_json(iter(events))["answer"] == KEPT


def test_an_answer_kept_as_streamed_has_no_replace_event(make_service) -> None:
    def answers(_m: list[BaseMessage], info: CallInfo) -> str | None:
        return None if info.schema is not None or info.tools else KEPT

    events = run(make_service(ScriptedChatModel(rules=[answers]), strategy="pipeline"),
                 "How do I install PostgreSQL?")
    assert any(e.type == "token" for e in events)
    assert not [e for e in events if e.type == "replace"]
    assert done(events)["answer"] == KEPT


def test_the_cli_the_ui_and_the_stored_turn_show_the_kept_answer(
    make_service, capsys
) -> None:
    events, service = _revised_turn_and_service(make_service)
    cli_agent.render(iter(events))
    printed = capsys.readouterr().out
    assert printed.index("Revised answer") < printed.index("sudo apt install postgresql")
    assert printed.index(STREAMED) < printed.index("Revised answer")

    turn = ChatTurn([], "How do I install PostgreSQL?", 1)
    for event in events:
        turn.apply(event)
    shown = turn.messages()[-1]["content"]
    assert "sudo apt install postgresql" in shown and "do not contain" not in shown

    (stored,) = service.turns.turns(done(events)["thread_id"])  # the service recorded it
    assert stored.answer == KEPT
