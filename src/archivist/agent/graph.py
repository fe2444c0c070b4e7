r"""Wire the agent: ``build_graph(llm, retriever, settings, checkpointer)``.

::

    START -> memory -> analyze --(unclear)--> clarify (interrupt) -> analyze
                          \\--(Send per sub-question)--> research* -> answer -> END

``research`` is the research sub-agent subgraph (see ``research.py``); the fan-out runs
one copy per sub-question concurrently, and their sub-answers and evidence merge through
the state's reducers. Nothing here builds a model or a store: all four are injected.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from archivist.agent.nodes import ConversationNodes
from archivist.agent.research import build_research_graph
from archivist.agent.state import AgentState
from archivist.index.retriever import Retriever
from archivist.settings import Settings


def build_graph(
    llm: BaseChatModel,
    retriever: Retriever,
    settings: Settings,
    checkpointer: BaseCheckpointSaver[Any] | None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled conversation graph. Invoke it with ``{"question": ...}`` per turn."""
    nodes = ConversationNodes(llm, settings)
    graph = StateGraph(AgentState)
    graph.add_node("memory", nodes.memory)
    graph.add_node("analyze", nodes.analyze)
    graph.add_node("clarify", nodes.clarify)
    graph.add_node("research", build_research_graph(llm, retriever, settings))
    graph.add_node("answer", nodes.answer)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", "analyze")
    graph.add_conditional_edges("analyze", nodes.route, ["clarify", "research"])
    graph.add_edge("clarify", "analyze")
    graph.add_edge("research", "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer, name="archivist")
