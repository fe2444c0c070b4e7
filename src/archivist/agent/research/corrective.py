"""Corrective retrieval (CRAG), run by code before any answer is written.

``gather`` opens every research sub-agent, whichever the strategy:

1. search the documents with the sub-question (or, on the ``web`` route, the web first);
2. grade all passages in one call on the fast model; only relevant ones are kept; when
   they lead halfway (they name the work or person the question is about, not the fact
   asked), the grader also proposes the next hop's query, which is searched and graded
   once more (IRCoT-style: the next retrieval follows from what was read);
3. none relevant: search once more with the grader's rewritten query, and grade again;
4. still none: search the web when it is enabled (results graded the same way), else the
   sub-agent abstains honestly without asking the model anything.

Each search is recorded as a tool call and its *graded* result, so in the ``tools``
strategy the model continues from passages that are all relevant. ``write`` answers from
the kept passages without tools (the ``pipeline`` strategy, and web-only evidence); in
``pipeline`` it first reads the whole parent section of each kept passage, best first,
within ``read_chars`` characters; then code selects the sentences, list items and table
rows that bear on the question within a token budget, and the writer sees only those,
numbered, and cites their numbers (``units.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool

from archivist.agent import prompts
from archivist.agent.evidence.gate import (
    keyword_query,
    names_section,
    offered_sections,
    restates,
)
from archivist.agent.evidence.units import (
    MIN_SHARE,
    QueryEmbedder,
    render_units,
    select_units,
    unit_evidence,
)
from archivist.agent.research.grading import Gate, GradeOutcome
from archivist.agent.research.state import ResearchState
from archivist.agent.state import Evidence, for_sub_question, graded_as
from archivist.agent.steps import StepKind, emit_step, message_text, timed
from archivist.agent.tools import (
    READ_PARENT,
    SEARCH,
    evidence_key,
    render_kept,
    web_evidence,
)
from archivist.web import WebSearchProvider, WebUnavailable

log = logging.getLogger(__name__)
WEB_TOOL = "web_search"


@dataclass
class Screened:
    """One round's passages after grading."""

    shown: list[Evidence] = field(default_factory=list)  # kept (new or seen before)
    new: list[Evidence] = field(default_factory=list)  # relevant and not yet in evidence
    dropped: int = 0
    graded_keys: list[str] = field(default_factory=list)
    rejected_keys: list[str] = field(default_factory=list)
    rewritten_query: str = ""
    next_query: str = ""

    def kept_of(self, items: list[Evidence]) -> list[Evidence]:
        """The kept versions (with their grade) of some of the round's items."""
        kept = {evidence_key(e): e for e in self.shown}
        return [kept[k] for k in (evidence_key(i) for i in items) if k in kept]


def screen(
    grader: Gate, question: str, items: list[Evidence], index: int, *,
    graded: Collection[str], rejected: Collection[str], evidence: Iterable[Evidence],
    named: Callable[[Evidence], bool] | None = None,
) -> Screened:
    """Grade a round's new passages in one call; reuse earlier grades for repeats.

    ``graded`` and ``rejected`` are the keys of passages graded before (and of those found
    irrelevant); ``evidence`` is what was kept so far. A parent read whose passage was
    already judged relevant is kept without grading, and so is a passage ``named``
    accepts (a hop's bridge page: :func:`~archivist.agent.evidence.gate.names_section`).
    """
    good_parents = {e["parent_id"] for e in evidence}
    out = Screened()
    fresh: list[Evidence] = []
    for item in items:
        key = evidence_key(item)
        if key in rejected:
            out.dropped += 1
        elif key in graded:
            out.shown.append(graded_as(item, "relevant"))
        elif (item["kind"] == "parent" and item["parent_id"] in good_parents) or (
                named is not None and item["parent_id"] not in good_parents and named(item)):
            kept = graded_as(item, "relevant")
            out.shown.append(kept)
            out.new.append(kept)
            out.graded_keys.append(key)
        else:
            fresh.append(item)
    if fresh:
        outcome = grader.grade(question, fresh, index)
        out.shown += outcome.kept
        out.new += outcome.kept
        out.dropped += len(outcome.dropped)
        out.graded_keys += [evidence_key(i) for i in fresh]
        out.rejected_keys += [evidence_key(i) for i in outcome.dropped]
        out.rewritten_query = outcome.rewritten_query
        out.next_query = outcome.next_query
    return out


