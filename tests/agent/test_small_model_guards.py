"""Small-model checks in a whole agent run, each scripted to fail the way a real small
model did (the checks themselves, as pure functions: tests/unit/agent/test_policy_*.py).

- it split a one-part question ("How do I install PostgreSQL?") into three sub-questions;
- its grader kept an unrelated footnote for "What is the capital of Veldoria?" and the
  answer came with confidence high;
- its grader kept 1 of 6 passages for a figure held in a table further down the same
  section, and the pipeline, reading 500-character children only, abstained.

``REVIEWED`` is the small-model policy with its analysis and grading calls kept (plan and
gate by code off), so the review of what those calls return is exercised; ``SMALL`` is
the policy a small model gets. Only the LLM is scripted; the library, embedder and search
are real.
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps

from archivist.agent.answer.confidence import HIGH, MEDIUM, confidence
from archivist.agent.policy import SMALL
from archivist.agent.prompts import abstains
from archivist.agent.state import Evidence, QuestionAnalysis, RelevanceGrades
from archivist.application import Application
from archivist.testing import CallInfo, ScriptedChatModel

REVIEWED = replace(SMALL, plan_in_code=False, score_gate=False)


def _evidence(text: str, document: str = "atlas.md", parent: str = "p1") -> Evidence:
    return Evidence(kind="hit", parent_id=parent, document_id="d1", document_name=document,
                    pages="", page_start=None, page_end=None, sub_question=0, text=text,
                    grade="relevant")


def test_confidence_is_never_high_when_the_evidence_misses_a_subject() -> None:
    passages = [_evidence("Dunmore is the capital of Ostland.", parent="p1"),
                _evidence("The Northern Capital District holds Dunmore.", parent="p2")]
    answer = "Dunmore [atlas.md]"
    assert confidence(answer, passages, [0], on_subject=True) == HIGH
    assert confidence(answer, passages, [0], on_subject=False) == MEDIUM


def _split_in_three(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is QuestionAnalysis:
        return QuestionAnalysis(sub_questions=[
            "What is PostgreSQL?", "What is Debian?", "How do I install a package?"])
    return None


def test_a_one_part_question_is_not_split(make_service) -> None:
    llm = ScriptedChatModel(rules=[_split_in_three])
    events = run(make_service(llm, checks=REVIEWED), "How do I install PostgreSQL?")
    assert steps(events, "no_split") and not steps(events, "sub_questions")
    research = [c for c in llm.calls if "search_documents" in c.tools]
    assert len(research) == 1 and "Question: How do I install PostgreSQL?" in research[0].text
    assert "apt install postgresql" in done(events)["answer"]


def test_a_compound_question_is_still_split(make_service) -> None:
    def split(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema is QuestionAnalysis:
            return QuestionAnalysis(sub_questions=["What is JavaScript?", "What is Python?"])
        return None

    events = run(make_service(ScriptedChatModel(rules=[split]), checks=REVIEWED),
                 "What are JavaScript and Python?")
    assert not steps(events, "no_split")
    assert steps(events, "sub_questions")[0]["items"] == ["What is JavaScript?", "What is Python?"]


def _keep_everything(messages: list[BaseMessage], info: CallInfo) -> RelevanceGrades | None:
    if info.schema is RelevanceGrades:
        ids = re.findall(r'<passage id="(P\d+)"', "\n".join(str(m.content) for m in messages))
        return RelevanceGrades(relevant=ids)
    return None


def test_passages_off_the_subject_end_in_an_abstention_on_every_profile(make_service) -> None:
    # a grader that keeps anything: the answer is written, and the decision abstains
    # because no unit names what the question asks about, whatever the model's size
    for checks in (REVIEWED, None):
        llm = ScriptedChatModel(rules=[_keep_everything])
        service = make_service(llm, checks=checks) if checks else make_service(llm)
        events = run(service, "What is the capital of Veldoria?")
        answer = done(events)["answer"]
        assert abstains(answer), answer
        (sources,) = [e.data for e in events if e.type == "sources"]
        assert sources["sources"] == [] and sources["confidence"] == "low"
        decisions = steps(events, "decision")
        assert all(d["outcome"] == "abstain" and d["addressing"] == 0.0 for d in decisions)


SECTION = """# Annual report

## Streaming memberships

