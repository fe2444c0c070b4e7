"""Depth by code: which questions a small model plans with no analysis call."""

from __future__ import annotations

from dataclasses import fields
from typing import get_args

import pytest
from pydantic import ValidationError

from archivist.agent.answer import STEPS
from archivist.agent.policy import ANSWER_STEPS, CAPABLE, SMALL, Policy, policy_for
from archivist.agent.question.analysis import Asked, review
from archivist.agent.question.depth import Depth, depth_of, plan_without_model
from archivist.agent.state import QuestionAnalysis
from archivist.llm.capabilities import ModelProfile
from archivist.settings.agent import AgentSettings, CheckName


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
    flags = [f.name for f in fields(Policy) if f.type in ("bool", bool)]
    assert len(flags) <= 10  # the policy is a few switches and the answer stage as data
    assert not any(getattr(CAPABLE, flag) for flag in flags)  # a capable model: no crutches
    # mending where a citation points never changes what an answer says: every profile
    for step in ("recite_unsupported", "prune_citations"):
        assert step in CAPABLE.answer_steps and step in SMALL.answer_steps
    assert len(CAPABLE.answer_steps) < len(SMALL.answer_steps)
    assert set(SMALL.answer_steps) <= set(STEPS)
    assert SMALL.budgets.unit_tokens < 1000 < CAPABLE.budgets.unit_tokens  # the writer reads
    assert SMALL.budgets.document_answer_tokens < CAPABLE.budgets.document_answer_tokens
    assert SMALL.budgets.document_read_tokens and not CAPABLE.budgets.document_read_tokens
    assert not policy_for(ModelProfile(size="small"), second_look=False).second_look
    assert policy_for(ModelProfile(), verify_claims=True).answer_steps[-1] == "verify"


def test_disabled_checks_turn_off_named_checks_and_answer_steps() -> None:
    small = policy_for(ModelProfile(size="small"),
                       disabled=["bridge_hop", "prune_citations"])
    assert not small.bridge_hop and SMALL.bridge_hop
    assert "prune_citations" not in small.answer_steps
    assert small.score_gate and "recite_unsupported" in small.answer_steps  # the rest stays
    with pytest.raises(ValueError, match="bridge_hops"):
        policy_for(ModelProfile(size="small"), disabled=["bridge_hops"])


def test_the_setting_names_exactly_the_checks_and_the_answer_steps() -> None:
    checks = {f.name for f in fields(Policy) if f.type in ("bool", bool)}
    assert set(get_args(CheckName)) == checks | set(ANSWER_STEPS)
    assert set(ANSWER_STEPS) == set(STEPS)
    assert AgentSettings(disabled_checks="bridge_hop+verify").disabled_checks == [
        "bridge_hop", "verify"]
    with pytest.raises(ValidationError):
        AgentSettings(disabled_checks=["no_such_check"])


def test_one_figure_over_what_a_question_joins_is_researched_whole() -> None:
    for question in ("What were the combined 2022 sales of the Alder and Birch divisions?",
                     "Which was Kestrel's largest cost in 2021: rent, wages, or freight?",
                     "Which Kestrel division earned more in 2022, and how much?",
                     "In kestrel_results.xlsx, what are the Q1 and Q2 sales added together?"):
        plan = plan_without_model(Asked(question=question))
        assert plan is not None and plan.sub_questions == [question], question
        joined = " and " in question or ", and" in question  # else never split anyway
        assert not joined or "no_split" in [kind for kind, _, _ in plan.steps], question
    # two things asked, no figure over them: still the model's to split
    assert plan_without_model(Asked(question="What were Kestrel's revenues and net income?")) \
        is None


def test_a_small_models_split_of_one_figure_is_undone() -> None:
    question = "Which Kestrel division earned more in 2022, and how much?"
    split = QuestionAnalysis(sub_questions=["Which Kestrel division earned more in 2022?",
                                            "How much?"])
    plan = review(Asked(question=question, fresh=False), split, checks=True)
    assert plan.sub_questions == [question]
    assert "no_split" in [kind for kind, _, _ in plan.steps]
    assert review(Asked(question=question), split, checks=False).sub_questions == \
        split.sub_questions
