"""Item 4c-d: the MCP server caps a query, and answers a malformed line with a JSON-RPC error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from archivist.app.limits import QUERY_MAX_CHARS


class McpProcess:
    """``python -m archivist.app.mcp.server`` spoken to line by line."""

    def __init__(self, data_dir: Path, config: Path, stderr: Any = subprocess.DEVNULL) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
        env.update(ARCHIVIST_DATA_DIR=str(data_dir), ARCHIVIST_CONFIG=str(config),
                   ARCHIVIST_LLM__MODEL="scripted", HF_HUB_OFFLINE="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "archivist.app.mcp.server"], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
        )

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def request(self, id_: int, method: str, params: dict[str, Any] | None = None) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method,
                              "params": params or {}}))

    def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the MCP server closed its output"
        return dict(json.loads(line))


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[McpProcess]:
    (tmp_path / "empty.toml").write_text("")
    server = McpProcess(tmp_path / "data", tmp_path / "empty.toml")
    yield server
    server.process.kill()
    server.process.wait(timeout=20)


def test_malformed_lines_get_json_rpc_errors(mcp: McpProcess, figure) -> None:
    mcp.send("this is not json {")
    parse = mcp.reply()
    assert parse["id"] is None and parse["error"]["code"] == -32700
    mcp.send('{"hello": "world"}')
    invalid = mcp.reply()
    assert invalid["id"] is None and invalid["error"]["code"] == -32600
    mcp.request(1, "ping")
    assert mcp.reply() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    figure(f"MCP malformed line: error {parse['error']['code']}; JSON that is not JSON-RPC: "
           f"{invalid['error']['code']}; the next request is still answered")


def test_an_oversize_query_is_refused_at_once(mcp: McpProcess, figure) -> None:
    mcp.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "attacker", "version": "1"}})
    assert "result" in mcp.reply()
    mcp.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    started = time.perf_counter()
    mcp.request(2, "tools/call", {"name": "search_documents",
                                  "arguments": {"query": "pump " * (1024 * 1024)}})
    answer = mcp.reply()
    seconds = time.perf_counter() - started
    assert answer["id"] == 2
    result = answer.get("result") or {}
    text = json.dumps(answer)
    assert result.get("isError") or "error" in answer, text[:500]
    assert str(QUERY_MAX_CHARS) in text
    assert seconds < 30
    figure(f"MCP 5 MB query: refused as a tool error in {seconds:.1f} s")


def test_a_collection_name_that_climbs_out_is_a_clear_tool_error(tmp_path: Path) -> None:
    (tmp_path / "empty.toml").write_text("")
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        mcp = McpProcess(tmp_path / "data", tmp_path / "empty.toml", stderr=stderr)
        try:
            mcp.request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "attacker", "version": "1"}})
            assert "result" in mcp.reply()
            mcp.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            calls = {"search_documents": {"query": "pump"}, "ask": {"question": "pump?"},
                     "list_documents": {}}
            for n, (tool, arguments) in enumerate(calls.items(), start=2):
                mcp.request(n, "tools/call", {"name": tool, "arguments": {
                    **arguments, "collection": "../../etc"}})
                answer = mcp.reply()
                result = answer.get("result") or {}
                text = " ".join(c.get("text", "") for c in result.get("content", []))
                assert result.get("isError"), (tool, answer)
                assert "collection" in text and "../../etc" in text, (tool, text)
        finally:
            mcp.process.kill()
            mcp.process.wait(timeout=20)
    assert "Traceback" not in log.read_text(), log.read_text()[-2000:]
