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
import hashlib
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from archivist.application import open_application
from archivist.evaluation.answers import run_answers
from archivist.evaluation.baselines import make_asker
from archivist.evaluation.qa_datasets import QAItem, load_qa_dataset

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
    names = renamed_filings(EVAL / "financebench" / "pdfs", args.pdfs)
    items = [as_renamed(item, names) for item in items]
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


def renamed_filings(originals: Path, pdfs: Path) -> dict[str, str]:
    """The name each original filing has among ``pdfs``, matched by content (SHA-256).

    The questions name their gold filings by the original file names; a run over copies
    named ``1.pdf``, ``2.pdf``, ... scores its cited pages against the copies' names. A
    filing with no copy keeps its name (its pages then count as not cited).
    """
    def digests(folder: Path) -> dict[str, str]:
        return {hashlib.sha256(f.read_bytes()).hexdigest(): f.name
                for f in sorted(folder.glob("*.pdf"))} if folder.is_dir() else {}

    copies = digests(pdfs)
    return {Path(name).stem: copies[digest] for digest, name in digests(originals).items()
            if digest in copies}


def as_renamed(item: QAItem, names: dict[str, str]) -> QAItem:
    """``item`` with its gold filings and pages named as the run's copies are."""
    def named(doc: str) -> str:
        return names.get(Path(doc).stem, doc)

    return replace(item, gold_documents=[named(d) for d in item.gold_documents],
                   gold_pages=[(named(d), page) for d, page in item.gold_pages])


def _correct(path: Path) -> dict[str, int]:
    """Right, scored and abstained answers in one system's ``answers.jsonl``."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    scored = [r for r in records if r.get("scores", {}).get("correct") is not None]
    return {"right": sum(1 for r in scored if r["scores"]["correct"] == 1.0),
            "scored": len(scored), "abstained": sum(1 for r in records if r.get("abstained"))}


if __name__ == "__main__":
    sys.exit(main())