Our members can watch as much as they want, anytime, anywhere, on any internet-connected
screen. Paid memberships are memberships that have made at least one payment; free trials
are not paid memberships. We report memberships at the end of each period, by segment.
""" + "".join(
    f"Segment note {n}: the segment's revenue per member depends on the plan mix, price "
    f"changes and foreign exchange in region {n}, reported each quarter.\n" for n in range(12)
) + """
Domestic streaming paid memberships at end of period: 41,275 thousand.
"""


def test_the_pipeline_reads_the_whole_section_of_a_kept_passage(
    make_service, library: Application
) -> None:
    library.ingest.texts([("report.md", SECTION)])
    (parent,) = library.store.parents_of(library.store.documents()[0].document_id)
    assert "41,275" in parent.text and len(library.store.children_of(parent.document_id)) > 2

    def strict_grader(messages: list[BaseMessage], info: CallInfo) -> RelevanceGrades | None:
        # keeps only the prose passage, like the 1.5B model keeping 1 of 6
        if info.schema is not RelevanceGrades:
            return None
        text = "\n".join(str(m.content) for m in messages)
        blocks = re.findall(r'<passage id="(P\d+)"[^>]*>(.*?)</passage>', text, re.S)
        return RelevanceGrades(relevant=[i for i, body in blocks if "free trials" in body][:1])

    llm = ScriptedChatModel(rules=[strict_grader])
    question = "How many domestic paid memberships were there at the end of the period?"
    service = make_service(llm, library=library, strategy="pipeline", checks=REVIEWED)
    events = run(service, question)
    (read,) = steps(events, "read_parent")
    assert read["detail"] == parent.parent_id
    (write_call,) = [c for c in llm.calls if not c.schema]
    assert "41,275" in write_call.text  # the figure further down the section was shown
    assert "41,275" in done(events)["answer"]
    assert source_names(events) == ["report.md"]


def test_the_writer_reads_the_question_after_the_passages(make_service) -> None:
    # the 1.5B model abstained over a passage holding the answer when the question came
    # before the passages, and answered from it when the question came after them
    llm = ScriptedChatModel()
    question = "How do I install PostgreSQL?"
    events = run(make_service(llm, strategy="pipeline", policy="small"), question)
    (write_call,) = [c for c in llm.calls if not c.schema]
    assert "</passage>" in write_call.text
    assert write_call.text.rindex("</passage>") < write_call.text.rindex(f"Question: {question}")
    assert done(events)["status"] == "answered"


def test_the_pipeline_reads_no_parents_when_switched_off(
    make_service, library: Application
) -> None:
    library.ingest.texts([("report.md", SECTION)])
    llm = ScriptedChatModel()
    service = make_service(llm, library=library, strategy="pipeline", pipeline_read_chars=0,
                           policy="small")
    events = run(service, "What are paid memberships?")
    assert not steps(events, "read_parent")


def _always_unclear(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is QuestionAnalysis:
        return QuestionAnalysis(is_clear=False, clarification_question="What is PostgreSQL?")
    return None


def test_a_question_that_names_everything_is_not_asked_back(make_service) -> None:
    # the 1.5B model asked "What is Brightwave?" back for a question naming Brightwave
    events = run(make_service(ScriptedChatModel(rules=[_always_unclear]), checks=REVIEWED),
                 "How do I install PostgreSQL?")
    assert steps(events, "clear") and done(events)["status"] == "answered"
    assert "apt install postgresql" in done(events)["answer"]
    # a question with a reference to resolve is still asked back
    vague = run(make_service(ScriptedChatModel(rules=[_always_unclear]), checks=REVIEWED),
                "How do I install it?")
    assert done(vague)["status"] == "clarification"


def _route_direct(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is QuestionAnalysis:  # what the 0.5B model did for a tea question
        return QuestionAnalysis(route="direct", direct_reply="About 100°F.")
    return None


def test_a_real_question_routed_direct_is_searched(make_service) -> None:
    llm = ScriptedChatModel(rules=[_route_direct])
    events = run(make_service(llm, checks=REVIEWED), "How do I install PostgreSQL?")
    assert [s["detail"] for s in steps(events, "route")] == ["documents"]
    assert steps(events, "search") and "100" not in done(events)["answer"]
    assert "apt install postgresql" in done(events)["answer"]
    # greetings and talk about the assistant still get the direct reply, with no search
    greeting = run(make_service(ScriptedChatModel(rules=[_route_direct]), checks=REVIEWED),
                   "Hi there!")
    assert not steps(greeting, "search") and done(greeting)["answer"] == "About 100°F."


def _abstain_first(messages: list[BaseMessage], info: CallInfo) -> str | None:
    # like the 1.5B with "Net sales of $8,412 million" in its second passage: abstains on
    # the first reading, finds the line when asked to look for it
    if info.schema is not None or info.tools:
        return None
    if "judged relevant" in str(messages[-1].content):
        return "Install it with `sudo apt install postgresql` [1]."
    return "The documents do not contain how to install PostgreSQL."


def test_an_abstention_despite_relevant_passages_gets_a_second_look(make_service) -> None:
    llm = ScriptedChatModel(rules=[_abstain_first])
    events = run(make_service(llm, strategy="pipeline", policy="small"),
                 "How do I install PostgreSQL?")
    assert steps(events, "second_look")
    assert "apt install postgresql" in done(events)["answer"]
    assert set(source_names(events)) == {"postgres-guide.md"}
    # switched off, the abstention stands
    off = run(make_service(ScriptedChatModel(rules=[_abstain_first]), strategy="pipeline",
                           second_look=False, policy="small"), "How do I install PostgreSQL?")
    assert not steps(off, "second_look") and abstains(done(off)["answer"])


def _cite_only_first(messages: list[BaseMessage], info: CallInfo) -> str | None:
    # like the 1.5B over the memberships row: a citation and nothing else on first reading
    if info.schema is not None or info.tools:
        return None
    if "judged relevant" in str(messages[-1].content):
        return "Install it with `sudo apt install postgresql` [postgres-guide.md]."
    return "[postgres-guide.md]"


def test_an_answer_that_is_only_a_citation_gets_a_second_look(make_service) -> None:
    events = run(make_service(ScriptedChatModel(rules=[_cite_only_first]),
                              strategy="pipeline", policy="small"),
                 "How do I install PostgreSQL?")
    (look,) = steps(events, "second_look")
    assert "only a citation" in look["detail"]
    assert "apt install postgresql" in done(events)["answer"]


def test_each_part_of_a_split_question_names_its_subject(make_service) -> None:
    def split(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema is QuestionAnalysis:  # the 1.5B dropped "Amcor" from the second part
            return QuestionAnalysis(sub_questions=["How do I install PostgreSQL?",
                                                   "How do I update to a major version?"])
        return None

    events = run(make_service(ScriptedChatModel(rules=[split]), policy="small"),
                 "How do I install PostgreSQL, and how do I update to a major version?")
    assert steps(events, "sub_questions")[0]["items"] == [
        "How do I install PostgreSQL?", "How do I update to a major version? (PostgreSQL)"]
    searched = [s["detail"] for s in steps(events, "search")]
    assert "How do I update to a major version? (PostgreSQL)" in searched


def _rewrites_to_what_is(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is QuestionAnalysis:
        return QuestionAnalysis(sub_questions=["What is PostgreSQL?"])
    return None


def test_a_rewrite_that_loses_the_question_is_dropped(make_service) -> None:
    # the 1.5B model rewrote a question about Netflix's 2017 memberships to "What is Netflix?"
    question = "How do I update a PostgreSQL cluster to a new major version?"
    service = make_service(ScriptedChatModel(rules=[_rewrites_to_what_is]), checks=REVIEWED)
    events = run(service, question)
    assert steps(events, "rewrite_dropped") and not steps(events, "rewrite")
    assert [s["detail"] for s in steps(events, "search")][0] == question
    assert done(events)["status"] == "answered" and source_names(events) == ["postgres-guide.md"]


def test_a_dangling_pronoun_opening_a_conversation_is_asked_back(make_service) -> None:
    # the model calls it clear (the scripted default); nothing earlier names "it"
    events = run(make_service(ScriptedChatModel(), policy="small"),
                 "How much did it grow last year?")
    assert done(events)["status"] == "clarification"
    (asked,) = [e.data for e in events if e.type == "clarification"]
    assert '"it"' in asked["question"] and not steps(events, "search")


ANNUAL = """# Annual report

