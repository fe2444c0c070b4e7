"""The metric path on the dev metric questions: right, wrong or fallback, with no model.

Usage::

    python bench/metric_dev.py --data-dir LIB [--collection pdfs] [--policy small] [--only ID]
        [--questions bench/data/metric_questions_fresh.jsonl]

``LIB`` is a library holding the dev filings (``bench/pdfs_library.py`` builds one; copy
it first, a run opens it for writing). Each question of the ``--questions`` file (default
``bench/data/metric_questions.jsonl``; also ``metric_questions_fresh.jsonl`` and
``metric_change_questions.jsonl``, a metric's change or mean across years; all written by
hand for the dev filings, each figure worked out from the filing's pages) goes to the
metric path as the agent hands it over: the question told apart from its instructions
(``split_instructions``), the metric path run on it with its steps recorded; ``--agent``
asks the whole agent instead, with the scripted model (slower: a fallback runs the usual
path too). No model computes anything. The figure graded is the last ``metric`` step's
(across years: their change or mean); it is right within 1% of ``truth`` (the figure in
the unit the question asks); a question whose ``truth`` is null is right when the path
falls back. The table and each question's computation or fallback reason are printed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from archivist.agent.question.instructions import split_instructions
from archivist.agent.research import metric_answer
from archivist.agent.research.metric_answer import MetricPath
from archivist.agent.service import AgentService
from archivist.application import Application
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

HERE = Path(__file__).resolve().parent
_NUMBER = re.compile(r"(-?[\d,]+(?:\.\d+)?)")


_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def _shown_value(detail: str, unit: str = "USD millions") -> float | None:
    """The result of a metric step (``name = worked = USD 1.03 billion``) in ``unit``.

    An amount is put in the scale the question's ``unit`` names (millions unless it names
    thousands or billions); a percent, ratio or days is taken as shown.
    """
    last = detail.rsplit("=", 1)[-1]
    found = _NUMBER.search(last)
    if found is None:
        return None
    value = float(found.group(1).replace(",", ""))
    shown = next((s for s in _SCALE if s in last), None)
    if shown is None:
        return value
    wanted = next((s for s in _SCALE if s in unit), "million")
    return value * _SCALE[shown] / _SCALE[wanted]


def _by_service(library: Application, question: str) -> list[tuple[str, str]]:
    """The steps of the whole agent asked ``question`` with the scripted model."""
    service = AgentService(library.searcher, library.settings, llm=ScriptedChatModel())
    try:
        events = list(service.stream(question))
    finally:
        service.close()
    return [(e.data["kind"], e.data["detail"]) for e in events if e.type == "step"]


def _by_path(library: Application, question: str) -> list[tuple[str, str]]:
    """The steps of the metric path run on the question as the research graph runs it."""
    split = split_instructions(question)
    recorded: list[tuple[str, str]] = []
    original = metric_answer.emit_step
    metric_answer.emit_step = lambda kind, detail, **_: recorded.append((kind.value, detail))
    try:
        path = MetricPath(library.searcher.retriever())
        if path.asks(split.question, split.instructions):
            path.run(split.question, 0, split.instructions)
    finally:
        metric_answer.emit_step = original
    return recorded


def _grade(truth: float | None, value: float | None, fell_back: bool) -> str:
    if truth is None:
        return "right" if fell_back and value is None else "wrong" if value else "not routed"
    if value is None:
        return "fallback" if fell_back else "not routed"
    return "right" if abs(value - truth) <= abs(truth) * 0.01 + 1e-9 else "wrong"


def main() -> int:
    """Ask every dev metric question, print each outcome and the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--collection", default="pdfs")
    parser.add_argument("--policy", default="small")
    parser.add_argument("--questions", type=Path,
                        default=HERE / "data" / "metric_questions.jsonl")
    parser.add_argument("--only", default=None, help="one question id")
    parser.add_argument("--agent", action="store_true", help="ask the whole agent")
    args = parser.parse_args()
    if not (args.data_dir / "archivist.sqlite").exists():
        print(f"{args.data_dir}: no library there", file=sys.stderr)
        return 2
    items = [json.loads(line) for line in args.questions.read_text().splitlines()
             if line.strip()]
    items = [i for i in items if args.only in (None, i["id"])]
    settings = Settings(data_dir=args.data_dir, collection=args.collection,
                        agent={"policy": args.policy})
    counts: dict[str, int] = {}
    with Application(settings) as library:
        for item in items:
            steps = (_by_service if args.agent else _by_path)(library, item["question"])
            metric = [detail for kind, detail in steps if kind == "metric"][-1:]
            fallback = [detail for kind, detail in steps if kind == "metric_fallback"]
            value = _shown_value(metric[0], item["unit"]) if metric else None
            grade = _grade(item["truth"], value, bool(fallback))
            counts[grade] = counts.get(grade, 0) + 1
            said = metric[0] if metric else (fallback[0] if fallback else "(no metric step)")
            print(f"{item['id']:<16} {grade:<10} truth {item['truth']} {item['unit']}\n"
                  f"    {said}")
    total = sum(counts.values())
    print("\n" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" of {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
