"""Agent benchmark with the scripted model: LLM calls per scenario, graph overhead, fan-out.

    python bench/agent_bench.py [--delay 1.0] [--repeat 20] [--json]

1. LLM calls per scenario (simple question, follow-up, clarification, fan-out, budget
   exhausted, compression, no evidence), counted by the service's callback handler.
2. The graph's own overhead per answer with an instant model: wall time of a turn minus
   time inside the model and inside the retriever (checkpointing, state, event plumbing).
3. Fan-out wall time with a model that sleeps ``--delay`` seconds per call: 1, 2 and 3
   sub-questions, total and research stage alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from langchain_core.messages import BaseMessage  # noqa: E402

from archivist.agent.graph import build_graph  # noqa: E402
from archivist.agent.service import AgentService  # noqa: E402
from archivist.agent.state import QuestionAnalysis  # noqa: E402
from archivist.application import Application  # noqa: E402
from archivist.settings import Settings  # noqa: E402
from archivist.testing import CallInfo, ScriptedChatModel, tool_call  # noqa: E402

CORPUS = {
    "postgres.md": "# PostgreSQL\n\n## Installing PostgreSQL\n\nInstall PostgreSQL with "
    "`sudo apt install postgresql`; the package creates a cluster.\n\n## Updating "
    "PostgreSQL\n\nMinor releases: `sudo apt upgrade postgresql`. Major versions: "
    "`pg_upgradecluster` after a `pg_dumpall` backup.\n",
    "javascript.md": "# JavaScript\n\nJavaScript is a scripting language that runs in web "
    "browsers and, with Node.js, on servers.\n",
    "python.md": "# Python\n\nPython is a general-purpose programming language with a "
    "readable syntax and a large standard library.\n",
    "rust.md": "# Rust\n\nRust is a systems programming language with memory safety "
    "without garbage collection, through ownership and borrowing.\n",
}
SPLIT = {
    1: ["What is JavaScript?"],
    2: ["What is JavaScript?", "What is Python?"],
    3: ["What is JavaScript?", "What is Python?", "What is Rust?"],
}


class TimedRetriever:
    """A retriever that adds up the time spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def _timed(self, name: str, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return getattr(self.inner, name)(*args)
        finally:
            self.seconds += time.perf_counter() - start

    def search(self, query: str, k: int = 5, mode: Any = None, document_ids: Any = None) -> Any:
        return self._timed("search", query, k, mode, document_ids)

    def get_parent(self, parent_id: str) -> Any:
        return self._timed("get_parent", parent_id)

    def get_document(self, document_id: str) -> Any:
        return self._timed("get_document", document_id)


class BenchService(AgentService):
    """The real service, with a timed retriever under the graph."""

    def __init__(self, library: Application, llm: Any, settings: Settings) -> None:
        super().__init__(library, llm=llm, settings=settings)
        self.retriever = TimedRetriever(library.searcher.retriever())

    def graph(self, collection: str | None = None) -> Any:
        if "bench" not in self._graphs:
            self._graphs["bench"] = build_graph(
                self.llm, self.retriever, self.settings, self.checkpointer
            )
        return self._graphs["bench"]


def turn(service: AgentService, message: str, thread: str | None = None) -> dict[str, Any]:
    """One turn: its done data, stats and steps."""
    out: dict[str, Any] = {"steps": []}
    for event in service.stream(message, thread):
        if event.type in ("stats", "done"):
            out[event.type] = event.data
        elif event.type == "step":
            out["steps"].append(event.data["kind"])
    return out


def analyzer(messages: list[BaseMessage], info: CallInfo) -> QuestionAnalysis | None:
    """Scripted analysis for the scenarios below."""
    if info.schema is None:
        return None
    text = "\n".join(str(m.content) for m in messages)
    if info.question == "How do I update it?" and "PostgreSQL" in text:
        return QuestionAnalysis(sub_questions=["How do I update PostgreSQL?"])
    if info.question == "Tell me about that thing":
        return QuestionAnalysis(is_clear=False, clarification_question="Which thing?")
    for count, subs in SPLIT.items():
        if info.question == f"split {count}":
            return QuestionAnalysis(sub_questions=subs)
    return None


def llm_calls(library: Application, settings: Settings) -> dict[str, int]:
    """LLM calls per scenario."""
    results: dict[str, int] = {}

    def calls(name: str, llm: ScriptedChatModel, turns: list[str], **update: Any) -> None:
        service = BenchService(library, llm, settings.with_values(agent=update))
        thread = None
        total = 0
        for message in turns:
            out = turn(service, message, thread)
            thread = out["done"]["thread_id"]
            total = out.get("stats", {}).get("llm_calls", total)
        results[name] = total if len(turns) == 1 else len(llm.calls)
        service.close()

    calls("simple question (fresh conversation)", ScriptedChatModel(rules=[analyzer]),
          ["How do I install PostgreSQL?"])
    follow = ScriptedChatModel(rules=[analyzer])
    service = BenchService(library, follow, settings)
    first = turn(service, "How do I install PostgreSQL?")
    second = turn(service, "How do I update it?", first["done"]["thread_id"])
    results["follow-up (second turn)"] = second["stats"]["llm_calls"]
    service.close()
    calls("clarification (both turns)", ScriptedChatModel(rules=[analyzer]),
          ["Tell me about that thing", "Python"])
    calls("fan-out, 2 sub-questions", ScriptedChatModel(rules=[analyzer]), ["split 2"])
    calls("fan-out, 3 sub-questions", ScriptedChatModel(rules=[analyzer]), ["split 3"])

    counter = iter(range(1000))

    def searching(_m: list[BaseMessage], info: CallInfo) -> Any:
        if "search_documents" in info.tools:
            return tool_call("search_documents", query=f"postgres {next(counter)}")
        return analyzer(_m, info)

    calls("budget exhausted (max_tool_calls=4)", ScriptedChatModel(rules=[searching]),
          ["How do I install PostgreSQL?"], max_tool_calls=4)
    calls("compression (compression_tokens=200, 3 searches)",
          ScriptedChatModel(rules=[searching]), ["How do I install PostgreSQL?"],
          max_tool_calls=4, compression_tokens=200)
    return results


def overhead(library: Application, settings: Settings, repeat: int) -> dict[str, float]:
    """Per-answer wall time and the graph's own share, with an instant model."""
    service = BenchService(library, ScriptedChatModel(), settings)
    turn(service, "How do I install PostgreSQL?")
    walls, own = [], []
    for _ in range(repeat):
        service.retriever.seconds = 0.0
        start = time.perf_counter()
        out = turn(service, "How do I install PostgreSQL?")
        wall = time.perf_counter() - start
        walls.append(wall)
        own.append(wall - out["stats"]["llm_seconds"] - service.retriever.seconds)
    service.close()
    return {
        "wall_ms_median": 1000 * statistics.median(walls),
        "graph_overhead_ms_median": 1000 * statistics.median(own),
        "graph_overhead_ms_p95": 1000 * sorted(own)[int(0.95 * (len(own) - 1))],
    }


def fan_out(library: Application, settings: Settings, delay: float) -> dict[str, dict[str, float]]:
    """Wall time of a turn and of its research stage with 1, 2, 3 sub-questions."""
    out = {}
    for count in SPLIT:
        llm = ScriptedChatModel(rules=[analyzer], delay_s=delay)
        service = BenchService(library, llm, settings)
        start = time.perf_counter()
        result = turn(service, f"split {count}")
        out[f"{count} sub-question(s)"] = {
            "turn_s": time.perf_counter() - start,
            "research_stage_s": result["stats"]["stages"].get("research", 0.0),
            "llm_calls": result["stats"]["llm_calls"],
        }
        service.close()
    return out


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for name, text in CORPUS.items():
            (docs / name).write_text(text, encoding="utf-8")
        settings = Settings(data_dir=Path(tmp) / "lib", llm={"model": "scripted"})
        with Application(settings) as library:
            library.ingest.files([docs])
            report = {
                "llm_calls": llm_calls(library, settings),
                "overhead": overhead(library, settings, args.repeat),
                "fan_out": fan_out(library, settings, args.delay),
            }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print("LLM calls per scenario (scripted model)")
    for name, count in report["llm_calls"].items():
        print(f"  {name:<52} {count}")
    o = report["overhead"]
    print(f"\nPer answer with an instant model ({args.repeat} runs): wall "
          f"{o['wall_ms_median']:.1f} ms median; graph overhead {o['graph_overhead_ms_median']:.1f}"
          f" ms median, {o['graph_overhead_ms_p95']:.1f} ms p95 (excl. model and retrieval)")
    print(f"\nFan-out with a model sleeping {args.delay:.1f} s per call")
    for name, row in report["fan_out"].items():
        print(f"  {name:<16} turn {row['turn_s']:.2f} s   research stage "
              f"{row['research_stage_s']:.2f} s   LLM calls {row['llm_calls']}")


if __name__ == "__main__":
    main()
