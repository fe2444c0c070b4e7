"""The agent service: persistence across restarts, the unreachable LLM, the shared service."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import BaseMessage
from tests.agent.helpers import done, run, source_names, steps

from archivist.agent.service import AgentService
from archivist.agent.state import QuestionAnalysis
from archivist.application import Application
from archivist.settings import Settings
from archivist.storage import database_file
from archivist.testing import CallInfo, ScriptedChatModel
from archivist.types import ArchivistError


def test_history_survives_a_restart(corpus_library: Application, tmp_path) -> None:
    settings = corpus_library.settings.model_copy(update={"data_dir": tmp_path / "conv"})
    first = AgentService(corpus_library.searcher, settings, llm=ScriptedChatModel())
    thread = first.ask("How do I install PostgreSQL?").thread_id
    first.close()

    def analyze(messages: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
        prompt = "\n".join(str(m.content) for m in messages)
        if info.schema and "User: How do I install PostgreSQL?" in prompt:
            return QuestionAnalysis(sub_questions=["How do I update PostgreSQL?"])
        return None

    llm = ScriptedChatModel(rules=[analyze])
    reopened = AgentService(corpus_library.searcher, settings, llm=llm)
    try:
        history = reopened.history(thread)
        assert [h["role"] for h in history] == ["user", "assistant"]
        assert history[0]["content"] == "How do I install PostgreSQL?"
        assert thread in reopened.threads()
        result = reopened.ask("How do I update it?", thread)
        assert steps_of(result, "search")[0]["detail"] == "How do I update PostgreSQL?"
        assert len(reopened.history(thread)) == 4
    finally:
        reopened.close()


def test_a_continued_conversation_reads_its_checkpoint_without_warnings(
    make_service, caplog: pytest.LogCaptureFixture
) -> None:
    # the graph state holds plain values: LangGraph warns about (and will block) a
    # checkpoint that carries one of this package's own types
    service = make_service()
    thread = service.ask("How do I install PostgreSQL?").thread_id
    with caplog.at_level("WARNING"):
        service.ask("How do I update PostgreSQL?", thread)
    assert not [r for r in caplog.records if "unregistered type" in r.getMessage()]


def steps_of(result, kind: str) -> list[dict]:
    return [s for s in result.steps if s["kind"] == kind]


def test_unreachable_llm_gives_one_clear_line_and_a_retrieval_only_answer(
    corpus_library: Application, tmp_path
) -> None:
    settings = corpus_library.settings.with_values(
        data_dir=tmp_path / "conv",
        llm={"model": "ollama:qwen3:4b", "ollama_base_url": "http://127.0.0.1:9", "max_retries": 0},
    )
    service = AgentService(corpus_library.searcher, settings)  # a real ChatOllama
    try:
        events = run(service, "How do I install PostgreSQL?")
    finally:
        service.close()
    errors = [e.data["message"] for e in events if e.type == "error"]
    assert len(errors) == 1
    assert "ollama" in errors[0] and "http://127.0.0.1:9" in errors[0]
    assert "ollama serve" in errors[0] and "ARCHIVIST_LLM__MODEL" in errors[0]
    answer = done(events)["answer"]
    assert done(events)["status"] == "retrieval_only"
    assert answer.startswith("Retrieval-only answer (no LLM)")
    assert "apt install postgresql" in answer
    assert "[postgres-guide.md, § PostgreSQL administration › Installing PostgreSQL]" in answer
    assert "postgres-guide.md" in source_names(events)
    assert [e.type for e in events][-3:] == ["sources", "stats", "done"]


def test_shared_service_is_closed_with_the_library(settings: Settings, embedder) -> None:
    library = Application(settings.with_values(llm={"model": "scripted"}), embedder=embedder)
    service = library.agent
    assert library.agent is service
    assert isinstance(service.llm, ScriptedChatModel)
    result = service.ask("Anything about PostgreSQL?")
    assert result.status == "answered" and result.sources == []
    library.close()
    assert database_file(settings.data_dir).exists()


def test_empty_question_is_an_error(make_service) -> None:
    with pytest.raises(ArchivistError):
        run(make_service(), "   ")


def test_graph_overhead_with_an_instant_model_is_small(make_service) -> None:
    service = make_service(ScriptedChatModel())
    run(service, "How do I install PostgreSQL?")  # warm up the embedder path
    start = time.perf_counter()
    events = run(service, "How do I install PostgreSQL?")
    elapsed = time.perf_counter() - start
    assert source_names(events) == ["postgres-guide.md"] and steps(events, "search")
    assert elapsed < 2.0
