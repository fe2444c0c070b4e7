"""While `archivist serve` holds a library, the CLI on that data dir goes through it.

A real server process (`archivist serve --port 0`, with API keys, so the local token has to
stand in for a key) holds the library; the CLI commands run in this process on the same
data dir and must print what they print when they open the library themselves.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from tests.index.corpus import write_corpus
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.app.server_file import SERVER_FILE, read_server_file
from archivist.application import Application

runner = CliRunner()
SERVE = "from archivist.app.cli import main; main()"


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def same_clock(text: str) -> str:
    """The output with the time of day zeroed (the two libraries were filled a bit apart)."""
    return re.sub(r"(?<=T)[\d:]+", lambda m: re.sub(r"\d", "0", m.group()), text)


def start_server(data_dir: Path, tmp_path: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update(
        {
            "ARCHIVIST_LLM__MODEL": "scripted",
            "ARCHIVIST_SERVER__API_KEYS": "a-key-the-cli-does-not-have",
            "ARCHIVIST_CONFIG": "",
            "HF_HUB_OFFLINE": "1",
        }
    )
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, "serve", "--port", "0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
    assert match, line + (process.stderr.read() if process.poll() is not None else "")  # type: ignore[union-attr]
    deadline = time.monotonic() + 60
    while True:
        address = read_server_file(data_dir)
        if address is not None:
            try:
                if httpx.get(address.url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
        assert time.monotonic() < deadline, "the server never published its address"
        time.sleep(0.1)
    assert address.url == match.group(1)
    return process


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Two libraries ingested alike: `local` opened by the CLI, `served` held by a server."""
    root = tmp_path_factory.mktemp("through-server")
    docs = write_corpus(root / "docs")
    (docs / "image.xyz").write_bytes(b"\x89PNG")
    extra = root / "extra.md"
    extra.write_text("# Gardening\n\nTomatoes need full sun and deep watering.\n", "utf-8")
    local, served = root / "local", root / "served"
    for data_dir in (local, served):
        code, out, _err = cli("ingest", str(docs), "--data-dir", str(data_dir))
        assert code == 0 and "added 4" in out and "skipped 1" in out, out
    process = start_server(served, root)
    try:
        yield {"root": root, "docs": docs, "extra": extra, "local": local, "served": served}
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert not (served / SERVER_FILE).exists()  # withdrawn on a clean stop
    code, out, _err = cli("list", "--data-dir", str(served))  # and the CLI opens it itself
    assert code == 0 and "postgres.md" in out


def test_the_server_publishes_its_address_owner_only(setup: dict[str, Path]) -> None:
    path = setup["served"] / SERVER_FILE
    assert path.stat().st_mode & 0o077 == 0
    raw = json.loads(path.read_text())
    assert raw["url"].startswith("http://127.0.0.1:") and raw["token"] and raw["pid"] > 0
    # without the token (or with another) neither the local routes nor the API answer
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        for route in ("/v1/local/library", "/v1/documents"):
            assert httpx.get(raw["url"] + route, headers=headers, timeout=5).status_code == 401
    mine = {"Authorization": f"Bearer {raw['token']}"}
    answer = httpx.get(raw["url"] + "/v1/local/library", headers=mine, timeout=5)
    assert answer.json()["data_dir"] == str(setup["served"].resolve())


def test_list_and_search_print_the_same_as_a_local_library(setup: dict[str, Path]) -> None:
    for args in (["list"], ["search", "XK-4471", "-k", "2"], ["search", "red planet"]):
        local = cli(*args, "--data-dir", str(setup["local"]))
        served = cli(*args, "--data-dir", str(setup["served"]))
        assert served[0] == local[0] == 0
        assert same_clock(served[1]) == same_clock(local[1])
    assert "errors.md" in cli("search", "XK-4471", "--data-dir", str(setup["served"]))[1]


