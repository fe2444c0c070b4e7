"""Qdrant Edge shard settings: the vectors, the HNSW graph of large segments, search depth.

Small segments stay plain and are searched exactly. A write segment grown past the indexing
threshold (``GRAPH_THRESHOLD_KB``, about 33,000 chunks of 384 dimensions) becomes, when the
shard is optimized, a read-only segment with an HNSW graph: a search then visits a few
thousand vectors instead of all of them (measured in docs/results.md, "Search at scale").
"""

from __future__ import annotations

from typing import Any

import qdrant_edge as qe

from archivist.index.vectors import DENSE, GRAPH_THRESHOLD_KB, SEARCH_EF, SPARSE

#: The HNSW graph a read-only segment gets when the optimizer builds it from a write segment
#: grown past ``GRAPH_THRESHOLD_KB``; smaller segments stay plain and are searched exactly.
#: Qdrant's own defaults (m=16, ef_construct=100); ``payload_m=0``: no extra graphs per
#: payload value.
GRAPH_M = 16
GRAPH_EF_CONSTRUCT = 100


def _graph(threshold_kb: int) -> qe.HnswIndexConfig:
    """The graph settings; below ``threshold_kb`` of matching vectors a search is a scan."""
    return qe.HnswIndexConfig(
        m=GRAPH_M, ef_construct=GRAPH_EF_CONSTRUCT, full_scan_threshold=threshold_kb,
        payload_m=0,
    )


def _sparse_params() -> dict[str, qe.EdgeSparseVectorParams]:
    return {SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}


def edge_config(dimension: int, graph_threshold_kb: int | None = None) -> qe.EdgeConfig:
    """Named cosine dense vectors and BM25 sparse vectors whose IDF the engine applies.

    ``graph_threshold_kb`` replaces ``GRAPH_THRESHOLD_KB`` (tests build small graphs).
    """
    threshold = graph_threshold_kb or GRAPH_THRESHOLD_KB
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)},
        sparse_vectors=_sparse_params(),
        hnsw_config=_graph(threshold),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=threshold),
    )


def has_current_graph_settings(config: dict[str, Any]) -> bool:
    """Whether a shard's ``edge_config.json`` has this graph setting and its own threshold."""
    hnsw = config.get("hnsw_config") or {}
    wanted = {"m": GRAPH_M, "ef_construct": GRAPH_EF_CONSTRUCT, "payload_m": 0}
    threshold = (config.get("optimizers") or {}).get("indexing_threshold")
    return threshold is not None and all(hnsw.get(key) == value for key, value in wanted.items())


def upgrade_config(config: dict[str, Any]) -> qe.EdgeConfig:
    """The settings written over an older shard's on load (vectors inherited from it).

    A threshold the shard was given is kept; one left to the engine's default (10 MB, about
    6,500 chunks) becomes ``GRAPH_THRESHOLD_KB``.
    """
    threshold = (config.get("optimizers") or {}).get("indexing_threshold") or GRAPH_THRESHOLD_KB
    return qe.EdgeConfig(
        sparse_vectors=_sparse_params(), hnsw_config=_graph(threshold),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=threshold),
    )


def search_params(depth: int) -> qe.SearchParams:
    """A graph search keeping at least ``SEARCH_EF`` candidates (ignored by plain segments)."""
    return qe.SearchParams(hnsw_ef=max(SEARCH_EF, depth))
