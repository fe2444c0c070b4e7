"""The policy in whole agent runs: a small model's plain question takes one search and one
writing call; a capable model's analysis is used as it is; the answer streams once, after
every check. Only the LLM is scripted; library, embedder and search are real."""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps, verifier_says

from archivist.agent.prompts import ABSTAIN_PREFIX, abstains
from archivist.agent.state import QuestionAnalysis, RelevanceGrades
from archivist.testing import CallInfo, ScriptedChatModel


def abstain_first(messages: list[BaseMessage], info: CallInfo) -> str | None:
    """A writer that abstains, then answers when asked to look again (as the 1.5B did)."""
    if info.schema is not None or info.tools:
        return None
    if "judged relevant" in str(messages[-1].content):
        return "Install it with `sudo apt install postgresql` [1]."  # units are cited by number
    return "The documents do not contain how to install PostgreSQL."


def test_a_plain_question_on_a_small_model_takes_one_llm_call(make_service) -> None:
    llm = ScriptedChatModel()
    events = run(make_service(llm, policy="small", strategy="pipeline"),
                 "How do I install PostgreSQL?")
    assert len(llm.calls) == 1 and not llm.calls[0].schema  # the writing call, nothing else
    (depth,) = steps(events, "depth")
    assert depth["detail"] == "single" and "no analysis call" in depth["reason"]
    assert steps(events, "gate") and not steps(events, "grade")
    assert "apt install postgresql" in done(events)["answer"]
    assert source_names(events) == ["postgres-guide.md"]


def test_a_small_model_abstains_with_no_call_when_nothing_passes_the_gate(make_service) -> None:
    llm = ScriptedChatModel()
    events = run(make_service(llm, policy="small", strategy="pipeline"),
                 "What is the boiling point of mercury?")
    assert abstains(done(events)["answer"]) and source_names(events) == []
    assert llm.calls == []


def test_a_small_model_still_asks_the_model_when_history_needs_it(make_service) -> None:
    llm = ScriptedChatModel()
    service = make_service(llm, policy="small", strategy="pipeline")
    first = run(service, "How do I install PostgreSQL?")
    calls = len(llm.calls)
    run(service, "And how do I update it?", done(first)["thread_id"])
    assert llm.calls[calls].schema == "QuestionAnalysis"


def test_a_capable_models_analysis_and_grades_are_used_as_they_are(make_service) -> None:
    def split_and_keep_all(messages: list[BaseMessage], info: CallInfo):
        if info.schema is QuestionAnalysis:
            return QuestionAnalysis(sub_questions=["How do I install PostgreSQL on Debian?",
                                                   "What does the package create?"])
        if info.schema is RelevanceGrades:
            return RelevanceGrades(relevant=["P1"])
        return None

    llm = ScriptedChatModel(rules=[split_and_keep_all])
    events = run(make_service(llm, strategy="pipeline"),
                 "How do I install PostgreSQL, and what does the package create?")
    # a capable model's split of a question with two asks stands, uncorrected
    assert not steps(events, "no_split") and len(steps(events, "sub_questions")) == 1
    assert steps(events, "depth")[0]["detail"] == "multi"
    assert not steps(events, "gate") and steps(events, "grade")


def test_a_capable_model_does_not_split_a_one_part_question(make_service) -> None:
    def split(messages: list[BaseMessage], info: CallInfo):
        if info.schema is QuestionAnalysis:
            return QuestionAnalysis(sub_questions=["What is PostgreSQL?",
                                                   "How do I install PostgreSQL?"])
        return None

    llm = ScriptedChatModel(rules=[split])
    events = run(make_service(llm, strategy="pipeline"), "How do I install PostgreSQL?")
    assert steps(events, "no_split") and not steps(events, "sub_questions")
    assert "apt install postgresql" in done(events)["answer"]


def test_the_answer_streams_once_after_every_step(make_service) -> None:
    events = run(make_service(ScriptedChatModel(rules=[abstain_first]), policy="small",
                              strategy="pipeline"), "How do I install PostgreSQL?")
    types = [e.type for e in events]
    assert steps(events, "second_look") and "replace" not in types
    tokens = [e.data["text"] for e in events if e.type == "token"]
    assert "".join(tokens) == done(events)["answer"] and len(tokens) > 3
    assert not abstains("".join(tokens))  # the first, abstaining text never streamed
    first_token = types.index("token")
    assert "step" not in types[first_token:]
    assert types[first_token:] == ["token"] * len(tokens) + ["sources", "stats", "done"]


def test_the_second_look_continues_the_writing_call(make_service) -> None:
    # the same system prompt and passages first, so the server's prompt cache holds them
    llm = ScriptedChatModel(rules=[abstain_first])
    run(make_service(llm, policy="small", strategy="pipeline"), "How do I install PostgreSQL?")
    write, look = llm.calls
    assert look.messages[: len(write.messages)] == write.messages
    assert look.messages[len(write.messages)].content.startswith("The documents do not")


def test_only_a_capable_writer_is_offered_the_way_out(make_service) -> None:
    # a small model abstained over the sentence that answered: the claim check abstains
    # for it instead; a capable model may still say the documents lack the answer
    for policy, offered in (("small", False), ("capable", True)):
        llm = ScriptedChatModel()
        run(make_service(llm, policy=policy, strategy="pipeline"), "How do I install PostgreSQL?")
        (writer,) = [c for c in llm.calls if not c.schema and not c.tools]
        assert (ABSTAIN_PREFIX in str(writer.messages[0].content)) is offered, policy


def test_the_verify_claims_setting_puts_each_checked_sentence_to_the_model(
        make_service) -> None:
    asked: list[str] = []
    vetoing = ScriptedChatModel(rules=[verifier_says("No.", asked)])
    events = run(make_service(vetoing, policy="small", strategy="pipeline", verify_claims=True),
                 "How do I install PostgreSQL?")
    assert asked and "apt install postgresql" in asked[0]
    assert abstains(done(events)["answer"])  # its one sentence vetoed: nothing left to show
    assert any("the model found" in s["detail"] for s in steps(events, "claims"))

    asked.clear()
    agreeing = ScriptedChatModel(rules=[verifier_says("Yes", asked)])
    events = run(make_service(agreeing, policy="small", strategy="pipeline", verify_claims=True),
                 "How do I install PostgreSQL?")
    assert asked and "apt install postgresql" in done(events)["answer"]

    asked.clear()
    unasked = ScriptedChatModel(rules=[verifier_says("No", asked)])
    events = run(make_service(unasked, policy="small", strategy="pipeline"),
                 "How do I install PostgreSQL?")
    assert asked == [] and "apt install postgresql" in done(events)["answer"]

