"""Retrieval evaluation over a BEIR folder: document rankings from chunk hits, per mode.

The index stores child chunks, so a search returns several hits per document. A document's
rank is the rank of its best child: hits arrive best first, so the document takes its
first occurrence (its maximum score). To rank ``depth`` distinct documents (100 for
Recall@100) the search asks for ``depth * child_factor`` children.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archivist.evaluation.beir import BeirDataset, collection_for, ingest_corpus, load_beir
from archivist.evaluation.metrics import mean, mrr_at_k, ndcg_at_k, precision_at_k, recall_at_k
from archivist.types import SearchHit

if TYPE_CHECKING:
    from archivist.application import Application
    from archivist.settings import SearchMode

__all__ = [
    "DEFAULT_METRICS",
    "MODES",
    "ModeResult",
    "QueryResult",
    "RetrievalReport",
    "document_ranking",
    "evaluate_retrieval",
    "parse_metric",
    "score_ranking",
]

MODES: tuple[SearchMode, ...] = ("bm25", "dense", "hybrid")
DEFAULT_METRICS: tuple[str, ...] = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
_FUNCTIONS = {
    "ndcg": ndcg_at_k,
    "recall": recall_at_k,
    "mrr": mrr_at_k,
    "precision": precision_at_k,
}

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``; stage is ``"ingest"`` or a search mode."""


def parse_metric(name: str) -> tuple[str, int]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; raises ``ValueError`` for an unknown metric."""
    kind, _, cutoff = name.lower().partition("@")
    if kind not in _FUNCTIONS or not cutoff.isdigit() or int(cutoff) < 1:
        known = ", ".join(f"{k}@N" for k in _FUNCTIONS)
        raise ValueError(f"unknown metric '{name}' (use {known})")
    return kind, int(cutoff)


def document_ranking(hits: Iterable[SearchHit], depth: int | None = None) -> list[str]:
    """Distinct ``document_name`` values in order of their best (first) hit."""
    seen: dict[str, None] = {}
    for hit in hits:
        seen.setdefault(hit.document_name, None)
        if depth is not None and len(seen) >= depth:
            break
    return list(seen)


def score_ranking(
    ranked_ids: Sequence[str], qrels: dict[str, int], metrics: Sequence[str]
) -> dict[str, float | None]:
    """Every metric of one ranking (``None`` when the query has no relevant document)."""
    out: dict[str, float | None] = {}
    for name in metrics:
        kind, k = parse_metric(name)
        out[name] = _FUNCTIONS[kind](ranked_ids, qrels, k)
    return out


@dataclass
class QueryResult:
    """One query under one mode: its metrics and the top of its document ranking."""

    query_id: str
    metrics: dict[str, float | None]
    top: list[str]
    relevant: list[str]
    seconds: float


@dataclass
class ModeResult:
    """Averages and per-query results of one search mode."""

    mode: str
    aggregates: dict[str, float]
    queries: list[QueryResult]
    seconds: float


@dataclass
class RetrievalReport:
    """Everything one retrieval evaluation measured."""

    dataset: str
    dataset_path: str
    collection: str
    query_count: int
    corpus_size: int
    metrics: list[str]
    depth: int
    child_factor: int
    ingest_seconds: float
    ingest_counts: dict[str, int]
    ingest_timings: dict[str, float]
    modes: dict[str, ModeResult] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return asdict(self)

    def table(self) -> list[tuple[str, list[float]]]:
        """Rows ``(metric, [value per mode])`` in the order of ``self.modes``."""
        return [(m, [r.aggregates[m] for r in self.modes.values()]) for m in self.metrics]


def evaluate_retrieval(
    app: Application,
    beir_dir: Path | str | BeirDataset,
    modes: Sequence[SearchMode] = MODES,
    collection: str | None = None,
    limit_queries: int | None = None,
    progress: Progress | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    depth: int = 100,
    child_factor: int = 10,
) -> RetrievalReport:
    """Ingest the corpus (reusing an existing index), then score each mode on the queries.

    Only queries with qrels are evaluated (``limit_queries`` keeps the first N of them).
    """
    for name in metrics:
        parse_metric(name)
    dataset = beir_dir if isinstance(beir_dir, BeirDataset) else load_beir(beir_dir)
    target = collection or collection_for(dataset)
    started = time.perf_counter()

    def on_ingest(p: Any) -> None:
        if progress:
            progress("ingest", p.files_done, p.files_total)

    ingest = ingest_corpus(app, dataset, target, on_ingest)
    report = RetrievalReport(
        dataset=dataset.name,
        dataset_path=str(dataset.path),
        collection=target,
        query_count=0,
        corpus_size=len(dataset.corpus),
        metrics=list(metrics),
        depth=depth,
        child_factor=child_factor,
        ingest_seconds=time.perf_counter() - started,
        ingest_counts=ingest.counts,
        ingest_timings=dict(ingest.timings),
        settings=_relevant_settings(app),
    )
    if "graph" in modes:  # the entity graph is built here, not inside the first query's time
        started = time.perf_counter()
        app.store.graph_indexer.sync(target)
        report.ingest_timings["graph"] = time.perf_counter() - started
    queries = dataset.judged_queries()[:limit_queries]
    report.query_count = len(queries)
    for mode in modes:
        report.modes[mode] = _run_mode(app, dataset, queries, mode, target, report, progress)
    return report


def _run_mode(
    app: Application,
    dataset: BeirDataset,
    queries: Sequence[Any],
    mode: SearchMode,
    collection: str,
    report: RetrievalReport,
    progress: Progress | None,
) -> ModeResult:
    started = time.perf_counter()
    results: list[QueryResult] = []
    for done, query in enumerate(queries, start=1):
        t0 = time.perf_counter()
        hits = app.searcher.search(query.text, report.depth * report.child_factor, mode, collection)
        ranking = document_ranking(hits, report.depth)
        qrels = dataset.qrels[query.query_id]
        results.append(
            QueryResult(
                query_id=query.query_id,
                metrics=score_ranking(ranking, qrels, report.metrics),
                top=ranking[:10],
                relevant=sorted(d for d, g in qrels.items() if g > 0),
                seconds=time.perf_counter() - t0,
            )
        )
        if progress:
            progress(mode, done, len(queries))
    aggregates = {m: mean(r.metrics[m] for r in results) for m in report.metrics}
    return ModeResult(mode, aggregates, results, time.perf_counter() - started)


def _relevant_settings(app: Application) -> dict[str, Any]:
    s = app.settings
    return {
        "embedding_model": s.index.embedding_model,
        "prefetch_k": s.index.prefetch_k,
        "child_chars": s.index.child_chars,
        "child_overlap": s.index.child_overlap,
        "parent_min_chars": s.index.parent_min_chars,
        "parent_max_chars": s.index.parent_max_chars,
    }
