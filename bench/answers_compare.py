"""Run several ``eval answers`` systems on the same items, item by item, in one process.

Usage (settings such as ``ARCHIVIST_LLM__MODEL`` come from the environment, as for the CLI)::

    python bench/answers_compare.py DATASET --collection pdfs --data-dir DIR --out OUT \\
        --start 50 --limit 20 closed-book naive agent:pipeline agent:tools agent@table_queries=false

A system is ``closed-book``, ``naive`` or ``agent[:STRATEGY][@SETTING=VALUE,...]``: the
agent with other settings on the same model (``agent@table_queries=false`` is the agent
without its table path; ``agent@disabled_checks=bridge_hop+prune_citations`` without two
of its checks).

Each system writes ``OUT/<system>/answers.jsonl`` exactly as ``archivist eval answers
--out`` does, and is resumable the same way. Systems take turns per item, so when a slow
model has to be stopped early, every system has answered the same first items and the
comparison (``bench/answers_table.py OUT/*``) stays fair. The table is printed at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from archivist.application import open_application
from archivist.evaluation.answers import run_answers
from archivist.evaluation.baselines import make_asker
from archivist.evaluation.beir import collection_for, ingest_corpus, load_beir
from archivist.evaluation.qa_datasets import QAItem, load_qa_dataset
from archivist.settings.agent import AgentSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answers_table import table  # noqa: E402


def _speed(record: dict[str, object]) -> str:
    """Calls, tokens and the model's overall tokens/s of one record (to watch contention)."""
    stats = record.get("stats") or {}
    assert isinstance(stats, dict)
    seconds = float(stats.get("llm_seconds") or 0)
    tokens_in, tokens_out = int(stats.get("tokens_in") or 0), int(stats.get("tokens_out") or 0)
    rate = (tokens_in + tokens_out) / seconds if seconds else 0.0
    return (f"calls={stats.get('llm_calls', 0)} in={tokens_in} out={tokens_out} "
            f"llm={seconds:.0f}s ({rate:.0f} tok/s in+out)")


def _folder(spec: str) -> str:
    """The output folder of a system spec: ``agent:tools@a=1`` -> ``agent-tools-a-1``."""
    return "".join(c if c.isalnum() or c == "_" else "-" for c in spec)


def _overrides(text: str) -> dict[str, object]:
    """``a=1,b=false,c=x+y`` as ``[agent]`` overrides, validated (``c`` a list setting)."""
    values: dict[str, object] = {}
    for pair in filter(None, text.split(",")):
        name, _, value = pair.partition("=")
        values[name.strip()] = value.strip()
    checked = AgentSettings.model_validate(values)  # an unknown name or value fails here
    return {name: getattr(checked, name) for name in values}


def _require_sources(app: Any, items: list[QAItem], collection: str | None) -> None:
    """Stop when an item's gold document is not in the collection: its score would measure
    the library, not the system (the table set's spreadsheets are ingested beside the PDFs:
    ``archivist ingest bench/data/tables -c pdfs``)."""
    have = {d.name for d in app.store.documents(collection or app.settings.collection)}
    missing = sorted({name for item in items for name in item.gold_documents} - have)
    if missing:
        raise SystemExit(f"the collection lacks documents the items' answers are in: "
                         f"{', '.join(missing)}; ingest them first")


def main() -> None:
    """Answer the first ``--limit`` items with every system, taking turns per item."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("systems", nargs="+", help="closed-book, naive, agent[:STRATEGY]")
    parser.add_argument("--collection", "-c", default=None)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--start", type=int, default=0, help="skip the first items")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    items = load_qa_dataset(args.dataset)[args.start:]
    items = items[: args.limit]
    overrides = {"data_dir": args.data_dir} if args.data_dir else {}
    with open_application(**overrides) as app:
        if args.dataset.is_dir():  # a BEIR folder (HotpotQA): its passages are the corpus
            beir = load_beir(args.dataset)
            args.collection = args.collection or collection_for(beir)
            started = time.perf_counter()
            ingest_corpus(app, beir, args.collection)
            print(f"corpus in '{args.collection}': {time.perf_counter() - started:.0f}s",
                  flush=True)
        else:
            _require_sources(app, items, args.collection)
        askers = {}
        for spec in args.systems:
            head, _, settings = spec.partition("@")
            system, _, strategy = head.partition(":")
            askers[spec] = make_asker(app, system, args.collection, strategy=strategy or None,
                                      overrides=_overrides(settings))
        for count in range(1, len(items) + 1):
            for spec, ask in askers.items():
                started = time.perf_counter()
                (record, *_) = run_answers(
                    app, items[count - 1: count], args.out / _folder(spec),
                    collection=args.collection, asker=ask, system=spec.partition(":")[0]
                    .partition("@")[0],
                )
                print(f"{count}/{len(items)} {spec} {record['item_id']} "
                      f"{time.perf_counter() - started:.0f}s "
                      f"correct={record['scores'].get('correct')} "
                      f"abstained={record.get('abstained')} {_speed(record)}", flush=True)
    print(table(sorted(p for p in args.out.iterdir() if (p / "answers.jsonl").is_file())))


if __name__ == "__main__":
    main()
