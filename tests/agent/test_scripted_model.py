"""The scripted chat model shipped in ``archivist.testing``."""

from __future__ import annotations

import threading
import time

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel

from archivist.agent import prompts
from archivist.llm import make_chat_model
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel, ScriptExhausted, tool_call


class Verdict(BaseModel):
    ok: bool = True
    reason: str = "default"


def search_documents(query: str) -> str:
    """Search."""
    return query


def test_script_entries_are_replayed_in_order_and_recorded() -> None:
    llm = ScriptedChatModel(script=["one", AIMessage(content="two")], use_default=False)
    assert llm.invoke("a").content == "one"
    assert llm.invoke([HumanMessage("b")]).content == "two"
    with pytest.raises(ScriptExhausted):
        llm.invoke("c")
    assert [c.messages[-1].content for c in llm.calls] == ["a", "b", "c"]


def test_bind_tools_shares_the_log_and_records_the_tools_offered() -> None:
    llm = ScriptedChatModel(script=[tool_call("search_documents", query="x")])
    reply = llm.bind_tools([search_documents]).invoke("Question: x")
    assert reply.tool_calls[0]["name"] == "search_documents"
    assert reply.tool_calls[0]["args"] == {"query": "x"}
    assert llm.calls[0].tools == ["search_documents"]


def test_structured_output_from_script_rules_and_default() -> None:
    llm = ScriptedChatModel(script=[Verdict(ok=False, reason="scripted")])
    structured = llm.with_structured_output(Verdict)
    assert structured.invoke("q") == Verdict(ok=False, reason="scripted")
    assert structured.invoke("q") == Verdict()  # built from the schema's defaults
    raw = llm.with_structured_output(Verdict, include_raw=True).invoke("q")
    assert raw["parsed"] == Verdict() and raw["parsing_error"] is None
    assert llm.calls[0].schema == "Verdict"


def test_streams_token_by_token() -> None:
    llm = ScriptedChatModel(script=["hello there world"])
    chunks = [c.content for c in llm.stream("q")]
    assert len([c for c in chunks if c]) == 3 and "".join(chunks) == "hello there world"


def test_default_searches_then_says_done_or_quotes_the_best_passage() -> None:
    llm = ScriptedChatModel().bind_tools([search_documents])
    first = llm.invoke([HumanMessage("Question: What is Python?")])
    assert first.tool_calls[0]["args"] == {"query": "What is Python?"}
    result = ToolMessage(
        content='<passage parent_id="p2" document="a.md">Espresso is coffee.</passage>\n'
        '<passage parent_id="p1" document="py.pdf" pages="p. 4">Python is a language.'
        "</passage>",
        tool_call_id=first.tool_calls[0]["id"],
    )
    answer = llm.invoke([HumanMessage("Question: What is Python?"), first, result])
    assert answer.content == 'According to py.pdf: "Python is a language." [py.pdf, p. 4]'
    off_topic = llm.invoke([HumanMessage("Question: Who won in 1966?"), first, result])
    assert off_topic.content == "No passage answers anything about: Who won in 1966?"
    prompted = llm.invoke([SystemMessage(prompts.WRITE_UNITS_SYSTEM),
                           HumanMessage("Question: Who won in 1966?"), first, result])
    assert prompted.content.startswith(prompts.ABSTAIN_PREFIX + " anything about")
    # a research prompt that asks for a word once enough is gathered gets that word
    research = llm.invoke([SystemMessage(prompts.RESEARCH_SYSTEM),
                           HumanMessage("Question: What is Python?"), first, result])
    assert research.content == prompts.RESEARCH_DONE and not research.tool_calls


def test_delay_does_not_serialise_concurrent_calls() -> None:
    llm = ScriptedChatModel(delay_s=0.3)
    start = time.perf_counter()
    threads = [threading.Thread(target=llm.invoke, args=("q",)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.perf_counter() - start < 0.6


def test_selectable_by_setting() -> None:
    assert isinstance(make_chat_model(Settings(llm={"model": "scripted"})), ScriptedChatModel)
