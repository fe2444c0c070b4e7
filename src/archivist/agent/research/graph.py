r"""The research sub-agent's graph: one copy runs per sub-question.

::

    START --(a whole-document question)--> document --(answered)--> finish
      |--(a filing's metric: tables on)--> metric --(computed)--> finish; (not) --> gather
      \\--> gather --(a computation, or a sheet: tables on)--> tables --(answered)--> finish
               |--(nothing relevant)--> finish -> END
               |--(pipeline, web only)--> write -> finish
               |          (said nothing, or named a page not read: -> hop -> write, once)
               \\--(tools)--> agent <-> tools (-> compress -> agent)
                                  |--(no tool call: done)----------> write -> finish
                                  \\--(budget used up)--> fallback --> write -> finish

In both strategies the answer is written by ``write``, from the evidence units code
selects (``units.py``): in ``tools`` over everything the tool loop gathered.

``document`` (``research/document.py``) answers a question about a whole named document
from its sections (a map-reduce, summaries cached); when it cannot (no such section), the
sub-question is searched, within the named document first. ``metric``
(``research/metric_answer.py``) computes a metric a question asks of a filing in code;
when it cannot (a line item missing), the reason is a step and the sub-question is
searched. ``tables`` (``research/tables.py``) answers from one read-only SQL query over
the stored tables; when it cannot, the sub-question goes on as if it had not run.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.policy import CAPABLE, Policy
from archivist.agent.research.nodes import ResearchNodes
from archivist.agent.research.state import ResearchInput, ResearchOutput, ResearchState
from archivist.agent.strategy import StrategyChoice
from archivist.index.retriever import Retriever
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile
from archivist.settings import Settings
from archivist.web import WebSearchProvider


def build_research_graph(
    llm: BaseChatModel, retriever: Retriever, settings: Settings, *,
    fast_llm: BaseChatModel | None = None, web: WebSearchProvider | None = None,
    strategy: StrategyChoice | None = None, fast_profile: ModelProfile = DEFAULT_PROFILE,
    policy: Policy = CAPABLE, embedder: QueryEmbedder | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The research sub-agent as a subgraph (it shares the parent's checkpointer)."""
    nodes = ResearchNodes(llm, retriever, settings, fast_llm=fast_llm, web=web,
                          strategy=strategy, fast_profile=fast_profile, policy=policy,
                          embedder=embedder)
    graph = StateGraph(ResearchState, input_schema=ResearchInput, output_schema=ResearchOutput)
    graph.add_node("gather", nodes.corrective.gather)
    graph.add_node("write", nodes.corrective.write)
    graph.add_node("agent", nodes.agent)
    graph.add_node("tools", nodes.tools_node)
    graph.add_node("compress", nodes.compress)
    graph.add_node("fallback", nodes.fallback)
    graph.add_node("tables", nodes.tables)
    graph.add_node("document", nodes.document)
    graph.add_node("metric", nodes.metric)
    graph.add_node("finish", nodes.finish)
    graph.add_conditional_edges(START, nodes.start)
    graph.add_conditional_edges("document", nodes.after_document)
    graph.add_conditional_edges("metric", nodes.after_metric)
    graph.add_conditional_edges("gather", nodes.after_gather)
    graph.add_conditional_edges("tables", nodes.after_tables)
    graph.add_node("hop", nodes.hop)
    graph.add_conditional_edges("write", nodes.after_write)
    graph.add_conditional_edges("hop", nodes.after_hop)
    graph.add_conditional_edges("agent", nodes.after_agent)
    graph.add_conditional_edges("tools", nodes.after_tools)
    graph.add_edge("compress", "agent")
    graph.add_conditional_edges("fallback", nodes.after_fallback)
    graph.add_edge("finish", END)
    return graph.compile(name="research")
