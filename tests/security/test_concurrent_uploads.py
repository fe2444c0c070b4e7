"""Concurrent uploads of one name by one key: every reported outcome matches what is stored.

N versions of ``notes.md`` go to a real server at once (``?wait=true``): on SQLite one
process, on PostgreSQL ``serve --workers 3``. The uploads of one owner run one after the
other, so exactly one is ``added``, the others ``replaced``, and the version stored (in
the catalog and the search index) is the one that finished last.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from tests.security.attack import KEYS, launch, running

ROUNDS = 4
LISTENING = r"listening on (http://\S+)"


def _version(i: int) -> str:
    return (f"# Valve log\n\nRound {i}: the relief valve of boiler {i} opened at "
            f"{100 + i * 7} kPa; marker word zq{i}x{i}.\n")


def _upload(url: str, i: int) -> dict:
    reply = httpx.post(f"{url}/v1/documents?wait=true", timeout=180,
                       headers={"Authorization": f"Bearer {KEYS['alice']}"},
                       files=[("files", ("notes.md", _version(i).encode(), "text/markdown"))])
    assert reply.status_code == 200, reply.text
    job = reply.json()
    assert job["status"] == "done", job
    return job


@pytest.mark.slow  # a real server (three on PostgreSQL)
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_uploads_under_one_name_report_what_is_stored(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest, figure: object
) -> None:
    settings = {"api_keys": KEYS["alice"]}
    flags: tuple[str, ...] = ()
    if backend == "postgresql":
        settings["database_url"] = request.getfixturevalue("postgres_url")
        flags = ("--workers", "3")
    with running(launch(tmp_path, "serve", "--port", "0", *flags, **settings),
                 LISTENING) as server:
        auth = {"Authorization": f"Bearer {KEYS['alice']}"}
        for attempt in range(2):  # twice: the second time every upload replaces a stored version
            rounds = range(attempt * ROUNDS, (attempt + 1) * ROUNDS)  # new content each time
            with ThreadPoolExecutor(max_workers=ROUNDS) as pool:
                jobs = list(pool.map(lambda i: _upload(server.url, i), rounds))
            outcomes = [j["results"][0]["outcome"] for j in jobs]
            listed = httpx.get(f"{server.url}/v1/documents", headers=auth, timeout=30).json()
            stored = [d for d in listed["documents"] if d["name"] == "notes.md"]
            assert len(stored) == 1, (outcomes, stored)
            reported = {j["results"][0]["document_id"]: i for i, j in zip(rounds, jobs,
                                                                          strict=True)}
            assert stored[0]["document_id"] in reported, (outcomes, stored)
            kept = reported[stored[0]["document_id"]]
            files = list((server.data_dir / "uploads").rglob("notes.md"))
            assert [p.read_text() for p in files] == [_version(kept)], outcomes
            hits = httpx.get(f"{server.url}/v1/search", headers=auth, timeout=60,
                             params={"query": "relief valve marker word", "k": 10}).json()
            texts = " ".join(h["text"] for h in hits["hits"])
            assert f"zq{kept}x{kept}" in texts
            assert all(f"zq{i}x{i}" not in texts for i in range(2 * ROUNDS) if i != kept), texts
            # one outcome per upload, in the order they ran: each replaced the one before
            first = ["added"] if attempt == 0 else []
            assert sorted(outcomes) == first + ["replaced"] * (ROUNDS - len(first)), outcomes
            figure(f"{backend}: {ROUNDS} concurrent uploads of one name reported {outcomes}; "
                   f"stored: round {kept}'s content, 1 document")
