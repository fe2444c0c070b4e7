"""Load check: concurrent conversations over HTTP (SSE) against the scripted model.

Starts a real server (uvicorn, one process) on a free localhost port with a fresh library,
uploads one small document per conversation, then runs every conversation at once: each
asks about its own document, twice, over ``/v1/conversations/{id}/stream``. It reports
errors, cross-talk (an answer, source or history that belongs to another conversation)
and the time to first token (p50/p95). Exit code 1 when there is any error or cross-talk.

With ``--keys`` the server has two API keys and the conversations alternate between them
(each key must get 404 for the other's conversations); ``--uploads N`` sends N uploads,
alternating the keys, while the conversations run, then checks that every upload is listed
once and belongs to the key that sent it (``mine``), and that the other key may not delete it.

    python bench/load_bench.py [--conversations 20] [--keys] [--uploads 20]
                               [--out bench/results/load.json]
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


KEYS = ["load-key-a-0123456789", "load-key-b-0123456789"]


def auth(key: str | None) -> dict[str, str]:
    """The Authorization header of ``key`` (none without keys)."""
    return {"Authorization": f"Bearer {key}"} if key else {}


def conversation(base: str, i: int, n: int, key: str | None = None,
                 other: str | None = None) -> dict[str, Any]:
    """Two turns about document ``i``; what went wrong, if anything."""
    own_code = f"amber{i:02d}kestrel"
    others = [f"amber{j:02d}kestrel" for j in range(n) if j != i]
    problems: list[str] = []
    ttfts: list[float] = []
    with httpx.Client(base_url=base, timeout=120, headers=auth(key)) as client:
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
        if other is not None:
            foreign = client.get(f"/v1/conversations/{thread_id}", headers=auth(other))
            if foreign.status_code != 404:
                problems.append(f"cross-talk: another key read this conversation "
                                f"({foreign.status_code})")
    return {"i": i, "ttft": ttfts, "problems": problems}


def upload(base: str, j: int, key: str | None) -> dict[str, Any]:
    """Upload ``j``: one small document with its own code word."""
    text = f"# Upload {j:02d}\n\nThe parcel code of upload {j:02d} is teal{j:02d}heron.\n"
    with httpx.Client(base_url=base, timeout=600, headers=auth(key)) as client:
        response = client.post("/v1/documents", params={"wait": "true"},
                               files=[("files", (f"upload-{j:02d}.md", text.encode(),
                                                 "text/markdown"))])
    results = response.json().get("results", []) if response.status_code == 200 else []
    return {"j": j, "status": response.status_code, "results": results}


def check_uploads(base: str, done: list[dict[str, Any]], keyed: bool) -> list[str]:
    """Every upload listed once, owned by its sender, not deletable by the other key."""
    problems = [f"error: upload {u['j']} answered {u['status']}" for u in done
                if u["status"] != 200 or [r["outcome"] for r in u["results"]] != ["added"]]
    keys: list[str | None] = list(KEYS) if keyed else [None]
    for index, key in enumerate(keys):
        listed = httpx.get(f"{base}/v1/documents", headers=auth(key), timeout=60)
        documents = listed.json()["documents"]
        for u in done:
            name = f"upload-{u['j']:02d}.md"
            rows = [d for d in documents if d["name"] == name]
            if len(rows) != 1:
                problems.append(f"lost: {name} listed {len(rows)} times")
                continue
            sender = u["j"] % len(keys)
            if rows[0]["mine"] != (sender == index):
                problems.append(f"crossed: {name} mine={rows[0]['mine']} for key {index}")
    if keyed and done:
        first = next(u for u in done if u["results"])
        other = KEYS[(first["j"] + 1) % 2]
        denied = httpx.delete(f"{base}/v1/documents/{first['results'][0]['document_id']}",
                              headers=auth(other), timeout=60)
        if denied.status_code != 403:
            problems.append(f"crossed: the other key deleted an upload ({denied.status_code})")
    return problems


def main() -> int:
    """Run the load check and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--keys", action="store_true", help="two API keys")
    parser.add_argument("--uploads", type=int, default=0, help="uploads during the run")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    n = args.conversations

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            llm={"model": "scripted"},
            server={"api_keys": ",".join(KEYS) if args.keys else ""},
        )
        app = create_app(Application(settings), ui=False, close_application=True)
        sock = bind("127.0.0.1", 0)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            admin = KEYS[0] if args.keys else None
            with httpx.Client(base_url=base, timeout=300, headers=auth(admin)) as client:
                files = [("files", (*document(i), "text/markdown")) for i in range(n)]
                job = client.post("/v1/documents", params={"wait": "true"}, files=files).json()
                assert job["counts"]["added"] == n, job
                client.get("/v1/search", params={"q": "warm up"})  # load the embedder
            started = time.perf_counter()
            def key_of(i: int) -> tuple[str | None, str | None]:
                return (KEYS[i % 2], KEYS[(i + 1) % 2]) if args.keys else (None, None)

            with ThreadPoolExecutor(max_workers=n + args.uploads) as pool:
                uploads = [pool.submit(upload, base, j, key_of(j)[0])
                           for j in range(args.uploads)]
                futures = [pool.submit(conversation, base, i, n, *key_of(i)) for i in range(n)]
                results = []
                for future in futures:
                    try:
                        results.append(future.result())
                    except Exception as exc:  # counted as an error, with its message
                        results.append({"i": -1, "ttft": [], "problems": [f"error: {exc!r}"]})
                uploaded = [u.result() for u in uploads]
            wall = time.perf_counter() - started
            upload_problems = check_uploads(base, uploaded, args.keys)
        finally:
            server.should_exit = True
            thread.join(timeout=10)

    firsts = sorted(r["ttft"][0] for r in results if r["ttft"])
    alls = sorted(t for r in results for t in r["ttft"])
    problems = [p for r in results for p in r["problems"]] + upload_problems
    report = {
        "conversations": n,
        "turns": len(alls),
        "errors": sum(1 for p in problems if not p.startswith("cross-talk")),
        "cross_talk": sum(1 for p in problems if p.startswith("cross-talk")),
        "keys": 2 if args.keys else 0,
        "uploads": args.uploads,
        "uploads_lost": sum(1 for p in upload_problems if p.startswith("lost")),
        "uploads_crossed": sum(1 for p in upload_problems if p.startswith("crossed")),
        "ttft_p50_s": round(statistics.median(alls), 3) if alls else None,
        "ttft_p95_s": round(alls[max(0, int(len(alls) * 0.95) - 1)], 3) if alls else None,
        "first_turn_ttft_p50_s": round(statistics.median(firsts), 3) if firsts else None,
        "first_turn_ttft_p95_s": (round(firsts[max(0, int(len(firsts) * 0.95) - 1)], 3)
                                  if firsts else None),
        "wall_s": round(wall, 2),
        "problems": problems[:20],
    }
    keyed = " with 2 keys" if args.keys else ""
    print(f"load check: {n} concurrent conversations x 2 turns over HTTP/SSE{keyed}, "
          f"scripted model, {args.uploads} concurrent uploads")
    print(f"  errors {report['errors']} · cross-talk {report['cross_talk']} · uploads lost "
          f"{report['uploads_lost']} · crossed {report['uploads_crossed']}")
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
