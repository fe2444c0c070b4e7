"""Load check: 20 concurrent conversations over HTTP (SSE) against the scripted model.

Starts a real server (uvicorn, one process) on a free localhost port with a fresh library,
uploads one small document per conversation, then runs every conversation at once: each
asks about its own document, twice, over ``/v1/conversations/{id}/stream``. It reports
errors, cross-talk (an answer, source or history that belongs to another conversation)
and the time to first token (p50/p95). Exit code 1 when there is any error or cross-talk.

    python bench/load_bench.py [--conversations 20] [--out bench/results/load.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from archivist.app.api.app import create_app  # noqa: E402
from archivist.app.cli.serve import bind  # noqa: E402
from archivist.application import Application  # noqa: E402
from archivist.settings import Settings  # noqa: E402


def document(i: int) -> tuple[str, bytes]:
    """Conversation ``i``'s own document: a project with a unique code word."""
    text = (
        f"# Project Alder-{i:02d}\n\nThe code word of project Alder-{i:02d} is "
        f"amber{i:02d}kestrel. The lead of project Alder-{i:02d} works in building {100 + i}.\n"
    )
    return f"alder-{i:02d}.md", text.encode()


def parse_sse(lines: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(event, data) pairs from SSE lines."""
    out, name = [], "message"
    for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            out.append((name, json.loads(line[5:].strip())))
    return out


def turn(client: httpx.Client, thread_id: str, message: str) -> tuple[float, list[Any]]:
    """One streamed turn: (seconds to the first token, events)."""
    started = time.perf_counter()
    first: float | None = None
    lines: list[str] = []
    with client.stream("POST", f"/v1/conversations/{thread_id}/stream",
                       json={"message": message}) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if first is None and line.strip() == "event: token":
                first = time.perf_counter() - started
            lines.append(line)
    return (first if first is not None else float("nan")), parse_sse(lines)


def conversation(base: str, i: int, n: int) -> dict[str, Any]:
    """Two turns about document ``i``; what went wrong, if anything."""
    own_code = f"amber{i:02d}kestrel"
    others = [f"amber{j:02d}kestrel" for j in range(n) if j != i]
    problems: list[str] = []
    ttfts: list[float] = []
    with httpx.Client(base_url=base, timeout=120) as client:
        thread_id = client.post("/v1/conversations").json()["thread_id"]
        questions = [f"What is the code word of project Alder-{i:02d}?",
                     f"Which building does the lead of project Alder-{i:02d} work in?"]
        for question in questions:
            ttft, events = turn(client, thread_id, question)
            ttfts.append(ttft)
            names = [name for name, _ in events]
            if not names or names[-1] != "done":
                problems.append(f"no done event: {names}")
                continue
            done = events[-1][1]
            text = json.dumps(events)
            if done["thread_id"] != thread_id:
                problems.append("cross-talk: done names another thread")
            if any(code in text for code in others):
                problems.append("cross-talk: another conversation's document in this turn")
            sources = [s["document_name"] for n_, d in events if n_ == "sources"
                       for s in d["sources"]]
            if sources and set(sources) != {f"alder-{i:02d}.md"}:
                problems.append(f"cross-talk: sources {sources}")
            if "error" in names:
                problems.append(f"error event: {text[:200]}")
        history = client.get(f"/v1/conversations/{thread_id}").json()["messages"]
        users = [m["content"] for m in history if m["role"] == "user"]
        if users != questions:
            problems.append(f"cross-talk: history holds {users}")
        if any(code in json.dumps(history) for code in others):
            problems.append("cross-talk: another conversation in this history")
        if own_code not in json.dumps(history):
            problems.append("wrong answer: own code word missing from the history")
    return {"i": i, "ttft": ttfts, "problems": problems}


def main() -> int:
    """Run the load check and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    n = args.conversations

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), llm="scripted")
        app = create_app(Application(settings), ui=False, close_application=True)
        sock = bind("127.0.0.1", 0)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            with httpx.Client(base_url=base, timeout=300) as client:
                files = [("files", (*document(i), "text/markdown")) for i in range(n)]
                job = client.post("/v1/documents", params={"wait": "true"}, files=files).json()
                assert job["counts"]["added"] == n, job
                client.get("/v1/search", params={"q": "warm up"})  # load the embedder
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=n) as pool:
                futures = [pool.submit(conversation, base, i, n) for i in range(n)]
                results = []
                for future in futures:
                    try:
                        results.append(future.result())
                    except Exception as exc:  # counted as an error, with its message
                        results.append({"i": -1, "ttft": [], "problems": [f"error: {exc!r}"]})
            wall = time.perf_counter() - started
        finally:
            server.should_exit = True
            thread.join(timeout=10)

    firsts = sorted(r["ttft"][0] for r in results if r["ttft"])
    alls = sorted(t for r in results for t in r["ttft"])
    problems = [p for r in results for p in r["problems"]]
    report = {
        "conversations": n,
        "turns": len(alls),
        "errors": sum(1 for p in problems if not p.startswith("cross-talk")),
        "cross_talk": sum(1 for p in problems if p.startswith("cross-talk")),
        "ttft_p50_s": round(statistics.median(alls), 3) if alls else None,
        "ttft_p95_s": round(alls[max(0, int(len(alls) * 0.95) - 1)], 3) if alls else None,
        "first_turn_ttft_p50_s": round(statistics.median(firsts), 3) if firsts else None,
        "first_turn_ttft_p95_s": (round(firsts[max(0, int(len(firsts) * 0.95) - 1)], 3)
                                  if firsts else None),
        "wall_s": round(wall, 2),
        "problems": problems[:20],
    }
    print(f"load check: {n} concurrent conversations x 2 turns over HTTP/SSE, scripted model")
    print(f"  errors {report['errors']} · cross-talk {report['cross_talk']}")
    print(f"  time to first token: p50 {report['ttft_p50_s']} s · p95 {report['ttft_p95_s']} s "
          f"(first turns: p50 {report['first_turn_ttft_p50_s']} s · "
          f"p95 {report['first_turn_ttft_p95_s']} s)")
    print(f"  wall time {report['wall_s']} s")
    for problem in report["problems"]:
        print(f"  ! {problem}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
