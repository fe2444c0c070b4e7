"""Whole-document questions: key-fact recall, and a document's answer uncached vs cached.

Usage (settings such as ``ARCHIVIST_LLM__MODEL`` come from the environment, as for the CLI; the
library must hold the shared evaluation PDFs, e.g. ``archivist ingest
/work/shared/eval/pdfs --collection pdfs``)::

    python bench/wholedoc_bench.py bench/data/wholedoc_questions.jsonl \\
        --collection pdfs --data-dir DIR [--ids wd-amcor-summary,...] [--naive] \\
        [--searching] [--json OUT.json]

Each item of ``wholedoc_questions.jsonl`` names its document, its question and its key
facts: each fact is a list of accepted phrasings, found when one of them appears in the
answer (case and spacing ignored). The agent answers each item twice: first with the
document's section summaries dropped (``uncached``: every section within the policy's
budget is summarised by the model), then again (``again``: those summaries are read back;
on a small model's budget the next sections not summarised yet are read, so a long
document's second answer still makes calls, and only a short one is answered from the
cache alone).
``--naive`` adds naive RAG (one search, one call) on the same items for comparison, and
``--searching`` the agent with ``document_questions`` off (it answers from a search, as
it did before it had the document path).
Recall is the share of key facts found; each row has its wall time, model calls and the
machine's load (a timing on a loaded machine is an upper bound).

Do not run it over the whole set on a slow local model unless you mean to: an uncached
summary of the 10-K reads every section within the budget.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from archivist.application import Application, open_application
from archivist.evaluation.baselines import make_asker
from archivist.evaluation.qa_datasets import QAItem


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def found_facts(answer: str, facts: list[list[str]]) -> list[bool]:
    """For each key fact, whether one of its phrasings is in ``answer``."""
    text = _norm(answer)
    return [any(_norm(option) in text for option in fact) for fact in facts]


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def _row(item: dict[str, Any], run: str, answer: str, seconds: float,
         stats: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    found = found_facts(answer, item["key_facts"])
    return {
        "id": item["id"], "run": run, "recall": round(sum(found) / len(found), 3),
        "found": found, "seconds": round(seconds, 1),
        "llm_calls": stats.get("llm_calls"), "reading_steps":
            sum(1 for s in steps if s.get("kind") == "reading"),
        "load": _load(), "answer": answer,
    }


def _agent(app: Application, item: dict[str, Any], collection: str, run: str) -> dict[str, Any]:
    if run == "uncached":
        record = app.store.resolve(item["document"], collection)
        app.store.summaries.delete_document(collection, record.document_id)
    started = time.perf_counter()
    result = app.agent.ask(item["question"], collection=collection)
    return _row(item, run, result.answer, time.perf_counter() - started, result.stats,
                result.steps)


def main() -> int:
    """Run the items, print one line per answer and the mean recall per run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--collection", default="pdfs")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--ids", default="", help="comma-separated item ids (default: all)")
    parser.add_argument("--naive", action="store_true", help="also naive RAG, same items")
    parser.add_argument("--searching", action="store_true",
                        help="also the agent with document_questions off (it searches)")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args()
    items = [json.loads(line) for line in args.questions.read_text().splitlines() if line]
    wanted = set(filter(None, args.ids.split(",")))
    items = [i for i in items if not wanted or i["id"] in wanted]
    app = open_application(**({"data_dir": args.data_dir} if args.data_dir else {}))
    rows: list[dict[str, Any]] = []
    try:
        others = {"naive": make_asker(app, "naive", args.collection)} if args.naive else {}
        if args.searching:
            others["searching"] = make_asker(app, "agent", args.collection,
                                             overrides={"document_questions": False})
        for item in items:
            runs = [_agent(app, item, args.collection, run) for run in ("uncached", "again")]
            for name, ask in others.items():
                started = time.perf_counter()
                out = ask(QAItem(item_id=item["id"], question=item["question"]))
                runs.append(_row(item, name, out["answer"], time.perf_counter() - started,
                                 out["stats"], []))
            for row in runs:
                print(f"{row['id']:24} {row['run']:8} recall={row['recall']:.2f} "
                      f"{row['seconds']:7.1f}s calls={row['llm_calls']} "
                      f"reading={row['reading_steps']} load={row['load']}", flush=True)
            rows += runs
    finally:
        app.close()
    for run in ("uncached", "again", "naive", "searching"):
        chosen = [r["recall"] for r in rows if r["run"] == run]
        if chosen:
            print(f"mean key-fact recall, {run}: {sum(chosen) / len(chosen):.2f} "
                  f"({len(chosen)} items)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
