"""The research sub-agent: a small tool loop over one sub-question, run once per fan-out.

``seed`` searches with the sub-question itself (no LLM call: evidence always comes first),
then ``agent`` decides to search again, read parents, or answer; ``tools`` runs its calls
within budget and never repeats a search or a parent read; ``compress`` folds the working
memory into notes when it grows past ``compression_tokens``; ``fallback`` writes a
best-effort answer when a budget runs out; ``finish`` hands the sub-answer back.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.graph.state import CompiledStateGraph

from archivist.agent import prompts
from archivist.agent.state import ResearchInput, ResearchOutput, ResearchState, SubAnswer
from archivist.agent.steps import answer_config, emit_step, message_text, timed
from archivist.agent.tools import READ_PARENT, SEARCH, make_tools, tool_args_text
from archivist.index.retriever import Retriever
from archivist.settings import Settings

log = logging.getLogger(__name__)


def _key(name: str, arg: str) -> str:
    return f"{name}:{arg.lower()}"


def uses_tools(settings: Settings) -> bool:
    """Whether the sub-agent may call tools (``strategy``), or only answers from the seed search.

    ``pipeline`` (for models that cannot call tools): one search with the sub-question,
    then one answer. ``auto`` asks :func:`archivist.llm.supports_tool_calling`.
    """
    strategy = getattr(settings, "strategy", "auto")
    if strategy == "auto":
        from archivist.llm import supports_tool_calling

        return supports_tool_calling(settings)
    return bool(strategy == "tools")


class ResearchNodes:
    """The research loop's nodes, sharing one model, one retriever and the budgets."""

    def __init__(self, llm: BaseChatModel, retriever: Retriever, settings: Settings) -> None:
        self.llm = llm
        self.tools = {t.name: t for t in make_tools(retriever, settings.tool_result_hits)}
        self.llm_with_tools = (
            llm.bind_tools(list(self.tools.values())) if uses_tools(settings) else llm
        )
        self.max_tool_calls = settings.max_tool_calls
        self.max_iterations = settings.max_iterations
        self.compression_tokens = settings.compression_tokens

    # --- tool execution --------------------------------------------------------------
    def _run_calls(self, calls: list[ToolCall], state: ResearchState) -> dict[str, Any]:
        """Run tool calls within budget, skipping repeats; the state update."""
        used = state.get("tool_calls", 0)
        done = {_key(SEARCH, q) for q in state.get("queries_run", [])}
        done |= {_key(READ_PARENT, p) for p in state.get("parents_read", [])}
        index = state.get("index", 0)
        update: dict[str, Any] = {
            "messages": [], "evidence": [], "queries_run": [], "parents_read": []
        }
        hits = 0
        for call in calls:
            artifact: list[Any]
            name, arg = call["name"], tool_args_text(call.get("args", {}))
            call_id = call.get("id") or f"call-{used}"
            used += 1
            if used > self.max_tool_calls:
                text, artifact = "Not run: the tool-call budget is used up. Answer now.", []
            elif name not in self.tools:
                text, artifact = f"unknown tool: {name}", []
            elif _key(name, arg) in done:
                text, artifact = (
                    f"Already done: {name}({arg!r}). Its results are above or in your notes; "
                    "use a different query, or answer.",
                    [],
                )
                emit_step("repeat_skipped", f"{name}: {arg}", sub_question=index)
            else:
                done.add(_key(name, arg))
                text, artifact = self._invoke(name, call, arg)
                kind = "search" if name == SEARCH else "read_parent"
                emit_step(kind, arg, results=len(artifact), sub_question=index)
                if name == SEARCH:
                    update["queries_run"].append(arg)
                    hits += len(artifact)
                else:
                    update["parents_read"].append(arg)
            for item in artifact:
                item["sub_question"] = index
            update["evidence"].extend(artifact)
            update["messages"].append(
                ToolMessage(content=text, tool_call_id=call_id, name=name, artifact=artifact)
            )
        update["tool_calls"] = used
        update["hits_seen"] = state.get("hits_seen", 0) + hits
        return update

    def _invoke(self, name: str, call: ToolCall, arg: str) -> tuple[str, list[Any]]:
        try:
            message = self.tools[name].invoke(call)
        except Exception as exc:  # a failing tool tells the agent what failed, in one line
            log.warning("tool %s(%r) failed: %s", name, arg, exc, exc_info=True)
            return f"{name} failed: {type(exc).__name__}: {exc}", []
        return message_text(message.content), list(message.artifact or [])

    # --- nodes -------------------------------------------------------------------------
    @timed("research")
    def seed(self, state: ResearchState) -> dict[str, Any]:
        """Search with the sub-question itself before any LLM call."""
        question = state["sub_question"]
        call = ToolCall(
            name=SEARCH,
            args={"query": question},
            id=f"seed-{state.get('index', 0)}",
            type="tool_call",
        )
        update = self._run_calls([call], state)
        opening: list[AnyMessage] = [
            HumanMessage(prompts.RESEARCH_USER.format(question=question)),
            AIMessage(content="", tool_calls=[call]),
        ]
        update["messages"] = opening + update["messages"]
        return update

    @timed("research")
    def agent(self, state: ResearchState) -> dict[str, Any]:
        """One reasoning step: call tools, or answer."""
        messages = [SystemMessage(prompts.RESEARCH_SYSTEM), *state["messages"]]
        reply = self.llm_with_tools.invoke(
            messages, config=answer_config(state.get("stream_answer", False))
        )
        return {"messages": [reply], "iterations": state.get("iterations", 0) + 1}

    @timed("research")
    def tools_node(self, state: ResearchState) -> dict[str, Any]:
        """Run the tool calls of the last model message."""
        last = state["messages"][-1]
        calls = list(getattr(last, "tool_calls", []) or [])
        return self._run_calls(calls, state)

    @timed("compression")
    def compress(self, state: ResearchState) -> dict[str, Any]:
        """Fold the working memory into notes; keep the lists of searches and parents."""
        memory = "\n\n".join(
            f"[{m.type}] {message_text(m.content)}" for m in state["messages"]
        )
        words = max(100, self.compression_tokens // 6)
        reply = self.llm.invoke(
            [
                SystemMessage(prompts.COMPRESS_SYSTEM.format(max_words=words)),
                HumanMessage(
                    prompts.COMPRESS_USER.format(
                        question=state["sub_question"],
                        notes=state.get("notes", "") or "(none)",
                        memory=memory,
                    )
                ),
            ]
        )
        notes = message_text(reply.content).strip()
        header = prompts.NOTES_HEADER.format(
            notes=notes,
            queries="; ".join(state.get("queries_run", [])) or "(none)",
            parents=", ".join(state.get("parents_read", [])) or "(none)",
        )
        before = count_tokens_approximately(state["messages"])
        emit_step("compress", f"{before} tokens of working memory into notes",
                  sub_question=state.get("index", 0))
        question = prompts.RESEARCH_USER.format(question=state["sub_question"])
        return {
            "notes": notes,
            "compressions": state.get("compressions", 0) + 1,
            "messages": [
                RemoveMessage(id=REMOVE_ALL_MESSAGES),
                HumanMessage(f"{question}\n\n{header}"),
            ],
        }

    @timed("research")
    def fallback(self, state: ResearchState) -> dict[str, Any]:
        """Budget exhausted: a best-effort answer from what was gathered, no tools."""
        emit_step("budget", "research budget used up; answering from what was gathered",
                  sub_question=state.get("index", 0))
        closing: list[AnyMessage] = []
        last = state["messages"][-1]
        answered = {m.tool_call_id for m in state["messages"] if isinstance(m, ToolMessage)}
        for call in getattr(last, "tool_calls", []) or []:
            if call.get("id") not in answered:
                closing.append(ToolMessage(
                    content="Not run: the research budget is used up.",
                    tool_call_id=call.get("id") or "none", name=call["name"],
                ))
        messages = [
            SystemMessage(prompts.RESEARCH_SYSTEM),
            *state["messages"],
            *closing,
            HumanMessage(prompts.BUDGET_EXHAUSTED),
        ]
        reply = self.llm.invoke(messages, config=answer_config(state.get("stream_answer", False)))
        return {"messages": [*closing, reply], "budget_exhausted": True}

    def finish(self, state: ResearchState) -> dict[str, Any]:
        """Package the sub-answer (an honest abstention when nothing was retrieved)."""
        question = state["sub_question"]
        found = state.get("hits_seen", 0) > 0
        answer = ""
        if found:
            answer = message_text(state["messages"][-1].content).strip()
        if not answer:
            answer = prompts.NO_HITS.format(question=question)
        sub = SubAnswer(
            index=state.get("index", 0),
            question=question,
            answer=answer,
            found=found,
            budget_exhausted=state.get("budget_exhausted", False),
        )
        return {"sub_answers": [sub]}

    # --- routing -----------------------------------------------------------------------
    def _out_of_budget(self, state: ResearchState) -> bool:
        return (
            state.get("tool_calls", 0) >= self.max_tool_calls
            or state.get("iterations", 0) >= self.max_iterations
        )

    def after_seed(self, state: ResearchState) -> Literal["agent", "finish"]:
        """Nothing at all in the index: abstain without asking the model."""
        return "agent" if state.get("hits_seen", 0) else "finish"

    def after_agent(self, state: ResearchState) -> Literal["tools", "fallback", "finish"]:
        """Tool calls go to ``tools`` unless the budget is spent; an answer finishes."""
        if getattr(state["messages"][-1], "tool_calls", None):
            return "fallback" if self._out_of_budget(state) else "tools"
        return "finish"

    def after_tools(self, state: ResearchState) -> Literal["agent", "compress", "fallback"]:
        """Continue, compress first, or stop on budget."""
        if self._out_of_budget(state):
            return "fallback"
        if count_tokens_approximately(state["messages"]) > self.compression_tokens:
            return "compress"
        return "agent"


def build_research_graph(
    llm: BaseChatModel, retriever: Retriever, settings: Settings
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The research sub-agent as a subgraph (it shares the parent's checkpointer)."""
    nodes = ResearchNodes(llm, retriever, settings)
    graph = StateGraph(ResearchState, input_schema=ResearchInput, output_schema=ResearchOutput)
    graph.add_node("seed", nodes.seed)
    graph.add_node("agent", nodes.agent)
    graph.add_node("tools", nodes.tools_node)
    graph.add_node("compress", nodes.compress)
    graph.add_node("fallback", nodes.fallback)
    graph.add_node("finish", nodes.finish)
    graph.add_edge(START, "seed")
    graph.add_conditional_edges("seed", nodes.after_seed)
    graph.add_conditional_edges("agent", nodes.after_agent)
    graph.add_conditional_edges("tools", nodes.after_tools)
    graph.add_edge("compress", "agent")
    graph.add_edge("fallback", "finish")
    graph.add_edge("finish", END)
    return graph.compile(name="research")
