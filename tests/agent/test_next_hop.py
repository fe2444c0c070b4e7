"""IRCoT-style next hop: the grader reads the first passages and proposes the next search."""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, steps

from archivist.agent.state import RelevanceGrades
from archivist.testing import CallInfo, ScriptedChatModel

HOP = "pg_upgradecluster major version backup"


def grader_with_hop(hop: str):
    graded: list[int] = []

    def rule(messages: list[BaseMessage], info: CallInfo) -> RelevanceGrades | None:
        if info.schema is not RelevanceGrades:
            return None
        graded.append(info.index)
        return RelevanceGrades(relevant=["P1"], next_query=hop if len(graded) == 1 else "")

    return rule


def test_the_next_hop_the_grader_proposes_is_searched_in_both_strategies(make_service) -> None:
    for strategy in ("pipeline", "tools"):
        llm = ScriptedChatModel(rules=[grader_with_hop(HOP)])
        events = run(make_service(llm, strategy=strategy), "How do I install PostgreSQL?")
        searches = [s["detail"] for s in steps(events, "search")]
        assert searches[:2] == ["How do I install PostgreSQL?", HOP], strategy
        assert [s["detail"] for s in steps(events, "next_hop")] == [HOP]
        assert done(events)["answer"]


def test_no_next_hop_when_the_grader_proposes_none_or_a_repeat(make_service) -> None:
    # the 1.5B grader restated the question as its "next hop"
    for hop in ("", "how do i install postgresql?",
                "How do I install PostgreSQL? (from the passage about Debian)"):
        llm = ScriptedChatModel(rules=[grader_with_hop(hop)])
        events = run(make_service(llm, strategy="pipeline"), "How do I install PostgreSQL?")
        assert steps(events, "next_hop") == []
        assert [s["detail"] for s in steps(events, "search")] == ["How do I install PostgreSQL?"]
