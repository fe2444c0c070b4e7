"""The research sub-agent: one copy per sub-question, as a LangGraph subgraph.

``graph`` wires it, ``state`` types it, ``nodes`` holds the reasoning loop, ``corrective``
the search-grade-rewrite-web step, ``toolround`` the tool executor, ``grading`` the
relevance grader.
"""

from __future__ import annotations

from archivist.agent.research.graph import build_research_graph

__all__ = ["build_research_graph"]
