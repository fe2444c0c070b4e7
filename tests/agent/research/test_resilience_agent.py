"""Resilience inside the agent: backoff on transient errors, malformed tool calls, and
structured output that cannot be parsed. The scripted model injects every failure."""

from __future__ import annotations

import httpx
import openai
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from tests.agent.helpers import done, run, source_names, steps

from archivist.agent.state import QuestionAnalysis, RelevanceGrades
from archivist.llm.resilience import with_backoff
from archivist.settings import Settings
from archivist.testing import CallInfo, ScriptedChatModel, tool_call


def unavailable() -> openai.InternalServerError:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    return openai.InternalServerError(
        "Service Unavailable", response=httpx.Response(503, request=request), body=None
    )


def retrying(model: ScriptedChatModel, retries: int, sleeps: list[float]):
    """Wrap the scripted model as ``make_chat_model`` wraps a real one; sleeps recorded."""
    return with_backoff(model, Settings(llm={"model": "scripted", "max_retries": retries}),
                        sleep=sleeps.append, rng=lambda: 1.0)


def test_transient_errors_are_retried_with_backoff_and_the_answer_arrives(service_for) -> None:
    inner = ScriptedChatModel(script=[httpx.ConnectError("connection refused"), unavailable()])
    sleeps: list[float] = []
    events = run(service_for(retrying(inner, 3, sleeps)), "How do I install PostgreSQL?")

    assert done(events)["status"] == "answered"
    assert "apt install postgresql" in done(events)["answer"]
    # the analysis call took 3 attempts (2 failures); grading, the research step (DONE)
    # and the writer 1 each
    assert [c.schema for c in inner.calls] == ["QuestionAnalysis"] * 3 + [
        "RelevanceGrades", None, None]
    assert sleeps == [0.5, 1.0]  # exponential: base 0.5 s, doubled (jitter pinned to its cap)


def test_retries_stop_at_the_limit(service_for) -> None:
    inner = ScriptedChatModel(script=[httpx.ConnectError("connection refused")] * 5)
    sleeps: list[float] = []
    events = run(service_for(retrying(inner, 2, sleeps)), "How do I install PostgreSQL?")

    assert len(inner.calls) == 3 and len(sleeps) == 2  # 1 try + 2 retries, then give up
    assert done(events)["status"] == "retrieval_only"  # an unreachable LLM: passages only
    assert [e.type for e in events].count("error") == 1


def test_malformed_tool_calls_get_an_error_message_and_the_loop_goes_on(service_for) -> None:
    script = [
        AIMessage(content="", invalid_tool_calls=[{
            "name": "search_documents", "args": "query=postgres install", "id": "bad-json",
            "error": "Unterminated string", "type": "invalid_tool_call",
        }]),
        tool_call("delete_everything", path="/"),
        AIMessage(content="", tool_calls=[{"name": "search_documents", "args": {},
                                           "id": "no-args"}]),
    ]
    llm = ScriptedChatModel(script=script)
    events = run(service_for(llm, strategy="tools"), "How do I install PostgreSQL?")

    last_research = [c for c in llm.calls if "search_documents" in c.tools][-1]
    replies = {m.tool_call_id: m.content for m in last_research.messages
               if isinstance(m, ToolMessage)}
    assert "not valid JSON" in replies["bad-json"]
    assert replies["call-delete_everything"].startswith("unknown tool: delete_everything")
    assert replies["no-args"] == "invalid call to search_documents: missing argument 'query'"
    assert all("\n" not in replies[k] for k in ("bad-json", "no-args"))  # one line each
    assert len(steps(events, "invalid_tool_call")) == 3
    assert done(events)["status"] == "answered"
    assert "apt install postgresql" in done(events)["answer"]


def test_unparseable_analysis_is_retried_once_with_the_error_shown(service_for) -> None:
    seen: list[str] = []

    def bad_then_good(messages: list[BaseMessage], info: CallInfo):
        if info.schema is not QuestionAnalysis:
            return None
        seen.append(str(messages[-1].content))
        if len(seen) == 1:  # arguments that do not validate
            return AIMessage(content="", tool_calls=[{
                "name": "QuestionAnalysis", "args": {"route": "somewhere", "sub_questions": 3},
                "id": "x"}])
        return QuestionAnalysis(sub_questions=["How do I update PostgreSQL?"])

    events = run(service_for(ScriptedChatModel(rules=[bad_then_good])), "Update postgres?")
    assert len(seen) == 2 and "could not be used" in seen[1] and "ValidationError" in seen[1]
    assert steps(events, "analysis_retry") and not steps(events, "analysis_fallback")
    assert steps(events, "search")[0]["detail"] == "How do I update PostgreSQL?"


def test_twice_unparseable_analysis_degrades_to_clear_and_unsplit(service_for) -> None:
    def garbage(_m: list[BaseMessage], info: CallInfo):
        return "Sure! It is clear." if info.schema is QuestionAnalysis else None

    llm = ScriptedChatModel(rules=[garbage])
    events = run(service_for(llm), "What is JavaScript? What is Python?")
    assert steps(events, "analysis_retry") and steps(events, "analysis_fallback")
    assert [s["detail"] for s in steps(events, "search")] == ["What is JavaScript? What is Python?"]
    assert done(events)["status"] == "answered" and not steps(events, "sub_questions")
    assert [c.schema for c in llm.calls].count("QuestionAnalysis") == 2


def test_unparseable_grades_keep_the_passages_ungraded_with_low_confidence(service_for) -> None:
    def garbage(_m: list[BaseMessage], info: CallInfo):
        return "P1 looks good" if info.schema is RelevanceGrades else None

    events = run(service_for(ScriptedChatModel(rules=[garbage])), "How do I install PostgreSQL?")
    assert steps(events, "grade_retry") and steps(events, "grade_fallback")
    assert "apt install postgresql" in done(events)["answer"]
    assert source_names(events) == ["postgres-guide.md"]
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert sources["confidence"] == "low"


def test_prompted_json_parses_the_first_object_or_reports_why_not() -> None:
    from langchain_core.messages import HumanMessage

    from archivist.llm import build_chat_model
    from archivist.llm.structured import prompted_json, structured_output

    llm = ScriptedChatModel(script=['Sure: ```json\n{"relevant": ["P2"]}\n```', "no idea"])
    runnable = prompted_json(llm, RelevanceGrades)
    good = runnable.invoke([HumanMessage("Question: q")])
    assert good["parsed"] == RelevanceGrades(relevant=["P2"]) and good["parsing_error"] is None
    assert "ONE JSON object" in str(llm.calls[0].messages[-1].content)
    bad = runnable.invoke([HumanMessage("Question: q")])
    assert bad["parsed"] is None and "no JSON object" in str(bad["parsing_error"])

    local = Settings(llm={"model": "openai:m", "openai_base_url": "http://127.0.0.1:1/v1"})
    custom, profile = build_chat_model(local)
    assert profile.structured == "prompted"
    assert structured_output(custom, RelevanceGrades, profile).name == "RelevanceGradesPrompted"
    cloud, cloud_profile = build_chat_model(Settings(llm={"model": "ollama:qwen3:4b"}))
    assert cloud_profile.structured == "native"
    native = structured_output(cloud, RelevanceGrades, cloud_profile)
    assert native.name != "RelevanceGradesPrompted"