class _KeepNone:
    """A gate that keeps no passage (a hop after an answer keeps only the pages it named)."""

    def grade(self, question: str, items: list[Evidence], sub_question: int = 0) -> GradeOutcome:
        """Drop every passage."""
        return GradeOutcome(dropped=list(items))


_KEEP_NONE = _KeepNone()


class Corrective:
    """The ``gather`` and ``write`` nodes of a research sub-agent."""

    def __init__(
        self, llm: BaseChatModel, grader: Gate, search_tool: BaseTool,
        web: WebSearchProvider | None, web_results: int = 3, *,
        read_tool: BaseTool | None = None, read_chars: int = 0,
        embedder: QueryEmbedder | None = None, unit_tokens: int = 2500,
        unit_floor: float = MIN_SHARE, write_system: str = prompts.WRITE_UNITS_SYSTEM,
    ) -> None:
        self.llm = llm
        self.grader = grader
        self.search_tool = search_tool
        self.web = web
        self.web_results = web_results
        self.read_tool = read_tool
        self.read_chars = read_chars
        self.embedder = embedder
        self.unit_tokens = unit_tokens
        self.unit_floor = unit_floor
        self.write_system = write_system

    # --- one search round -------------------------------------------------------------
    def _screen(self, question: str, items: list[Evidence], state: ResearchState,
                update: dict[str, Any], *, named_only: bool = False) -> Screened:
        """Grade against ``question``; one dropped for another question is graded anew.

        Screened for a hop's own query, a passage of a section not yet kept whose title
        that query names is kept; with ``named_only``, nothing else is.
        """
        evidence = [*state.evidence, *update["evidence"]]
        if question == state.sub_question:
            graded = {*state.graded, *update["graded"]}
            rejected = {*state.rejected, *update["rejected"]}
        else:  # a hop's own query: what was kept stays kept, nothing else counts
            graded, rejected = {evidence_key(e) for e in evidence}, set()
        named = None if question == state.sub_question else partial(names_section, question)
        return screen(_KEEP_NONE if named_only else self.grader, question, items,
                      state.index, graded=graded, rejected=rejected, evidence=evidence,
                      named=named)

    def _record(self, update: dict[str, Any], name: str, query: str, text: str,
                screened: Screened, call_id: str) -> None:
        call = ToolCall(name=name, args={"query": query}, id=call_id, type="tool_call")
        update["messages"] += [
            AIMessage(content="", tool_calls=[call]),
            ToolMessage(content=text, tool_call_id=call_id, name=name, artifact=screened.new),
        ]
        update["evidence"] += screened.new
        update["graded"] += screened.graded_keys
        update["rejected"] += screened.rejected_keys

    def _documents(self, query: str, state: ResearchState, update: dict[str, Any], *,
                   screen_as: str = "", named_only: bool = False, hop: bool = False
                   ) -> Screened:
        """One search, its passages screened against ``screen_as`` (the sub-question).

        The search keeps to the documents the whole question names (the tool's ``scope``),
        except a hop's: it looks for the bridge the first passages named, which may be
        printed elsewhere, so only the documents its own query names bound it.
        """
        index = state.index
        call_id = f"gather-{index}-{len(update['queries_run'])}"
        message = self.search_tool.invoke(ToolCall(
            name=SEARCH, args={"query": query, "scope": "" if hop else state.question},
            id=call_id, type="tool_call"))
        items = [for_sub_question(e, index) for e in message.artifact or []]
        emit_step(StepKind.SEARCH, query, results=len(items), sub_question=index)
        update["queries_run"].append(query)
        update["tool_calls"] += 1
        update["hits_seen"] += len(items)
        screened = self._screen(screen_as or state.sub_question, items, state, update,
                                named_only=named_only)
        text = render_kept(query, screened.shown, screened.dropped) if items else message_text(
            message.content)
        self._record(update, SEARCH, query, text, screened, call_id)
        return screened

    def find(self, query: str, state: ResearchState) -> list[Evidence]:
        """One search for ``query``, its passages ungraded (a claim searched for support).

        Like the question's own searches it keeps to the documents the whole question
        names, or to those of them ``query`` names itself.
        """
        index = state.index
        message = self.search_tool.invoke(ToolCall(
            name=SEARCH, args={"query": query, "scope": state.question},
            id=f"support-{index}", type="tool_call"))
        items = [for_sub_question(e, index) for e in message.artifact or []]
        emit_step(StepKind.SEARCH, query, results=len(items), sub_question=index,
                  reason="a claim names what its passages do not: searching for it")
        return items

    def _web(self, query: str, state: ResearchState, update: dict[str, Any]) -> Screened:
        index = state.index
        assert self.web is not None
        update["web_tried"] = True
        try:
            results = self.web.search(query, k=self.web_results)
        except WebUnavailable as exc:
            log.warning("web search failed: %s", exc)
            emit_step(StepKind.WEB_UNAVAILABLE, str(exc), sub_question=index)
            return Screened()
        items = [web_evidence(r, index) for r in results]
        emit_step(StepKind.WEB_SEARCH, query, results=len(items), provider=self.web.name,
                  sub_question=index)
        screened = self._screen(state.sub_question, items, state, update)
        text = render_kept(query, screened.shown, screened.dropped)
        self._record(update, WEB_TOOL, query, text, screened, f"web-{index}")
        return screened

    # --- nodes ------------------------------------------------------------------------
    @timed("research")
    def gather(self, state: ResearchState) -> dict[str, Any]:
        """Search, grade, retry once with a rewritten query, then the web or nothing."""
        question = state.sub_question
        index = state.index
        update: dict[str, Any] = {
            "messages": [HumanMessage(prompts.RESEARCH_USER.format(question=question))],
            "evidence": [], "graded": [], "rejected": [], "queries_run": [],
            "tool_calls": 0, "hits_seen": 0, "web_only": False, "web_tried": False,
        }
        if state.route == "web" and self.web is not None:
            if self._web(question, state, update).new:
                update["web_only"] = True
                return update
            emit_step(StepKind.ROUTE, "documents (nothing relevant from the web)",
                      sub_question=index)
        first = self._documents(question, state, update)
        if first.shown:
            hop = first.next_query
            if hop and not restates(hop, question, update["queries_run"]):
                emit_step(StepKind.NEXT_HOP, hop, original=question, sub_question=index)
                self._documents(hop, state, update, hop=True)
            return update
        rewrite = first.rewritten_query or keyword_query(question)
        if rewrite and rewrite.lower() not in {q.lower() for q in update["queries_run"]}:
            emit_step(StepKind.RETRY, rewrite, original=question, sub_question=index)
            if self._documents(rewrite, state, update).shown:
                return update
        if self.web is not None and not update["web_tried"]:
            emit_step(StepKind.WEB_FALLBACK, "nothing relevant in the documents",
                      sub_question=index)
            if self._web(rewrite or question, state, update).new:
                update["web_only"] = True
        return update

    @timed("research")
    def hop(self, state: ResearchState, query: str, *, reason: str,
            named_only: bool = False) -> dict[str, Any]:
        """One more search, screened against ``query`` itself: the second hop of a question.

        Its passages are about the bridge the first ones named, not the question's own
        subjects, so the question would screen them out. With ``named_only`` only a page
        the query's names name counts, and the step shows only when one is found.
        Nothing new: no message is kept, so the answer written before stays the last one.
        """
        update: dict[str, Any] = {
            "messages": [], "evidence": [], "graded": [], "rejected": [], "queries_run": [],
            "tool_calls": state.tool_calls, "hits_seen": state.hits_seen,
            "hops": state.hops + 1, "hop_query": "\n".join(filter(None, [state.hop_query, query])),
        }
        if query.lower() in {q.lower() for q in state.queries_run}:
            return update
        if not named_only:
            emit_step(StepKind.NEXT_HOP, query, original=state.sub_question, reason=reason,
                      sub_question=state.index)
        found = self._documents(query, state, update, screen_as=query, named_only=named_only,
                               hop=True).new
        if named_only and found:
            emit_step(StepKind.NEXT_HOP, query, original=state.sub_question, reason=reason,
                      sub_question=state.index,
                      pages=[" > ".join(e.get("heading_path") or []) for e in found])
        update["hop_found"] = bool(found)
        update["hop_sections"] = list(dict.fromkeys(
            [*state.hop_sections, *(e["parent_id"] for e in found)]))
        if not update["hop_found"]:
            update["messages"] = []
        return update

    def read_parents(self, state: ResearchState) -> list[Evidence]:
        """The parent sections of the kept passages, best first, within ``read_chars``.

        A parent already in the evidence is not read again; reading stops at the first
        section that would overflow the budget.
        """
        if self.read_tool is None or self.read_chars <= 0:
            return []
        have = {e["parent_id"] for e in state.evidence if e["kind"] == "parent"}
        budget = self.read_chars - sum(len(e.get("text", "")) for e in state.evidence
                                       if e["kind"] == "parent")
        parents: list[Evidence] = []
        for hit in state.evidence:
            parent_id = hit["parent_id"]
            if hit["kind"] != "hit" or parent_id in have or budget <= len(hit.get("text", "")):
                continue
            have.add(parent_id)
            call_id = f"parent-{state.index}-{len(parents)}"
            message = self.read_tool.invoke(ToolCall(
                name=READ_PARENT, args={"parent_id": parent_id}, id=call_id, type="tool_call"
            ))
            read = list(message.artifact or [])
            if not read or len(read[0].get("text", "")) > budget:
                break  # the best remaining section does not fit: no more reading
            for item in read:
                budget -= len(item.get("text", ""))
                grade = hit.get("grade", "relevant")  # a section is worth what led to it
                kept = graded_as(for_sub_question(item, state.index), grade)
                parents.append(kept)
                emit_step(StepKind.READ_PARENT, parent_id, pages=item["pages"],
                          sub_question=state.index)
        return parents

    @timed("research")
    def write(self, state: ResearchState) -> dict[str, Any]:
        """Answer from the evidence units that bear on the question (sections read first).

        The sentences, list items and table rows of the kept passages and the sections
        read are scored against the sub-question (and a hop's query, after a hop) and the
        best fill ``unit_tokens``; the writer sees only them, numbered, and cites their
        numbers (see ``units.py``).
        """
        parents = self.read_parents(state)
        evidence = [*state.evidence, *parents]
        # after a hop, units are chosen for both searches: the bridge's facts share few
        # words with the question, so each section the hop found shows its best unit
        wanted = f"{state.sub_question}\n{state.hop_query}".strip()
        each_of = {*state.hop_sections, *offered_sections(state.sub_question, evidence)}
        selection = select_units(wanted, evidence, self.embedder,
                                 budget_tokens=self.unit_tokens, each_of=each_of,
                                 floor=self.unit_floor)
        emit_step(StepKind.EVIDENCE, f"{len(selection.units)} of {selection.considered} "
                  f"sentences, items and rows (about {selection.tokens()} tokens)",
                  sub_question=state.index)
        prompt = prompts.write_user(render_units(selection, evidence), state.sub_question,
                                    state.instructions)
        reply = self.llm.invoke([SystemMessage(self.write_system), HumanMessage(prompt)])
        units = [unit_evidence(selection, evidence, n)
                 for n in range(1, len(selection.units) + 1)]
        return {"messages": [reply], "evidence": parents, "units": units,
                "parents_read": [p["parent_id"] for p in parents], "write_prompt": prompt}