## Results

Revenues were $11,692 million in 2017, against $8,830 million in 2016 and $6,780 million
in 2015, driven by growth in paid memberships.
"""


def _invent_a_figure(messages: list[BaseMessage], info: CallInfo) -> str | None:
    # like the 1.5B asked for 2019 over a 2017 10-K's tables: a figure from nowhere
    if info.schema is not None or info.tools:
        return None
    return "Revenues were $12,000,000 [1]."


def test_a_year_no_passage_names_is_not_answered(make_service, library: Application) -> None:
    library.ingest.texts([("annual.md", ANNUAL)])
    writes: list[str] = []

    def invent(messages: list[BaseMessage], info: CallInfo) -> str | None:
        reply = _invent_a_figure(messages, info)
        if reply is not None:
            writes.append(reply)
        return reply

    asked = run(make_service(ScriptedChatModel(rules=[invent]), library=library,
                             strategy="pipeline", policy="small"),
                "What were the annual revenues in 2019?")
    (step,) = steps(asked, "years_not_covered")
    assert "2019" in step["detail"] and "2015-2017" in step["detail"]
    assert not writes and "not asked of the model" in step["detail"]  # checked before writing
    answer = done(asked)["answer"]
    assert abstains(answer) and "12,000,000" not in answer and "2015-2017" in answer
    covered = run(make_service(ScriptedChatModel(rules=[_invent_a_figure]), library=library,
                               strategy="pipeline", policy="small"),
                  "What were the annual revenues in 2017?")
    assert not steps(covered, "years_not_covered")
    # the year check passes it; the claim check does not: no passage states 12,000,000
    (claims,) = steps(covered, "claims")
    assert claims["detail"].startswith("0 of 1 sentences supported")
    assert abstains(done(covered)["answer"]) and "12,000,000" not in done(covered)["answer"]
