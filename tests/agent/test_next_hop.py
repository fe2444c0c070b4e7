"""IRCoT-style next hop: the grader reads the first passages and proposes the next search."""

from __future__ import annotations

from tests.agent.helpers import done, grader_with_hop, run, steps

from archivist.testing import ScriptedChatModel

HOP = "pg_upgradecluster major version backup"


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
