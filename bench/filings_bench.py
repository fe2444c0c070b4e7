"""FinanceBench over one shared store: every filing in one collection, systems side by side.

Usage (the model from ``ARCHIVIST_LLM__MODEL`` as for the CLI)::

    python bench/filings_bench.py [--limit N] [--out DIR] [naive agent ...]

It ingests ``../shared/eval/financebench/pdfs`` into the collection ``financebench`` of
its own library (the paper's "shared store": no question is told its filing; a rerun
skips the unchanged files), then asks every question of ``questions.jsonl`` with each
system, taking turns per item as ``answers_compare.py`` does. A numeric answer is right
within 1% of the figure in ``bench/data/financebench_labels.jsonl``; the others when
they state the label's key facts. The table of scores and the machine load are printed
and written to ``OUT/filings.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from archivist.application import open_application
from archivist.evaluation.answers import run_answers
from archivist.evaluation.baselines import make_asker
from archivist.evaluation.qa_datasets import load_qa_dataset

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from answers_compare import _folder, _overrides, _speed  # noqa: E402
from answers_table import table  # noqa: E402

EVAL = Path(os.environ.get("ARCHIVIST_EVAL_DIR") or HERE.parents[1] / "shared" / "eval")
COLLECTION = "financebench"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> int:
    """Ingest the filings once, answer with each system, print and write the scores."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("systems", nargs="*", default=["naive", "agent"])
    parser.add_argument("--questions", type=Path, default=EVAL / "financebench" /
                        "questions.jsonl")
    parser.add_argument("--pdfs", type=Path, default=EVAL / "financebench" / "pdfs")
    parser.add_argument("--labels", type=Path, default=HERE / "data" /
                        "financebench_labels.jsonl")
    parser.add_argument("--data-dir", type=Path, default=HERE / "results" / "financebench-lib")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "financebench")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    for path in (args.questions, args.pdfs, args.labels):
        if not path.exists():
            print(f"missing: {path}", file=sys.stderr)
            return 2
    items = load_qa_dataset(args.questions, args.labels)[: args.limit]
    with open_application(data_dir=args.data_dir) as app:
        started, load_before = time.perf_counter(), _load()
        report = app.ingest.files([args.pdfs], COLLECTION)
        ingest_seconds = time.perf_counter() - started
        documents = app.store.documents(COLLECTION)
        with_filing = sum(1 for d in documents if d.company and d.form and d.period)
        print(f"ingest: {report.counts} in {ingest_seconds:.0f}s (load before {load_before}, "
              f"after {_load()}); {with_filing}/{len(documents)} with company, form, period",
              flush=True)
        askers = {}
        for spec in args.systems:
            head, _, settings = spec.partition("@")
            system, _, strategy = head.partition(":")
            askers[spec] = make_asker(app, system, COLLECTION, strategy=strategy or None,
                                      overrides=_overrides(settings))
        for count, item in enumerate(items, start=1):
            for spec, ask in askers.items():
                began = time.perf_counter()
                (record, *_) = run_answers(app, [item], args.out / _folder(spec),
                                           collection=COLLECTION, asker=ask,
                                           system=spec.partition(":")[0].partition("@")[0])
                print(f"{count}/{len(items)} {spec} {record['item_id']} "
                      f"{time.perf_counter() - began:.0f}s "
                      f"correct={record['scores'].get('correct')} "
                      f"abstained={record.get('abstained')} {_speed(record)}", flush=True)
    folders = sorted(p for p in args.out.iterdir() if (p / "answers.jsonl").is_file())
    print(table(folders))
    summary = {"items": len(items), "systems": args.systems, "load_after": _load(),
               "ingest_seconds": round(ingest_seconds, 1), "documents": len(documents),
               "documents_with_filing_metadata": with_filing,
               "correct": {p.name: _correct(p / "answers.jsonl") for p in folders}}
    (args.out / "filings.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(f"load {_load()}; wrote {args.out / 'filings.json'}")
    return 0


def _correct(path: Path) -> dict[str, int]:
    """Right, scored and abstained answers in one system's ``answers.jsonl``."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    scored = [r for r in records if r.get("scores", {}).get("correct") is not None]
    return {"right": sum(1 for r in scored if r["scores"]["correct"] == 1.0),
            "scored": len(scored), "abstained": sum(1 for r in records if r.get("abstained"))}


if __name__ == "__main__":
    sys.exit(main())
