"""The MCP server over stdio, driven by the MCP Python SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from archivist.application import Application
from archivist.conversations import TurnLog
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import SEARCH_MODES, Settings
from archivist.storage import open_database


def _structured(result: Any) -> dict[str, Any]:
    data = getattr(result, "structured_content", None)
    if data is None:
        data = getattr(result, "structuredContent", None)
    if data is None:
        data = json.loads(result.content[0].text)
    return dict(data)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
             corpus: dict[str, Path]) -> Path:
    path = tmp_path_factory.mktemp("mcp-lib")
    with Application(Settings(data_dir=path), embedder=embedder) as library:
        library.ingest.files([corpus["zephyr"], corpus["orchard"]])
    return path


def test_mcp_tools_over_stdio(data_dir: Path, tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARCHIVIST_")}
    env.update({"ARCHIVIST_DATA_DIR": str(data_dir), "ARCHIVIST_LLM__MODEL": "scripted",
                "ARCHIVIST_CONFIG": "", "HF_HUB_OFFLINE": "1"})
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "archivist.app.mcp.server"], env=env)

    async def session_run() -> None:
        with (tmp_path / "mcp-stderr.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert set(tools) == {"search_documents", "ask", "list_documents"}
                schema = getattr(tools["search_documents"], "input_schema", None) or \
                    tools["search_documents"].inputSchema  # type: ignore[attr-defined]
                assert schema["required"] == ["query"]
                assert schema["properties"]["query"]["description"]
                mode = json.dumps(schema["properties"]["mode"])
                assert all(f"{name}," in mode or f"{name} " in mode for name in SEARCH_MODES)
                assert tools["ask"].description

                listing = _structured(await session.call_tool("list_documents", {}))
                names = {d["name"] for d in listing["documents"]}
                assert names == {"zephyr-manual.pdf", "orchard.md"}

                found = _structured(await session.call_tool(
                    "search_documents", {"query": "calibrated every 90 days", "k": 2}))
                top = found["passages"][0]
                assert top["document"] == "zephyr-manual.pdf" and top["pages"] == "p. 2"

                answer = _structured(await session.call_tool(
                    "ask", {"question": "How long does the Zephyr warranty last?"}))
                assert answer["status"] == "answered" and "five" in answer["answer"]
                assert answer["sources"][0]["pages"] == "p. 3"
                # named as every interface names it: document, pages, section
                assert answer["sources"][0]["label"].startswith("zephyr-manual.pdf, p. 3, § ")
                follow = _structured(await session.call_tool(
                    "ask", {"question": "When are Honeycrisp trees pruned?",
                            "thread_id": answer["thread_id"]}))
                assert follow["thread_id"] == answer["thread_id"]
                assert "February" in follow["answer"]
                threads.append(answer["thread_id"])

                bad = await session.call_tool("search_documents", {"query": ""})
                is_error = getattr(bad, "is_error", None)
                assert is_error if is_error is not None else bad.isError  # type: ignore[attr-defined]

    threads: list[str] = []
    anyio.run(session_run)
    database = open_database(None, data_dir)  # MCP's turns are recorded like every other's
    try:
        turns = TurnLog(database).turns(threads[0])
    finally:
        database.close()
    assert [t.question for t in turns] == ["How long does the Zephyr warranty last?",
                                           "When are Honeycrisp trees pruned?"]
