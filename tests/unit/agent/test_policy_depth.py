"""Depth by code: which questions a small model plans with no analysis call."""

from __future__ import annotations

from archivist.agent.policy import CAPABLE, SMALL, policy_for
from archivist.agent.policy.depth import Depth, depth_of, plan_without_model
from archivist.agent.policy.question import Asked
from archivist.llm.capabilities import ModelProfile


def test_a_plain_fresh_question_needs_no_analysis_call() -> None:
    question = "How does Archivist stay consistent if it is killed during an ingest?"
    plan = plan_without_model(Asked(question=question))
    assert plan is not None and plan.sub_questions == [question]
    assert depth_of(plan, question) == Depth.SINGLE


def test_small_talk_parts_and_dangling_references_are_planned_in_code() -> None:
    hello = plan_without_model(Asked(question="Hello!"))
    assert hello is not None and depth_of(hello, "Hello!") == Depth.DIRECT
    vague = plan_without_model(Asked(question="How much did it grow last year?"))
    assert vague is not None and '"it"' in vague.clarification
    two = "How do I install PostgreSQL? What is JavaScript?"
    parts = plan_without_model(Asked(question=two))
    assert parts is not None and parts.sub_questions == [
        "How do I install PostgreSQL?", "What is JavaScript?"]
    assert depth_of(parts, two) == Depth.MULTI


def test_history_clarifications_and_joined_parts_need_the_model() -> None:
    assert plan_without_model(Asked(question="And in 2016?", fresh=False)) is None
    assert plan_without_model(Asked(question="Install (clarification: on Debian)",
                                    rounds=1)) is None
    assert plan_without_model(Asked(question="What are JavaScript and Python?")) is None


def test_the_policy_follows_the_profile() -> None:
    assert policy_for(ModelProfile(size="small")) == SMALL
    assert policy_for(ModelProfile()) == CAPABLE
    assert not any(value for key, value in CAPABLE.__dict__.items()
                   if key not in ("name", "unit_tokens", "document_answer_tokens",
                                  "recite_unsupported", "prune_citations",
                                  "search_support", "bridge_citations"))
    # mending where a citation points never changes what an answer says: every profile
    assert CAPABLE.recite_unsupported and SMALL.recite_unsupported
    assert CAPABLE.bridge_citations and SMALL.bridge_citations
    assert CAPABLE.prune_citations and SMALL.prune_citations
    assert SMALL.unit_tokens < 1000 < CAPABLE.unit_tokens  # what the writer reads
    assert SMALL.document_answer_tokens < CAPABLE.document_answer_tokens
    assert SMALL.document_read_tokens and not CAPABLE.document_read_tokens  # 0: no limit
    assert not policy_for(ModelProfile(size="small"), second_look=False).second_look
