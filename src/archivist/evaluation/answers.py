"""Run the agent on a QA dataset and score each answer; resumable through ``answers.jsonl``.

Each item is asked in a fresh conversation. What the agent actually read is captured from
the tool calls themselves (a callback on ``on_tool_end``: the text the model was shown and
the evidence records behind it), so scores reflect the contexts used, not a re-search.
Every finished item is appended to ``OUT/answers.jsonl`` at once; a rerun skips the items
already there, so an interrupted evaluation continues where it stopped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archivist.evaluation.metrics import mean
from archivist.evaluation.numeric import numeric_match
from archivist.evaluation.qa_datasets import QAItem
from archivist.evaluation.qa_metrics import (
    abstained,
    abstention_correct,
    citation_correct,
    document_recall,
    exact_match,
    facts_found,
    page_recall,
    phrase_recall,
    token_f1,
    without_citations,
)

if TYPE_CHECKING:
    from archivist.application import Application

log = logging.getLogger(__name__)

__all__ = [
    "ANSWER_METRICS",
    "AnswersSummary",
    "load_finished",
    "run_answers",
    "score_item",
    "summarize",
]

ANSWER_METRICS = (
    "correct",
    "citation_accuracy",
    "abstention_accuracy",
    "exact_match",
    "f1",
    "gold_doc_recall_cited",
    "gold_doc_recall_retrieved",
    "gold_page_recall_cited",
    "supporting_recall",
    "context_phrase_recall",
)
COST_FIELDS = ("llm_calls", "tokens_in", "tokens_out", "llm_seconds", "wall_seconds")

ItemProgress = Callable[[int, int, dict[str, Any]], None]
"""``progress(done, total, record)`` after each item (skipped ones count as done)."""


def _correct(item: QAItem, answer: str, stated: str) -> float | None:
    """A gold figure within 1%, else every key fact stated; an abstention is never correct."""
    if item.numeric is None and not item.key_facts:
        return None
    if abstained(answer):
        return 0.0
    if item.numeric is not None:
        return numeric_match(stated, item.numeric, item.unit)
    return facts_found(stated, item.key_facts)


def score_item(
    item: QAItem, answer: str, sources: Sequence[dict[str, Any]],
    contexts: Sequence[dict[str, Any]], *, cites: bool = True,
) -> dict[str, float | None]:
    """Every answer metric of one item (``None`` where the item has no gold data for it).

    ``correct``: the answer states the gold figure within 1% (items with ``numeric``), else
    every key fact (answerable items with key facts);
    ``citation_accuracy``: a cited page is a gold page (answers, not abstentions, of items
    with gold pages; ``None`` for a system that ``cites`` nothing by design);
    ``abstention_accuracy``: it abstains exactly when the item is unanswerable.
    """
    evidence = [e for c in contexts for e in c.get("evidence", [])]
    retrieved = [str(e.get("document_name", "")) for e in evidence]
    cited = [str(s.get("document_name", "")) for s in sources]
    spans = [
        (str(s.get("document_name", "")), s.get("page_start"), s.get("page_end")) for s in sources
    ]
    texts = [str(c.get("text", "")) for c in contexts]
    gold = item.gold_documents
    answerable = item.answerable is not False
    stated = without_citations(answer)
    return {
        # an abstention is never correct, even when it names a key fact ("The documents do
        # not contain how to use read.csv" was scored correct)
        "correct": _correct(item, answer, stated) if answerable else None,
        "citation_accuracy": citation_correct(item.gold_pages, spans, answer) if cites else None,
        "abstention_accuracy": abstention_correct(item.answerable, answer),
        "exact_match": exact_match(stated, item.references),
        "f1": token_f1(stated, item.references),
        "gold_doc_recall_cited": document_recall(gold, cited),
        "gold_doc_recall_retrieved": document_recall(gold, retrieved),
        "gold_page_recall_cited": page_recall(item.gold_pages, spans),
        "supporting_recall": document_recall(gold, retrieved) if item.supporting_passages else None,
        "context_phrase_recall": phrase_recall(item.context_phrases, texts),
    }


def load_finished(path: Path) -> dict[str, dict[str, Any]]:
    """Records already in ``answers.jsonl`` by item id; a torn last line is dropped."""
    if not path.is_file():
        return {}
    finished: dict[str, dict[str, Any]] = {}
    good_lines: list[str] = []
    torn = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            torn = True
            continue
        finished[str(record["item_id"])] = record
        good_lines.append(line)
    if torn:
        log.warning("dropped an unfinished line from %s", path)
        path.write_text("".join(f"{line}\n" for line in good_lines), encoding="utf-8")
    return finished


@dataclass
class AnswersSummary:
    """Averages over the items, the costs, and how many items ran or failed."""

    dataset: str
    collection: str
    items: int
    answered: int
    errors: int
    #: items the agent asked back on (a clarification question is not an answer)
    clarifications: int = 0
    metrics: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    costs: dict[str, float] = field(default_factory=dict)
    judge: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def summarize(dataset: str, collection: str, records: Sequence[dict[str, Any]]) -> AnswersSummary:
    """Average every metric over the items that define it; sum and average the costs.

    An item the agent asked back on (status ``clarification``) is its own outcome: not
    answered, not an error; it scores as an answer that states no fact and does not abstain.
    """
    ok = [r for r in records if not r.get("error")]
    asked_back = sum(1 for r in ok if r.get("status") == "clarification")
    summary = AnswersSummary(
        dataset, collection, len(records), len(ok) - asked_back, len(records) - len(ok),
        clarifications=asked_back,
    )
    for name in ANSWER_METRICS:
        values = [r["scores"].get(name) for r in ok]
        defined = [v for v in values if v is not None]
        if defined:
            summary.metrics[name] = mean(defined)
            summary.counts[name] = len(defined)
    for name in COST_FIELDS:
        values = [float(r.get("stats", {}).get(name, 0) or 0) for r in ok]
        summary.costs[f"{name}_total"] = round(sum(values), 4)
        summary.costs[f"{name}_mean"] = round(mean(values), 4) if values else 0.0
    judged = [r.get("judge") or {} for r in ok]
    for name in sorted({k for j in judged for k in j}):
        summary.judge[name] = mean(j.get(name) for j in judged)
    return summary


def _record(item: QAItem, reply: dict[str, Any], cites: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item.item_id,
        "question": item.question,
        "references": item.references,
        **reply,
        "abstained": abstained(reply["answer"]) and reply.get("status") != "clarification",
    }
    record["scores"] = score_item(
        item, reply["answer"], reply["sources"], reply["contexts"], cites=cites
    )
    return record


def run_answers(
    app: Application,
    items: Sequence[QAItem],
    out_dir: Path,
    collection: str | None = None,
    limit: int | None = None,
    progress: ItemProgress | None = None,
    judge: Callable[[QAItem, dict[str, Any]], dict[str, float | None]] | None = None,
    system: str = "agent",
    asker: Callable[[QAItem], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Answer and score the first ``limit`` items, skipping those already in the output.

    ``system`` is ``agent``, ``naive`` or ``closed-book`` (see ``baselines.py``); ``asker``,
    when given, answers instead (one built by ``make_asker``, reused across calls).
    Returns every record of the selected items (earlier runs' included), in dataset order.
    An exception stops the run; the items finished so far are kept for the next one.
    """
    from archivist.evaluation.baselines import make_asker

    ask = asker or make_asker(app, system, collection)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "answers.jsonl"
    finished = load_finished(path)
    selected = list(items)[:limit]
    records: list[dict[str, Any]] = []
    with path.open("a", encoding="utf-8") as handle:
        for done, item in enumerate(selected, start=1):
            record = finished.get(item.item_id)
            if record is None or record.get("error"):  # failed items are retried
                record = _record(item, ask(item), cites=system != "closed-book")
                if judge is not None and not record["error"]:
                    record["judge"] = judge(item, record)
                handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
                handle.flush()
            records.append(record)
            if progress:
                progress(done, len(selected), record)
    return records
