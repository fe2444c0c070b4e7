"""Local model speed (``local`` provider, llama.cpp in-process): load time, prompt and
generation tokens per second, concurrent calls over the slots, one agent answer's wall time.

    python bench/local_llm_bench.py [--model 0.5b|1.5b] [--json out.json]

Needs xllamacpp and the model fetched (``archivist model fetch``). The machine's load
average is printed with the figures: on a shared machine they vary several-fold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from langchain_core.messages import HumanMessage, SystemMessage  # noqa: E402

from archivist.llm import make_chat_model  # noqa: E402
from archivist.llm.local_runtime import loaded_servers  # noqa: E402
from archivist.settings import Settings  # noqa: E402

PASSAGE = (
    "Green tea is brewed with water at 70 to 80 degrees Celsius for two to three minutes. "
    "Boiling water makes it bitter. Black tea takes boiling water and four minutes. "
) * 6


def _timed_call(model: Any, messages: list[Any]) -> dict[str, float]:
    started = time.perf_counter()
    reply = model.invoke(messages)
    timings = reply.response_metadata.get("timings", {})
    return {
        "wall_s": time.perf_counter() - started,
        "prompt_tokens": float(timings.get("prompt_n", 0)),
        "prompt_tok_s": float(timings.get("prompt_per_second", 0.0)),
        "gen_tokens": float(timings.get("predicted_n", 0)),
        "gen_tok_s": float(timings.get("predicted_per_second", 0.0)),
    }


def _agent_answer(spec: str) -> dict[str, Any]:
    from archivist.agent.service import AgentService
    from archivist.application import Application

    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        (docs / "tea.md").write_text("# Brewing green tea\n\n" + PASSAGE, encoding="utf-8")
        settings = Settings(
            data_dir=Path(tmp) / "lib",
            llm={"model": spec, "max_tokens": 256},
            agent={"strategy": "pipeline"},
        )
        with Application(settings) as application:
            application.ingest.files([docs])
            service = AgentService(application.searcher, settings,
                                   llm=make_chat_model(settings))
            started = time.perf_counter()
            result = service.ask("How hot should the water be for green tea?")
            wall = time.perf_counter() - started
            service.close()
    return {"wall_s": wall, "status": result.status, "stats": result.stats,
            "answer": result.answer[:200]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="1.5b")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-agent", action="store_true")
    args = parser.parse_args()
    spec = f"local:{args.model}"
    settings = Settings(llm={"model": spec, "max_tokens": 64, "temperature": 0.0})
    model = make_chat_model(settings)
    figures: dict[str, Any] = {"model": spec, "load_before": os.getloadavg()}

    messages = [SystemMessage("Answer from the passage in one sentence."),
                HumanMessage(f"{PASSAGE}\n\nQuestion: how hot should water be for green tea?")]
    first = _timed_call(model, messages)  # includes loading the model
    (server,) = loaded_servers()
    figures["load_s"] = server.load_seconds
    figures["first_call"] = first
    figures["calls"] = [_timed_call(model, [*messages[:1], HumanMessage(f"{PASSAGE}\n\n"
                                             f"Question {n}: what makes green tea bitter?")])
                        for n in range(2)]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda n: model.invoke(f"Write one sentence about tea number {n}."),
                      range(3)))
    figures["three_concurrent_s"] = time.perf_counter() - started
    figures["slots"] = settings.llm.local_parallel
    if not args.no_agent:
        figures["agent"] = _agent_answer(spec)
    figures["load_after"] = os.getloadavg()

    calls = figures["calls"]
    print(f"{spec}: load {figures['load_s']:.1f}s; prompt "
          f"{sum(c['prompt_tok_s'] for c in calls) / len(calls):.1f} tok/s, generation "
          f"{sum(c['gen_tok_s'] for c in calls) / len(calls):.1f} tok/s "
          f"(first call {first['prompt_tokens']:.0f} prompt tokens at {first['prompt_tok_s']:.1f}"
          f" tok/s); 3 concurrent short calls on {figures['slots']} slots "
          f"{figures['three_concurrent_s']:.1f}s")
    if "agent" in figures:
        agent = figures["agent"]
        print(f"agent answer: {agent['wall_s']:.1f}s wall, {agent['status']}, "
              f"{agent['stats'].get('llm_calls')} LLM calls, {agent['stats'].get('tokens_in')} "
              f"tokens in / {agent['stats'].get('tokens_out')} out: {agent['answer']!r}")
    print(f"load average before {figures['load_before']}, after {figures['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
