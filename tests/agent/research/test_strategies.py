"""The pipeline and tools strategies, auto choice, per-role models, and LLM calls per question."""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps

from archivist.agent.state import QuestionAnalysis
from archivist.testing import CallInfo, ScriptedChatModel, tool_call


def test_pipeline_gives_a_cited_answer_without_tools(service_for) -> None:
    llm = ScriptedChatModel()
    events = run(service_for(llm, strategy="pipeline"), "How do I install PostgreSQL?")
    assert all(not c.tools or c.schema for c in llm.calls)  # no tool offered, ever
    answer = done(events)["answer"]
    assert "apt install postgresql" in answer
    assert answer.endswith("[1].") and "postgres-guide.md" not in answer  # cited by number
    assert source_names(events) == ["postgres-guide.md"]
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert sources["sources"][0]["pages"].startswith("§ PostgreSQL administration")
    assert "apt install postgresql" in sources["sources"][0]["passage"]
    claims = sources["claims"]  # the unit's sentence and the one after it, each a claim
    assert claims and all(c["citations"] == [1] and c["supported"] and c["score"] > 0.5
                          for c in claims), claims
    assert any(e.type == "token" for e in events)


def clarify_then_python(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is not QuestionAnalysis:
        return None
    if "clarification:" in info.question:
        return QuestionAnalysis(sub_questions=["What is Python?"])
    return QuestionAnalysis(is_clear=False, clarification_question="Which thing do you mean?")


def test_pipeline_asks_back_and_resumes(service_for) -> None:
    service = service_for(ScriptedChatModel(rules=[clarify_then_python]), strategy="pipeline")
    first = run(service, "Tell me about that thing")
    assert done(first)["status"] == "clarification"
    second = run(service, "Python, the language", done(first)["thread_id"])
    assert done(second)["status"] == "answered"
    assert source_names(second) == ["python.md"]


def test_pipeline_fans_out_concurrently(service_for) -> None:
    def split(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        if info.schema is QuestionAnalysis:
            return QuestionAnalysis(sub_questions=["What is JavaScript?", "What is Python?"])
        return None

    llm = ScriptedChatModel(rules=[split], delay_s=0.2)
    events = run(service_for(llm, strategy="pipeline"), "What is JavaScript? And Python?")
    writers = [c for c in llm.calls if c.schema is None and "<passage" in c.text]
    assert len(writers) == 2
    graders = [c for c in llm.calls if c.schema == "RelevanceGrades"]
    first, second = sorted(graders, key=lambda c: c.started)[:2]
    assert second.started < first.ended  # the two sub-agents overlapped
    assert sorted(source_names(events)) == ["javascript.md", "python.md"]
    answer = done(events)["answer"]
    assert "JavaScript" in answer and "Python" in answer


def test_auto_picks_pipeline_for_a_custom_openai_server_and_says_so(service_for) -> None:
    llm = ScriptedChatModel()
    service = service_for(llm, strategy="auto", llm={
        "model": "openai:gemma3-270m", "openai_base_url": "http://127.0.0.1:9/v1"})
    events = run(service, "How do I install PostgreSQL?")
    (chosen,) = steps(events, "strategy")
    assert chosen["detail"] == "pipeline"
    assert steps(events, "profile")[0]["detail"] == "capable (set by policy=capable)"
    assert "auto" in chosen["reason"] and "no dependable tool calling" in chosen["reason"]
    assert not any("search_documents" in c.tools for c in llm.calls)

    tools = run(service_for(ScriptedChatModel(), strategy="auto"), "Install PostgreSQL?")
    assert steps(tools, "strategy")[0]["detail"] == "tools"


def test_the_fast_model_analyses_and_grades_the_strong_one_answers(service_for) -> None:
    strong, fast = ScriptedChatModel(), ScriptedChatModel()
    events = run(service_for(strong, fast_llm=fast), "How do I install PostgreSQL?")
    assert [c.schema for c in fast.calls] == ["QuestionAnalysis", "RelevanceGrades"]
    assert [c.schema for c in strong.calls] == [None, None]  # the research step, the writer
    assert "apt install postgresql" in done(events)["answer"]


def one_more_search(messages: list[BaseMessage], info: CallInfo):
    """A diligent model: in the tools strategy it searches once more before answering."""
    if "search_documents" in info.tools and sum(m.type == "tool" for m in messages) == 1:
        return tool_call("search_documents", query="postgresql apt package")
    return None


SCENARIOS = {
    "simple question": ("How do I install PostgreSQL?", None),
    "model searches once more": ("How do I install PostgreSQL?", one_more_search),
    "greeting": ("Hello!", None),
    "fan-out (2 parts)": (
        "What is JavaScript? What is Python?",
        QuestionAnalysis(sub_questions=["What is JavaScript?", "What is Python?"]),
    ),
    "nothing relevant (retry, abstain)": ("What is the boiling point of mercury?", None),
}


def calls_per_question(service_for, strategy: str) -> dict[str, int]:
    counts = {}
    for name, (question, analysis) in SCENARIOS.items():
        if callable(analysis):
            llm = ScriptedChatModel(rules=[analysis])
        else:
            llm = ScriptedChatModel(script=[analysis] if analysis else [])
        events = run(service_for(llm, strategy=strategy), question)
        stats = next(e.data for e in events if e.type == "stats")
        assert stats["llm_calls"] == len(llm.calls)
        counts[name] = len(llm.calls)
    return counts


def test_llm_calls_per_question_tools_vs_pipeline(service_for, capsys) -> None:
    tools = calls_per_question(service_for, "tools")
    pipeline = calls_per_question(service_for, "pipeline")
    with capsys.disabled():
        print("\nLLM calls per question (scripted model):")
        for name in SCENARIOS:
            print(f"  {name:<36} tools {tools[name]}  pipeline {pipeline[name]}")
    assert pipeline["simple question"] <= 3
    # both write from the evidence units; tools adds the model's research step ("DONE")
    assert tools["simple question"] == pipeline["simple question"] + 1
    assert tools["fan-out (2 parts)"] == pipeline["fan-out (2 parts)"] + 2  # one per part
    assert tools["greeting"] == pipeline["greeting"] == 1
    # one more research step; the new search found only passages graded already: no grading
    assert tools["model searches once more"] == 5
    assert pipeline["model searches once more"] == 3  # the pipeline never offers tools
    # nothing relevant: an abstention in code, no research step, no writer
    assert tools["nothing relevant (retry, abstain)"] == pipeline[
        "nothing relevant (retry, abstain)"]
