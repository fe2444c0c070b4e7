"""OpenTelemetry spans mirror one scripted answer: a root span, nodes, LLM calls, tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.observability import (
    ROOT_SPAN,
    SpanCallbackHandler,
    attach_callbacks,
    tracing_callbacks,
)
from archivist.settings import Settings


def _kind(span: ReadableSpan) -> str:
    return str((span.attributes or {}).get("archivist.kind"))


def test_nothing_configured_means_no_callbacks() -> None:
    assert tracing_callbacks(Settings()) == []


def test_otlp_endpoint_gives_a_span_handler() -> None:
    (handler,) = tracing_callbacks(Settings(agent={"otlp_endpoint": "http://127.0.0.1:4318"}))
    assert isinstance(handler, SpanCallbackHandler)


def test_span_tree_of_one_scripted_answer(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    settings = Settings(data_dir=tmp_path / "lib", llm={"model": "scripted"})
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    handler = SpanCallbackHandler(provider.get_tracer("test"))
    with Application(settings, embedder=embedder) as library:
        library.ingest.texts([("etna.md", "# Etna\n\nMount Etna is an active volcano in Sicily.")])
        with attach_callbacks([handler]):
            result = library.agent.ask("Where is Mount Etna?")
        # outside the block nothing is traced
        library.agent.ask("Where is Mount Etna?")

    spans = exporter.get_finished_spans()
    assert "Sicily" in result.answer
    assert len({s.context.trace_id for s in spans}) == 1  # one answer, one trace
    (root,) = [s for s in spans if s.parent is None]
    assert root.name == ROOT_SPAN and _kind(root) == "answer"
    by_id = {s.context.span_id: s for s in spans}
    assert all(s.parent is None or s.parent.span_id in by_id for s in spans)  # a closed tree
    assert all(s.end_time is not None for s in spans)

    nodes = [s.name for s in spans if _kind(s) == "node"]
    top_nodes = {
        by_id[s.context.span_id].name
        for s in spans
        if s.parent is not None and s.parent.span_id == root.context.span_id
    }
    assert {"node analyze", "node research", "node answer"} <= top_nodes
    assert "node seed" in nodes or "node agent" in nodes  # research sub-graph nodes
    # one span per LLM call and per tool step, as the answer's stats and steps report
    llm_spans = [s for s in spans if _kind(s) == "llm"]
    tool_spans = [s for s in spans if _kind(s) == "tool"]
    assert len(llm_spans) == result.stats["llm_calls"]
    tool_steps = [s for s in result.steps if s["kind"] in ("search", "read_parent")]
    assert len(tool_spans) == len(tool_steps) == result.stats["tool_calls"]
    assert {s.name for s in tool_spans} <= {"tool search_documents", "tool read_parent"}
    for span in llm_spans + tool_spans:  # every call sits inside a graph node
        parent = by_id[span.parent.span_id]  # type: ignore[union-attr]
        assert _kind(parent) in ("node", "answer")


def test_a_failing_tool_marks_its_span(tmp_path: Path) -> None:
    from uuid import uuid4

    from opentelemetry.trace import StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    handler = SpanCallbackHandler(provider.get_tracer("test"))
    root, tool = uuid4(), uuid4()
    handler.on_chain_start({}, {}, run_id=root, name="LangGraph")
    handler.on_tool_start({"name": "search_documents"}, "q", run_id=tool, parent_run_id=root)
    handler.on_tool_error(ValueError("boom"), run_id=tool)
    handler.on_chain_end({}, run_id=root)
    failed, top = exporter.get_finished_spans()
    assert failed.name == "tool search_documents" and failed.status.status_code == StatusCode.ERROR
    assert failed.parent is not None and failed.parent.span_id == top.context.span_id
    assert top.name == ROOT_SPAN


def test_langfuse_handler_only_with_keys_and_host(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_core.callbacks import BaseCallbackHandler

    from archivist import observability

    made: list[Settings] = []

    def fake(settings: Settings) -> BaseCallbackHandler:
        made.append(settings)
        return BaseCallbackHandler()

    monkeypatch.setattr(observability, "_langfuse_handler", fake)
    keys = {"langfuse_public_key": "pk", "langfuse_secret_key": "sk"}
    assert tracing_callbacks(Settings(**keys)) == []  # no host: nothing
    assert tracing_callbacks(Settings(llm={
        "langfuse_host": "http://lf",
        "langfuse_public_key": "pk",
    })) == []
    assert len(tracing_callbacks(Settings(**keys, llm={"langfuse_host": "http://lf"}))) == 1
    assert len(made) == 1
