"""Collect (claim, evidence) pairs from real agent runs, for labelling by hand.

Usage (``ARCHIVIST_LLM__MODEL=local``, ``ARCHIVIST_AGENT__STRATEGY=pipeline`` from the
environment)::

    python bench/claims_collect.py QUESTIONS --data-dir DIR --out pairs.jsonl \\
        [--files F ...] [--beir DIR] [--limit N] [--skip N]

``QUESTIONS`` is a question file ``eval answers`` reads, or a BEIR folder (its queries;
its corpus is ingested into its own collection). For each answer, every claim is written
with the texts of the units it cites (``cited``; ``cited-one``: each alone when it cites
several) and with each of the two best units it does not cite (``other``), plus the
checker's verdict and score; the label is left empty (``supported: null``) for a person
to fill in.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from archivist.agent.checks.claims import check_claim, split_claims, strip_citations
from archivist.agent.service import collect_turn
from archivist.application import open_application
from archivist.evaluation.beir import collection_for, ingest_corpus, load_beir
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.events import Event


def _pairs(question: str, source: str, answer: str, units: list[str],
           embedder: Any) -> list[dict[str, Any]]:
    """Each claim with the units it cites, each cited unit alone, and the best two others."""
    out = []
    for sentence, citations in split_claims(answer):
        known = [n for n in citations if 1 <= n <= len(units)]
        claim = strip_citations(sentence)
        groups = [("cited", known)] if known else []
        if len(known) > 1:
            groups += [("cited-one", [n]) for n in known]
        others = [n for n in range(1, len(units) + 1) if n not in known][:2]
        groups += [("other", [n]) for n in others]
        for kind, numbers in groups:
            checked = check_claim(claim, numbers, units, embedder, question=question)
            out.append({"question": question, "source": source, "claim": claim,
                        "evidence": [units[n - 1] for n in numbers], "pair": kind,
                        "score": checked.score, "checker": checked.supported,
                        "reason": checked.reason, "supported": None})
    return out


def _write_only(app: Any, question: str, collection: str | None) -> list[dict[str, Any]]:
    """One real writing call on code-chosen units: search, read sections, select, write.

    The same steps as the pipeline's ``write`` without analysis or grading (a cheaper
    way to many real claims); returns the one sub-answer with its units.
    """
    from langchain_core.messages import HumanMessage, SystemMessage

    from archivist.agent import prompts
    from archivist.agent.evidence.units import render_units, select_units, unit_evidence
    from archivist.agent.policy import SMALL
    from archivist.agent.tools import READ_PARENT, SEARCH, make_tools

    settings = app.settings
    tools = {t.name: t for t in make_tools(app.searcher.retriever(collection),
                                           settings.agent.tool_result_hits)}
    call = {"name": SEARCH, "args": {"query": question}, "id": "s", "type": "tool_call"}
    hits = list(tools[SEARCH].invoke(call).artifact or [])
    parents: list[Any] = []
    budget = settings.agent.pipeline_read_chars
    for hit in hits:
        if hit["parent_id"] in {p["parent_id"] for p in parents}:
            continue
        read = tools[READ_PARENT].invoke({"name": READ_PARENT, "id": "r", "type": "tool_call",
                                          "args": {"parent_id": hit["parent_id"]}})
        items = list(read.artifact or [])
        if not items or len(items[0].get("text", "")) > budget:
            break
        budget -= len(items[0].get("text", ""))
        parents += items
    evidence = [*hits, *parents]
    selection = select_units(question, evidence, app.store.embedder,
                             budget_tokens=SMALL.budgets.unit_tokens)
    reply = app.agent.llm.invoke([
        SystemMessage(prompts.WRITE_UNITS_SYSTEM),
        HumanMessage(prompts.write_user(render_units(selection, evidence), question)),
    ])
    units = [unit_evidence(selection, evidence, n) for n in range(1, len(selection.units) + 1)]
    return [{"question": question, "answer": str(reply.content), "units": units}]


def _logged(stream: Iterator[Event], started: float) -> Iterator[Event]:
    """The events, each step printed with the seconds since the question was asked."""
    for event in stream:
        if event.type in ("step", "error"):
            print(f"  {time.perf_counter() - started:6.0f}s {event.data}", flush=True)
        yield event


def main() -> None:
    """Answer the questions and write the pairs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--files", type=Path, nargs="*", default=[])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--write-only", action="store_true",
                        help="no analysis or grading: search, read, select units, write")
    args = parser.parse_args()
    with open_application(data_dir=args.data_dir) as app:
        collection = None
        if args.questions.is_dir():  # a BEIR folder: its passages are the corpus
            beir = load_beir(args.questions)
            collection = collection_for(beir)
            ingest_corpus(app, beir, collection)
        elif args.files:
            app.ingest.files(args.files)
        items = [(i.item_id, i.question) for i in load_qa_dataset(args.questions)]
        items = items[args.skip:][: args.limit]
        service = app.agent
        embedder = app.store.embedder
        with args.out.open("a", encoding="utf-8") as out:
            for item_id, question in items:
                started = time.perf_counter()
                if args.write_only:
                    subs = _write_only(app, question, collection)
                    answer = subs[0]["answer"]
                else:
                    thread = service.new_thread_id()
                    answer = collect_turn(_logged(service.stream(question, thread, collection),
                                                  started)).answer
                    state = service.graph(collection).get_state(service._config(thread)).values
                    subs = list(state.get("sub_answers") or [])
                count = 0
                for sub in subs:
                    units = [u.get("text", "") for u in sub.get("units") or []]
                    for pair in _pairs(sub["question"], item_id, sub["answer"], units, embedder):
                        out.write(json.dumps(pair) + "\n")
                        count += 1
                out.flush()
                print(f"{item_id}: {time.perf_counter() - started:.0f}s {count} pairs | "
                      f"{answer[:300]!r}", flush=True)


if __name__ == "__main__":
    main()
