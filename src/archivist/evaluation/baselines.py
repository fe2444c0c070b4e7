"""The systems ``eval answers`` can measure: the agent, and two baselines beside it.

* ``agent``: the full conversation graph (analysis, corrective research, compose), asked
  through the agent service in a fresh conversation per item.
* ``naive``: naive RAG. One hybrid search for the question (the top ``search_k`` chunks)
  stuffed into one answering call with the agent's own writing prompt. No analysis, no
  grading, no second search.
* ``closed-book``: one call with the question alone, no retrieval: what the model knows.

Each returns the same record (answer, sources, the contexts read, stats) so one scorer and
one report serve all three, and the comparison is the same model, the same items.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from archivist.agent import prompts
from archivist.agent.answer.sources import build_sources
from archivist.agent.stats import LLMCallCounter
from archivist.agent.steps import message_text
from archivist.agent.tools import evidence_block, hit_evidence
from archivist.evaluation.qa_datasets import QAItem
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.application import Application

__all__ = ["CLOSED_BOOK_SYSTEM", "SYSTEMS", "Asker", "make_asker"]

SYSTEMS = ("agent", "naive", "closed-book")

CLOSED_BOOK_SYSTEM = """Answer the question from your own knowledge, concisely and with no
preamble. If you do not know the answer, reply "I don't know"."""

Asker = Callable[[QAItem], dict[str, Any]]
"""Answers one item; returns ``answer, status, confidence, error, sources, contexts, steps,
stats`` (the fields of an ``answers.jsonl`` record other than the item and its scores)."""


def _one_call(
    llm: BaseChatModel, system: str, user: str
) -> tuple[str, dict[str, Any], str | None]:
    """One model call, counted; a failure becomes the record's error, not an exception."""
    from archivist.llm import is_connection_error

    counter = LLMCallCounter()
    started = time.perf_counter()
    error = None
    text = ""
    try:
        reply = llm.invoke(
            [SystemMessage(system), HumanMessage(user)], config={"callbacks": [counter]}
        )
        text = message_text(reply.content).strip()
    except Exception as exc:
        if not is_connection_error(exc) and not isinstance(exc, ArchivistError):
            raise
        error = f"{type(exc).__name__}: {exc}"
    stats = {
        "llm_calls": counter.calls,
        "tokens_in": counter.tokens_in,
        "tokens_out": counter.tokens_out,
        "llm_seconds": round(counter.seconds, 4),
        "wall_seconds": round(time.perf_counter() - started, 4),
    }
    return text, stats, error


def _naive(app: Application, llm: BaseChatModel, collection: str | None) -> Asker:
    def ask(item: QAItem) -> dict[str, Any]:
        started = time.perf_counter()
        hits = app.searcher.search(item.question, collection=collection)
        evidence = [hit_evidence(h) for h in hits]
        passages = "\n".join(evidence_block(e) for e in evidence)
        user = prompts.write_user(passages, item.question)
        answer, stats, error = _one_call(llm, prompts.WRITE_SYSTEM, user)
        stats["wall_seconds"] = round(time.perf_counter() - started, 4)
        report = build_sources(answer, evidence)
        context = {"tool": "search_documents", "input": item.question, "text": passages,
                   "evidence": [dict(e) for e in evidence]}
        return {
            "answer": answer, "status": "answered" if not error else "error",
            "confidence": None, "error": error,
            "sources": [asdict(s) for s in report.sources],
            "contexts": [context], "steps": [], "stats": stats,
        }

    return ask


def _closed_book(llm: BaseChatModel) -> Asker:
    def ask(item: QAItem) -> dict[str, Any]:
        answer, stats, error = _one_call(llm, CLOSED_BOOK_SYSTEM, f"Question: {item.question}")
        return {
            "answer": answer, "status": "answered" if not error else "error",
            "confidence": None, "error": error, "sources": [], "contexts": [], "steps": [],
            "stats": stats,
        }

    return ask


def _agent(
    app: Application, collection: str | None, strategy: str | None,
    overrides: dict[str, Any] | None = None,
) -> Asker:
    from archivist.evaluation.contexts import ContextCollector
    from archivist.observability import attach_callbacks

    # another strategy: a second service on the same model, closed with the application
    changes = {**(overrides or {}), **({"strategy": strategy} if strategy else {})}
    service = app.agent_with(agent=changes)

    def ask(item: QAItem) -> dict[str, Any]:
        collector = ContextCollector()
        started = time.perf_counter()
        with attach_callbacks([collector]):
            result = service.ask(
                item.question, thread_id=service.new_thread_id(), collection=collection
            )
        return {
            "answer": result.answer, "status": result.status,
            "confidence": result.confidence, "error": result.error,
            "sources": [asdict(s) for s in result.sources], "claims": result.claims,
            "contexts": collector.contexts, "steps": result.steps,
            "stats": {**result.stats, "eval_seconds": round(time.perf_counter() - started, 4)},
        }

    return ask


def make_asker(
    app: Application, system: str = "agent", collection: str | None = None,
    llm: BaseChatModel | None = None, strategy: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> Asker:
    """The answering function of ``system`` (``agent``, ``naive`` or ``closed-book``).

    The baselines use ``llm`` when given, else the agent service's model, so all three
    systems run on the same model. ``strategy`` (``tools`` or ``pipeline``) sets the
    agent's research strategy when it differs from the library's settings; ``overrides``
    are other settings of the agent group (e.g. ``{"table_queries": False}``).
    """
    if system not in SYSTEMS:
        raise ArchivistError(f"unknown system '{system}' (use {', '.join(SYSTEMS)})")
    if system == "agent":
        return _agent(app, collection, strategy, overrides)
    if llm is None:
        llm = app.agent.llm
    if system == "naive":
        return _naive(app, llm, collection)
    return _closed_book(llm)
