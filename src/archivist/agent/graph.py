r"""Wire the agent: ``build_graph(llm, retriever, settings, checkpointer)``.

::

    START -> memory -> analyze --(unclear)--> clarify (interrupt) -> analyze
                          |--(route: direct)--> direct -> END
                          \\--(Send per sub-question)--> research* -> answer -> END

``research`` is the research sub-agent subgraph (see ``research/``); the fan-out runs
one copy per sub-question concurrently, and their sub-answers and evidence merge through
the state's reducers. Nothing here builds a model, a store or a web client: all are
injected. ``fast_llm`` (default: ``llm``) analyses, grades, summarises and compresses;
``llm`` researches and writes. ``web`` is the web search provider, or ``None`` (off).
``analyze`` decides the question's depth (``question/depth.py``): direct, one research
sub-agent, several, or a whole named document (the research sub-agent's document path);
on a small model a plain question is planned with no LLM call.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.nodes import ConversationNodes
from archivist.agent.policy import Policy, policy_for
from archivist.agent.research.graph import build_research_graph
from archivist.agent.state import AgentState
from archivist.agent.strategy import choose_strategy
from archivist.index.retriever import DocumentSource, Retriever
from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile, profile_for
from archivist.settings import Settings
from archivist.web import WebSearchProvider


def build_graph(
    llm: BaseChatModel,
    retriever: Retriever,
    settings: Settings,
    checkpointer: BaseCheckpointSaver[Any] | None,
    *,
    fast_llm: BaseChatModel | None = None,
    web: WebSearchProvider | None = None,
    fast_profile: ModelProfile = DEFAULT_PROFILE,
    policy: Policy | None = None,
    embedder: QueryEmbedder | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled conversation graph. Invoke it with ``{"question": ...}`` per turn.

    ``fast_profile`` is what ``fast_llm`` (or ``llm``) can do: how to ask it for
    structured output (see :class:`archivist.llm.ModelProfile`). ``policy`` is which
    checks by code apply (default: from the answering model's profile in ``settings``).
    ``embedder`` scores evidence units and checks claims; by default the retriever's own
    (the store's model, never a second copy); without one both use word statistics alone.
    """
    embedder = embedder if embedder is not None else getattr(retriever, "embedder", None)
    strategy = choose_strategy(settings)
    if policy is None:
        policy = policy_for(profile_for(settings), second_look=settings.agent.second_look,
                            verify_claims=settings.agent.verify_claims,
                            disabled=settings.agent.disabled_checks)
    source = retriever if isinstance(retriever, DocumentSource) else None
    nodes = ConversationNodes(
        llm, settings, fast_llm=fast_llm, web_enabled=web is not None, strategy=strategy,
        fast_profile=fast_profile, policy=policy, embedder=embedder,
        library=(lambda: [(d.name, d.title) for d in source.documents()]) if source else None,
    )
    research = build_research_graph(
        llm, retriever, settings, fast_llm=fast_llm, web=web, strategy=strategy,
        fast_profile=fast_profile, policy=policy, embedder=embedder,
    )
    graph = StateGraph(AgentState)
    graph.add_node("memory", nodes.memory)
    graph.add_node("analyze", nodes.analyze)
    graph.add_node("clarify", nodes.clarify)
    graph.add_node("direct", nodes.direct)
    graph.add_node("research", research)
    graph.add_node("answer", nodes.answer)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", "analyze")
    graph.add_conditional_edges("analyze", nodes.route, ["clarify", "direct", "research"])
    graph.add_edge("clarify", "analyze")
    graph.add_edge("direct", END)
    graph.add_edge("research", "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer, name="archivist")
