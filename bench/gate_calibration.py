"""Calibrate the score gate (the small-model policy's relevance check by code) on labelled sets.

For every question of a set, the agent's first search (hybrid, ``tool_result_hits``) is run
once; each hit is labelled relevant or not from the set's labels (HotpotQA: the gold
supporting passages; the curated PDF questions: the source document and pages). Then each
gate setting on a grid is scored without searching again:

- ``kept recall``: relevant hits the gate keeps / relevant hits the search found;
- ``kept precision``: relevant kept / all kept;
- ``found``: answerable questions with at least one relevant hit kept;
- ``abstains``: unanswerable questions with nothing kept (the agent then abstains with no
  model call).

Usage::

    python bench/gate_calibration.py hotpot DATA_DIR [--collection NAME]
    python bench/gate_calibration.py pdfs DATA_DIR --collection pdfs
    python bench/gate_calibration.py hotpot DATA_DIR --mode multihop --only 4,0.25,0.5
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

from archivist.agent.evidence.gate import coverage, on_subject, score_gate
from archivist.agent.tools import hit_evidence
from archivist.application import open_application
from archivist.settings import Settings

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "eval"


def hotpot_items() -> list[dict[str, Any]]:
    """HotpotQA-100: question, gold passage ids, answerable."""
    folder = EVAL / "hotpotqa_train100"
    gold: dict[str, set[str]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        query, doc, _score = line.split("\t")
        gold.setdefault(query, set()).add(doc)
    items = []
    for line in (folder / "queries.jsonl").read_text().splitlines():
        row = json.loads(line)
        items.append({"question": row["text"], "gold": gold.get(row["_id"], set()),
                      "answerable": True})
    return items


def pdf_items() -> list[dict[str, Any]]:
    """The curated PDF questions: question, source document and pages, answerable."""
    rows = [json.loads(line) for line in
            (REPO / "bench" / "data" / "pdf_questions.jsonl").read_text().splitlines()]
    return [{"question": r["question"], "source": r.get("source", ""),
             "pages": set(r.get("pages") or []), "answerable": bool(r["answerable"])}
            for r in rows]


def relevant(item: dict[str, Any], hit: Any) -> bool:
    """Whether a hit is labelled relevant for the item."""
    if "gold" in item:
        return hit.document_name in item["gold"]
    if hit.document_name != item["source"] or hit.page_start is None:
        return False
    pages = set(range(hit.page_start, (hit.page_end or hit.page_start) + 1))
    return bool(pages & item["pages"])


def main() -> None:
    """Search once per question, then score every gate setting of the grid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=["hotpot", "pdfs"])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--collection", default=None)
    parser.add_argument("--mode", default=None, help="search mode (default: the setting)")
    parser.add_argument("--only", default=None, help="one setting: KEEP,MIN_COV,RATIO")
    args = parser.parse_args()
    items = hotpot_items() if args.set == "hotpot" else pdf_items()
    settings = Settings(data_dir=args.data_dir, **(
        {"collection": args.collection} if args.collection else {}))
    runs = []
    with open_application(settings) as app:
        k = app.settings.agent.tool_result_hits
        for item in items:
            hits = app.searcher.search(item["question"], k=k, mode=args.mode)
            evidence = [hit_evidence(h) for h in hits]
            labels = [relevant(item, h) for h in hits]
            runs.append((item, evidence, labels))
    print(f"{args.set}: {len(items)} questions, k={k}; relevant hits found by search: "
          f"{sum(sum(labels) for _i, _e, labels in runs)}")
    print("keep  min_cov  ratio | kept recall  precision  found  abstains  kept/question")
    grid = list(itertools.product([2, 3, 4, 6], [0.0, 0.2, 0.25, 0.34, 0.5], [0.0, 0.5, 0.75]))
    if args.only:
        keep_s, cov_s, ratio_s = args.only.split(",")
        grid = [(int(keep_s), float(cov_s), float(ratio_s))]
    for keep, min_cov, ratio in grid:
        kept_rel = found_rel = kept_all = found = answerable = abstained = unanswerable = 0
        for item, evidence, labels in runs:
            kept, _ = score_gate(item["question"], evidence, keep=keep, min_coverage=min_cov,
                                 ratio=ratio)
            keys = {id(e) for e in kept}
            rel = [lab for e, lab in zip(evidence, labels, strict=True) if id(e) in keys]
            kept_rel += sum(rel)
            found_rel += sum(labels)
            kept_all += len(kept)
            if item["answerable"]:
                answerable += 1
                found += any(rel)
            else:
                unanswerable += 1
                abstained += not kept
        print(f"{keep:>4}  {min_cov:>7.2f}  {ratio:>5.2f} | "
              f"{kept_rel / max(found_rel, 1):>11.3f}  {kept_rel / max(kept_all, 1):>9.3f}  "
              f"{found:>2}/{answerable:<3} {abstained:>3}/{unanswerable:<3}  "
              f"{kept_all / len(runs):>6.2f}")
    subject = sum(on_subject(i["question"], [e]) for i, ev, _l in runs for e in ev)
    mean = sum(coverage(i["question"], e.get("text", "")) for i, ev, _l in runs for e in ev)
    total = sum(len(ev) for _i, ev, _l in runs)
    print(f"hits on subject: {subject}/{total}; mean coverage {mean / max(total, 1):.2f}")


if __name__ == "__main__":
    main()
