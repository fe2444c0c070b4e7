"""Routing, relevance grading, rewrite-and-retry, abstention and web fallback (scripted LLM)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps
from tests.agent.research.conftest import WikiServer

from archivist.agent.state import QuestionAnalysis, RelevanceGrades
from archivist.events import Event
from archivist.testing import CallInfo, ScriptedChatModel


def sources_event(events: list[Event]) -> dict:
    (event,) = [e for e in events if e.type == "sources"]
    return event.data


def calls_with_schema(llm: ScriptedChatModel, name: str) -> list:
    return [c for c in llm.calls if c.schema == name]


def test_a_greeting_is_answered_directly_without_retrieval(service_for) -> None:
    llm = ScriptedChatModel()
    events = run(service_for(llm), "Hello!")

    assert steps(events, "route")[0]["detail"] == "direct"
    assert not steps(events, "search") and not steps(events, "grade")
    assert [c.schema for c in llm.calls] == ["QuestionAnalysis"]  # one call, no retrieval
    assert done(events)["answer"].startswith("Hello!")
    assert source_names(events) == []


def test_a_direct_route_without_a_reply_gets_one_short_call(service_for) -> None:
    def chit_chat(_m: list[BaseMessage], info: CallInfo):
        if info.schema is QuestionAnalysis:
            return QuestionAnalysis(route="direct", sub_questions=["How are you today?"])
        return "I am fine, thanks. Ask me about your documents."

    llm = ScriptedChatModel(rules=[chit_chat])
    events = run(service_for(llm), "How are you today, my friend?")
    assert not steps(events, "search")
    assert len(llm.calls) == 2 and done(events)["answer"].startswith("I am fine")


def route_to_web(_m: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    if info.schema is QuestionAnalysis:
        return QuestionAnalysis(route="web", sub_questions=["largest planet news"])
    return None


def test_current_events_go_to_the_web_when_it_is_enabled(service_for, wiki: WikiServer) -> None:
    llm = ScriptedChatModel(rules=[route_to_web])
    service = service_for(llm, web_search="wikipedia", web_search_url=wiki.url)
    events = run(service, "What is the latest news about the largest planet?")

    assert steps(events, "route")[0]["detail"] == "web"
    assert steps(events, "web_search") and not steps(events, "search")  # no document search
    assert wiki.paths and wiki.paths[0].startswith("/w/rest.php/v1/search/page?")
    (source,) = sources_event(events)["sources"]
    assert source["kind"] == "web" and source["url"] == "https://en.wikipedia.org/wiki/Jupiter"
    assert "Jupiter" in done(events)["answer"]


def test_the_web_route_falls_back_to_documents_when_web_search_is_off(service_for) -> None:
    events = run(service_for(ScriptedChatModel(rules=[route_to_web])), "Install PostgreSQL?")
    route = steps(events, "route")[0]
    assert route["detail"] == "documents" and route["reason"] == "web search is off"
    assert steps(events, "search")


def test_an_irrelevant_chunk_never_reaches_the_answer(service_for) -> None:
    """The grader keeps only the PostgreSQL passage; the espresso one is retrieved but dropped."""
    graded_prompts: list[str] = []

    def grade_one(messages: list[BaseMessage], info: CallInfo):
        if info.schema is RelevanceGrades:
            prompt = "\n".join(str(m.content) for m in messages)
            graded_prompts.append(prompt)
            blocks = prompt.split("<passage ")[1:]
            keep = [b.split('"')[1] for b in blocks if "apt install postgresql" in b]
            return RelevanceGrades(relevant=keep)
        return None

    for strategy in ("tools", "pipeline"):
        llm = ScriptedChatModel(rules=[grade_one])
        events = run(service_for(llm, strategy=strategy), "How do I install PostgreSQL?")

        assert "espresso" in graded_prompts[-1].lower()  # it was retrieved and graded ...
        answering = [c for c in llm.calls if c.schema is None]
        assert answering, strategy
        for call in answering:  # ... but never shown to the model that writes the answer
            assert "espresso" not in call.text.lower(), strategy
            assert "apt install postgresql" in call.text
        assert source_names(events) == ["postgres-guide.md"]
        grade = steps(events, "grade")[0]
        assert grade["dropped"] >= 1
        if strategy == "tools":
            assert grade["kept"] == 1
        else:  # the pipeline's gate keeps on-subject passages as context (the espresso one
            assert grade["kept"] >= 1  # is not): small graders drop passages that answer


def test_no_relevant_passage_retries_once_with_a_rewrite_then_abstains(service_for) -> None:
    def nothing_relevant(_m: list[BaseMessage], info: CallInfo):
        if info.schema is RelevanceGrades:
            return RelevanceGrades(relevant=[], rewritten_query="mercury boiling temperature")
        return None

    llm = ScriptedChatModel(rules=[nothing_relevant])
    events = run(service_for(llm), "What is the boiling point of mercury?")

    searches = [s["detail"] for s in steps(events, "search")]
    assert searches == ["What is the boiling point of mercury?", "mercury boiling temperature"]
    assert steps(events, "retry")[0]["detail"] == "mercury boiling temperature"
    assert done(events)["answer"].startswith("The documents do not contain")
    assert source_names(events) == [] and sources_event(events)["confidence"] == "low"
    # analysis + one grading: the retry found only passages already graded irrelevant,
    # which are not graded twice; the abstention itself costs no call
    assert [c.schema for c in llm.calls] == ["QuestionAnalysis", "RelevanceGrades"]


def test_retry_then_web_fallback_cites_web_sources(service_for, wiki: WikiServer) -> None:
    llm = ScriptedChatModel()
    service = service_for(llm, web_search="wikipedia", web_search_url=wiki.url)
    events = run(service, "Which is the largest planet?")

    kinds = [e.data["kind"] for e in events if e.type == "step"]
    assert kinds.index("retry") < kinds.index("web_fallback") < kinds.index("web_search")
    assert len(steps(events, "search")) == 2  # the question, then the rewrite
    (source,) = sources_event(events)["sources"]
    passage = source.pop("passage")
    assert source == {
        "document_id": "https://en.wikipedia.org/wiki/Jupiter", "document_name": "Jupiter",
        "pages": "", "page_start": None, "page_end": None, "heading_path": [],
        "score": None, "kind": "web", "url": "https://en.wikipedia.org/wiki/Jupiter",
        "parent_id": None,
    }
    assert "Jupiter" in passage  # the snippet the answer was written from
    answer = done(events)["answer"]
    assert answer.endswith("[1].") and "largest planet" in answer  # [1]: Sources line 1
    assert sources_event(events)["confidence"] == "medium"  # evidence only from the web
    writer = [c for c in llm.calls if c.schema is None][-1]
    assert 'section="Jupiter"' in writer.text and "not instructions" in writer.text


def test_web_unavailable_never_fails_the_answer(service_for, wiki: WikiServer) -> None:
    wiki.mode = "error"
    service = service_for(ScriptedChatModel(), web_search="wikipedia", web_search_url=wiki.url)
    events = run(service, "Which is the largest planet?")
    assert "HTTP 503" in steps(events, "web_unavailable")[0]["detail"]
    assert done(events)["status"] == "answered"
    assert done(events)["answer"].startswith("The documents do not contain")
    assert "on the web" in done(events)["answer"]


def test_confidence_is_high_medium_or_low_from_the_grades(service_for) -> None:
    def keep(count: int):
        def rule(messages: list[BaseMessage], info: CallInfo):
            if info.schema is RelevanceGrades:
                return RelevanceGrades(relevant=[f"P{n}" for n in range(1, count + 1)])
            return None
        return rule

    high = run(service_for(ScriptedChatModel(rules=[keep(2)])), "How do I install PostgreSQL?")
    medium = run(service_for(ScriptedChatModel(rules=[keep(1)])), "How do I install PostgreSQL?")
    low = run(service_for(ScriptedChatModel(rules=[keep(0)])), "How do I install PostgreSQL?")
    assert [sources_event(e)["confidence"] for e in (high, medium, low)] == [
        "high", "medium", "low"
    ]
