"""An analysis reply cut at its token cap, or unparseable, still answers the question.

The scripted model stands in for a model that loops inside the analysis JSON until its
cap (the reply's ``finish_reason`` is ``length``); the profile is capable (no review).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from tests.agent.helpers import done, run, steps

from archivist.agent.state import QuestionAnalysis
from archivist.testing import CallInfo, ScriptedChatModel

QUESTION = "How do I install PostgreSQL?"


def cut_analysis(args: str, *, cut: bool = True):
    """A rule giving every analysis call a tool call whose JSON stops at ``args``' end."""
    def rule(_m: list[BaseMessage], info: CallInfo) -> AIMessage | None:
        if info.schema is not QuestionAnalysis:
            return None
        return AIMessage(
            content="", invalid_tool_calls=[{
                "name": "QuestionAnalysis", "args": args, "id": "cut",
                "error": "Unterminated string", "type": "invalid_tool_call"}],
            response_metadata={"finish_reason": "length" if cut else "stop"})
    return rule


def analysis_calls(llm: ScriptedChatModel) -> int:
    return [c.schema for c in llm.calls].count("QuestionAnalysis")


def test_a_cut_analysis_keeps_its_finished_fields_and_is_not_asked_again(service_for) -> None:
    looping = ('{"route": "documents", "direct_reply": "", "is_clear": true, '
               '"clarification_question": "", "sub_questions": ["How do I install '
               + "PostgreSQL, PostgreSQL, " * 60)
    llm = ScriptedChatModel(rules=[cut_analysis(looping)])
    events = run(service_for(llm), QUESTION)

    assert analysis_calls(llm) == 1  # the same prompt under the same cap loops again
    (salvaged,) = steps(events, "analysis_salvaged")
    assert "token cap" in salvaged["detail"] and "route" in salvaged["detail"]
    assert not steps(events, "analysis_retry") and not steps(events, "analysis_fallback")
    # the unfinished sub-question is not used: the question is searched as asked
    assert [s["detail"] for s in steps(events, "search")] == [QUESTION]
    assert not steps(events, "sub_questions")
    assert done(events)["status"] == "answered"
    assert "apt install postgresql" in done(events)["answer"]


def test_a_cut_analysis_never_asks_back(service_for) -> None:
    looping = ('{"route": "documents", "direct_reply": "", "is_clear": false, '
               '"clarification_question": "Which one do you mean? ' + "Which one? " * 80)
    llm = ScriptedChatModel(rules=[cut_analysis(looping)])
    events = run(service_for(llm), QUESTION)

    assert analysis_calls(llm) == 1
    assert not [e for e in events if e.type == "clarification"]
    assert done(events)["status"] == "answered"
    assert [s["detail"] for s in steps(events, "search")] == [QUESTION]


def test_a_cut_analysis_with_nothing_finished_falls_back_at_once(service_for) -> None:
    llm = ScriptedChatModel(rules=[cut_analysis('{"rou')])
    events = run(service_for(llm), QUESTION)

    assert analysis_calls(llm) == 1
    (fallback,) = steps(events, "analysis_fallback")
    assert "token cap" in fallback["detail"] and "unsplit" in fallback["detail"]
    assert [s["detail"] for s in steps(events, "search")] == [QUESTION]
    assert done(events)["status"] == "answered"


def test_a_finished_split_is_kept_from_a_reply_that_did_not_parse(service_for) -> None:
    # not cut: asked once more with the error shown; the second reply's finished fields
    # (a route the schema does not know is not one of them) are used
    broken = ('{"route": "everywhere", "sub_questions": ["How do I install PostgreSQL on '
              'Debian?"], "is_clear": tru')
    llm = ScriptedChatModel(rules=[cut_analysis(broken, cut=False)])
    events = run(service_for(llm), QUESTION)

    assert analysis_calls(llm) == 2
    assert steps(events, "analysis_retry") and steps(events, "analysis_salvaged")
    salvaged: dict[str, Any] = steps(events, "analysis_salvaged")[0]
    assert "sub_questions" in salvaged["detail"] and "route" not in salvaged["detail"].split(
        "kept", 1)[1]
    assert [s["detail"] for s in steps(events, "search")] == [
        "How do I install PostgreSQL on Debian?"]
    assert done(events)["status"] == "answered"