def test_ingest_through_the_server_reports_like_a_local_ingest(
    setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = setup["root"] / "bad"
    bad.mkdir(exist_ok=True)
    (bad / "empty.md").write_text("")
    (bad / "notes.pdf").write_text("not a PDF at all\n")
    (bad / "good.txt").write_text("Copper conducts heat well.\n")
    monkeypatch.chdir(setup["root"])  # a relative path, printed as the user wrote it
    results = [cli("ingest", "bad", "--data-dir", str(setup[k])) for k in ("local", "served")]
    assert results[0][0] == results[1][0] == 3
    assert results[0][1] == results[1][1]
    assert "added 1" in results[1][1] and "failed 2" in results[1][1]
    assert "failed  bad/empty.md: empty" in results[1][1]
    # the server read the files where they are: the new document is searchable
    code, out, _ = cli("search", "copper heat", "-k", "1", "--data-dir", str(setup["served"]))
    assert code == 0 and "good.txt" in out


def test_remove_and_unknown_document_go_through_the_server(setup: dict[str, Path]) -> None:
    served = str(setup["served"])
    code, out, _ = cli("ingest", str(setup["extra"]), "--data-dir", served)
    assert code == 0 and "added 1" in out
    code, out, _ = cli("remove", "extra.md", "--data-dir", served)
    assert code == 0 and out.startswith("removed extra.md (")
    code, _out, err = cli("remove", "extra.md", "--data-dir", served)
    assert code == 2 and "no document matches 'extra.md'" in err
    assert "extra.md" not in cli("list", "--data-dir", served)[1]


def test_ask_streams_the_servers_answer(
    setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")  # the local run's model = the server's
    question = "What does error code XK-4471 mean?"
    answers = []
    for key in ("local", "served"):
        code, out, _ = cli("ask", question, "--data-dir", str(setup[key]))
        assert code == 0, out
        assert re.search(r"thread: \S+", out)
        answers.append(re.sub(r"thread: \S+", "thread: <id>", out))
    assert answers[0] == answers[1]
    assert "Sources:\n  [1] errors.md, § Troubleshooting" in answers[1]
    code, _out, err = cli("ask", "hi", "--llm", "openai:gpt-4o", "--data-dir", str(setup["served"]))
    assert code == 1 and "answers with its own model" in err


def test_show_and_collections_print_the_same_as_a_local_library(setup: dict[str, Path]) -> None:
    cases = (
        ["show", "postgres.md"],
        ["show", "postgres.md", "--no-children"],
        ["show", "postgres.md", "--json"],
        ["collections"],
    )
    for args in cases:
        local = cli(*args, "--data-dir", str(setup["local"]))
        served = cli(*args, "--data-dir", str(setup["served"]))
        assert served[0] == local[0] == 0, served
        # the two libraries hold the same files under different roots
        assert same_clock(served[1]).replace(str(setup["served"]), "") == same_clock(
            local[1]
        ).replace(str(setup["local"]), ""), args
    shown = cli("show", "postgres.md", "--json", "--data-dir", str(setup["served"]))[1]
    document = json.loads(shown)
    assert document["document"]["name"] == "postgres.md" and document["parents"]
    assert document["parents"][0]["children"], "children come with their parents"
    assert "default  " in cli("collections", "--data-dir", str(setup["served"]))[1]
    code, _out, err = cli("show", "no-such-file.md", "--data-dir", str(setup["served"]))
    assert code == 2 and "no document matches 'no-such-file.md'" in err


def test_chat_goes_through_the_server(
    setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")
    typed = "What does error code XK-4471 mean?\n/new\nWhere is the red planet?\n/exit\n"
    outputs = []
    for key in ("local", "served"):
        result = runner.invoke(app, ["chat", "--data-dir", str(setup[key])], input=typed)
        assert result.exit_code == 0, result.stdout + result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert "Sources:\n  [1] errors.md, § Troubleshooting" in outputs[1]
    assert "new conversation" in outputs[1]


def test_mcp_goes_through_the_server(setup: dict[str, Path], tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env.update({"ARCHIVIST_DATA_DIR": str(setup["served"]), "ARCHIVIST_LLM__MODEL": "scripted",
                "ARCHIVIST_CONFIG": "", "HF_HUB_OFFLINE": "1"})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "archivist.app.mcp.server"], env=env
    )
    seen: dict[str, Any] = {}

    async def session_run() -> None:
        with (tmp_path / "mcp-stderr.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                for name, args in (
                    ("list_documents", {}),
                    ("search_documents", {"query": "XK-4471", "k": 2}),
                    ("ask", {"question": "What does error code XK-4471 mean?"}),
                ):
                    result = await session.call_tool(name, args)
                    seen[name] = json.loads(result.content[0].text)

    anyio.run(session_run)
    assert {d["name"] for d in seen["list_documents"]["documents"]} >= {"postgres.md", "errors.md"}
    assert seen["search_documents"]["passages"][0]["document"] == "errors.md"
    assert seen["ask"]["status"] == "answered"
    assert seen["ask"]["sources"][0]["document"] == "errors.md"
    # the server's conversation: the same thread is there, through the server's API
    address = read_server_file(setup["served"])
    assert address is not None
    history = httpx.get(
        f"{address.url}/v1/conversations/{seen['ask']['thread_id']}",
        headers={"Authorization": f"Bearer {address.token}"}, timeout=10,
    )
    assert history.status_code == 200, history.text


def test_commands_that_need_the_library_say_what_to_do(setup: dict[str, Path]) -> None:
    served = setup["served"]
    questions = setup["root"] / "questions.jsonl"
    questions.write_text(json.dumps({"question": "What is XK-4471?", "reference": "x"}) + "\n")
    pid = read_server_file(served).pid  # type: ignore[union-attr]
    for args, command in (
        (["eval", "answers", str(questions)], "eval answers"),
        (["sync", str(setup["docs"])], "sync"),
        (["reindex"], "reindex"),
    ):
        code, _out, err = cli(*args, "--data-dir", str(served))
        assert code == 1, err
        line = " ".join(err.split())
        assert f"`archivist {command}` needs the library to itself" in line
        assert f"kill {pid}" in line and "another --data-dir" in line
        assert "in use by another Archivist process" not in line and "Traceback" not in err


def test_a_killed_servers_address_is_ignored(tmp_path: Path) -> None:
    data_dir = tmp_path / "lib"
    assert cli("ingest", str(write_corpus(tmp_path / "docs")), "--data-dir", str(data_dir))[0] == 0
    process = start_server(data_dir, tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert (data_dir / SERVER_FILE).exists()  # left behind by kill -9
    code, out, _ = cli("list", "--data-dir", str(data_dir))
    assert code == 0 and "postgres.md" in out  # opened locally: the lock died with it


def test_local_routes_are_absent_without_the_token(library: Application) -> None:
    from fastapi.testclient import TestClient

    from archivist.app.api.app import create_app

    api = create_app(library, ui=False)
    with TestClient(api, base_url="http://127.0.0.1") as client:
        assert client.get("/v1/local/library").status_code == 404  # no keys, no token
        api.state.keys.allow_local("the-token")
        mine = {"Authorization": "Bearer the-token"}
        assert client.get("/v1/local/library", headers=mine).status_code == 200
        relative = client.post("/v1/local/ingest", json={"paths": ["notes.md"]}, headers=mine)
        assert relative.status_code == 422 and "absolute" in relative.text
