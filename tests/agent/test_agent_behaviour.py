"""The agent's behaviours, end to end over a real library; only the LLM is scripted."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, ToolMessage
from tests.agent.helpers import done, run, source_names, steps, unit_number

from archivist.agent.state import QuestionAnalysis
from archivist.application import Application
from archivist.events import Source
from archivist.testing import CallInfo, ScriptedChatModel, tool_call


def is_research(info: CallInfo) -> bool:
    return "search_documents" in info.tools


def test_simple_question_streams_a_cited_answer_in_at_most_four_calls(make_service) -> None:
    llm = ScriptedChatModel()
    events = run(make_service(llm), "How do I install PostgreSQL?")

    kinds = [e.type for e in events]
    assert kinds[-3:] == ["sources", "stats", "done"]
    assert "token" in kinds and kinds.index("token") < kinds.index("sources")
    answer = done(events)["answer"]
    assert "".join(e.data["text"] for e in events if e.type == "token") == answer
    assert "apt install postgresql" in answer
    assert source_names(events) == ["postgres-guide.md"]
    stats = next(e.data for e in events if e.type == "stats")
    # analysis, grading, the research step (the model replies DONE), the writer
    assert stats["llm_calls"] == len(llm.calls) <= 4
    assert stats["searches"] >= 1 and set(stats["stages"]) >= {"analysis", "research", "answer"}


def test_follow_up_is_rewritten_with_the_conversation(make_service) -> None:
    def analyze(messages: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        prompt = "\n".join(str(m.content) for m in messages)
        if info.schema and info.question == "How do I update it?" and "PostgreSQL" in prompt:
            return QuestionAnalysis(sub_questions=["How do I update PostgreSQL?"])
        return None

    llm = ScriptedChatModel(rules=[analyze])
    service = make_service(llm)
    first = run(service, "How do I install PostgreSQL?")
    second = run(service, "How do I update it?", done(first)["thread_id"])

    searches = [s["detail"] for s in steps(second, "search")]
    assert searches and "PostgreSQL" in searches[0]
    assert steps(second, "rewrite")[0]["original"] == "How do I update it?"
    assert "pg_upgradecluster" in done(second)["answer"] or "upgrade" in done(second)["answer"]


def clarifying_analyzer(messages: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    """Unclear until the user names Python; a clarification that is a question is taken alone."""
    if info.schema is None:
        return None
    question = info.question
    if "clarification: How do I install PostgreSQL?" in question:
        return QuestionAnalysis(sub_questions=["How do I install PostgreSQL?"])
    if "clarification:" in question and "Python" in question:
        return QuestionAnalysis(sub_questions=["What is Python, the thing the user asked about?"])
    if "that thing" in question:
        return QuestionAnalysis(is_clear=False, clarification_question="Which thing do you mean?")
    return None


def test_clarification_pauses_and_the_reply_resumes_the_same_thread(make_service) -> None:
    llm = ScriptedChatModel(rules=[clarifying_analyzer])
    service = make_service(llm)
    first = run(service, "Tell me about that thing")
    assert [e.type for e in first if e.type != "step"] == ["clarification", "done"]
    assert [e for e in first if e.type == "clarification"][0].data["question"] == (
        "Which thing do you mean?"
    )
    thread = done(first)["thread_id"]
    assert done(first)["status"] == "clarification"
    assert service.pending_clarification(thread) == "Which thing do you mean?"

    second = run(service, "Python", thread)
    assert done(second)["status"] == "answered"
    assert "Python" in done(second)["answer"]
    assert source_names(second) == ["python.md"]
    resumed = [c for c in llm.calls if c.schema == "QuestionAnalysis"][-1]
    assert "that thing" in resumed.text and "Python" in resumed.text  # both went in
    assert service.pending_clarification(thread) is None


def test_several_clarification_rounds_then_a_change_of_subject(make_service) -> None:
    service = make_service(ScriptedChatModel(rules=[clarifying_analyzer]))
    thread = done(run(service, "Tell me about that thing"))["thread_id"]
    again = run(service, "you know, that thing", thread)
    assert done(again)["status"] == "clarification"
    moved_on = run(service, "How do I install PostgreSQL?", thread)
    assert done(moved_on)["status"] == "answered"
    assert source_names(moved_on) == ["postgres-guide.md"]


def test_clarification_rounds_are_capped_so_the_user_is_never_trapped(make_service) -> None:
    def always_unclear(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema:
            return QuestionAnalysis(is_clear=False, clarification_question="Which one?")
        return None

    service = make_service(ScriptedChatModel(rules=[always_unclear]))
    statuses = []
    thread = None
    for message in ["Tell me about it", "that one", "the other one"]:
        events = run(service, message, thread)
        thread = done(events)["thread_id"]
        statuses.append(done(events)["status"])
    assert statuses == ["clarification", "clarification", "answered"]


def test_fan_out_runs_sub_agents_concurrently_and_answers_both(make_service) -> None:
    def split(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema:
            return QuestionAnalysis(sub_questions=["What is JavaScript?", "What is Python?"])
        return None

    llm = ScriptedChatModel(rules=[split], delay_s=0.3)
    events = run(make_service(llm), "What is JavaScript? What is Python?")

    research = [c for c in llm.calls if "search_documents" in c.tools]
    assert len(research) == 2
    first, second = sorted(research, key=lambda c: c.started)
    assert second.started < first.ended  # the two sub-agents overlapped in time
    assert {c.thread for c in research} != {research[0].thread} or len(research) == 1
    answer = done(events)["answer"]
    assert "JavaScript" in answer and "Python" in answer
    assert sorted(source_names(events)) == ["javascript.md", "python.md"]
    assert steps(events, "sub_questions")[0]["items"] == ["What is JavaScript?", "What is Python?"]


def test_budget_exhausted_gives_a_best_effort_answer(make_service) -> None:
    queries = iter(["postgres install apt", "postgresql cluster", "brew postgresql"])

    def keep_searching(_m: list[BaseMessage], info: CallInfo):
        if is_research(info):
            return tool_call("search_documents", query=next(queries))
        return None

    llm = ScriptedChatModel(rules=[keep_searching])
    events = run(make_service(llm, max_tool_calls=3), "How do I install PostgreSQL?")

    assert len(steps(events, "search")) == 3  # seed + 2, then the budget stops it
    assert steps(events, "budget")
    last = llm.calls[-1]  # the writer, over the numbered units of all three searches
    assert last.tools == [] and '<passage n="1"' in last.text and "parent_id" not in last.text
    assert "apt install postgresql" in done(events)["answer"]
    assert source_names(events) == ["postgres-guide.md"]
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert sources["claims"] and all(c["supported"] for c in sources["claims"])


def test_iteration_budget_also_stops_the_loop(make_service) -> None:
    counter = iter(range(100))

    def keep_searching(_m: list[BaseMessage], info: CallInfo):
        if is_research(info):
            return tool_call("search_documents", query=f"postgres query {next(counter)}")
        return None

    llm = ScriptedChatModel(rules=[keep_searching])
    events = run(make_service(llm, max_iterations=2, max_tool_calls=50), "Install PostgreSQL?")
    assert len([c for c in llm.calls if is_research_call(c)]) == 2
    assert steps(events, "budget") and done(events)["status"] == "answered"


def is_research_call(call) -> bool:
    return "search_documents" in call.tools


def test_compression_keeps_facts_and_no_search_is_repeated(make_service) -> None:
    plan = iter(["postgres apt install", "postgresql upgrade cluster", "postgres apt install"])

    def research(messages: list[BaseMessage], info: CallInfo):
        if not is_research(info):
            return None
        query = next(plan, None)
        return tool_call("search_documents", query=query) if query else None

    llm = ScriptedChatModel(rules=[research])
    # notes of ~210 tokens (cited with their section) stay under the threshold once written
    events = run(make_service(llm, compression_tokens=250), "How do I install PostgreSQL?")

    assert steps(events, "compress")
    searches = [s["detail"] for s in steps(events, "search")]
    assert len(searches) == len(set(searches))  # nothing fetched twice
    assert [s["detail"] for s in steps(events, "repeat_skipped")] == [
        "search_documents: postgres apt install"
    ]
    after = [c for c in llm.calls if is_research(c_info(c)) and "notes so far" in c.text]
    assert after, "the agent kept working from its compressed notes"
    assert "Searches already run" in after[-1].text and "postgres apt install" in after[-1].text
    assert "apt install postgresql" in done(events)["answer"]


def c_info(call) -> CallInfo:
    return CallInfo(0, call.tools, None, "")


def test_no_evidence_in_an_empty_library_is_an_honest_abstention(
    make_service, library: Application
):
    llm = ScriptedChatModel()
    events = run(make_service(llm, library=library), "What is the capital of Peru?")
    answer = done(events)["answer"]
    assert answer.startswith("The documents do not contain")
    assert source_names(events) == []
    assert len(llm.calls) == 1  # analysis only: nothing to read, nothing to ask the model


def test_unrelated_question_abstains_without_sources(make_service) -> None:
    events = run(make_service(ScriptedChatModel()), "What is the boiling point of mercury?")
    assert done(events)["answer"].startswith("The documents do not contain")
    assert source_names(events) == []


def test_invented_parent_ids_and_paths_are_rejected(make_service) -> None:
    script = [
        QuestionAnalysis(sub_questions=["How do I install PostgreSQL?"]),
        tool_call("read_parent", parent_id="deadbeefdeadbeef-p0"),
        tool_call("read_parent", parent_id="../../etc/passwd"),
    ]
    llm = ScriptedChatModel(script=script)
    events = run(make_service(llm), "How do I install PostgreSQL?")

    last_research = [c for c in llm.calls if is_research_call(c)][-1]
    tool_replies = [
        m.content for m in last_research.messages
        if isinstance(m, ToolMessage) and m.name == "read_parent"
    ]
    assert tool_replies == ["unknown id: deadbeefdeadbeef-p0", "unknown id: ../../etc/passwd"]
    assert "root:" not in done(events)["answer"]


def test_invented_source_is_absent_from_sources(make_service) -> None:
    def cite_badly(messages: list[BaseMessage], info: CallInfo):
        n = None if info.tools else unit_number(messages, "sudo apt install postgresql")
        if n is None:
            return None
        return (f"Install it with `sudo apt install postgresql` [{n}]. The manual says so "
                "[secret-plans.pdf, p. 9].")

    events = run(make_service(ScriptedChatModel(rules=[cite_badly])), "Install PostgreSQL?")
    # Sources are the cited units' places: a name the writer typed is never one
    assert set(source_names(events)) == {"postgres-guide.md"}


def test_memory_folds_old_turns_into_a_summary_only_when_the_window_overflows(make_service):
    llm = ScriptedChatModel()
    service = make_service(llm, memory_turns=2)
    thread = None
    folds = []
    for question in ["Install PostgreSQL?", "What is Python?", "What is JavaScript?",
                     "How is espresso brewed?", "Update PostgreSQL?", "What is Node.js?"]:
        events = run(service, question, thread)
        thread = done(events)["thread_id"]
        folds.append(len(steps(events, "memory")))
    # a fold happens once more than 2 turns are kept, down to 1 turn: not on every turn
    assert folds == [0, 0, 0, 1, 0, 1]
    history = service.history(thread)
    assert history[0]["role"] == "summary"
    last_analysis = [c for c in llm.calls if c.schema == "QuestionAnalysis"][-1]
    assert f"Conversation summary: {history[0]['content']}" in last_analysis.text
    assert [h["role"] for h in history[1:]] == ["user", "assistant", "user", "assistant"]
    assert "Update PostgreSQL?" in history[1]["content"]
    assert "Node.js" in history[-2]["content"]


def test_pipeline_strategy_answers_from_the_seed_search_without_tools(make_service) -> None:
    llm = ScriptedChatModel()
    events = run(make_service(llm, strategy="pipeline"), "How do I install PostgreSQL?")
    assert [c.tools for c in llm.calls] == [["QuestionAnalysis"], ["RelevanceGrades"], []]
    assert "apt install postgresql" in done(events)["answer"]
    assert source_names(events) == ["postgres-guide.md"]


def test_a_markdown_source_names_its_section(make_service) -> None:
    events = run(make_service(ScriptedChatModel()), "How do I install PostgreSQL?")
    (sources,) = [e for e in events if e.type == "sources"]
    [source] = [s for s in sources.data["sources"] if s["document_name"] == "postgres-guide.md"]
    # the guide's two sections share a parent; the source names the one that answered
    assert source["pages"] == "§ PostgreSQL administration › Installing PostgreSQL"
    assert source["heading_path"] == ["PostgreSQL administration", "Installing PostgreSQL"]
    assert Source(**source).label() == (
        "postgres-guide.md, § PostgreSQL administration › Installing PostgreSQL")
