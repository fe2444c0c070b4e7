"""Every interface names a cited sentence's own section (the deepest heading above it):
the CLI, the HTTP API, the OpenAI-compatible endpoint, MCP and the web UI's Sources.

The library holds one Markdown file of one chunk with three sections; the scripted model
quotes the sentence under "Installation on Linux". Before, every interface said
``guide.md, § Guide (+1 more)``: the chunk's first section.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from archivist.app.api.app import create_app
from archivist.app.cli.main import app as cli_app
from archivist.app.mcp.server import build_server
from archivist.app.ui.render import sources_block
from archivist.application import Application
from archivist.settings import Settings

GUIDE = ("# Guide\n\nThis guide covers the quokka toolkit.\n\n## Installation on Linux\n\n"
         "To install the quokka toolkit on Linux run the quokka-setup script as root and "
         "reboot.\n\n## Usage\n\nStart the toolkit with the quokka command and pick a "
         "project.\n")  # invented
QUESTION = "How do I install the quokka toolkit on Linux?"
LABEL = "guide.md, § Guide › Installation on Linux"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    root = tmp_path_factory.mktemp("cited-section")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as library:
        assert library.ingest.files([root / "docs"]).counts["added"] == 1
        (section,) = library.store.parents_of(library.store.resolve("guide.md").document_id)
        assert len(section.sections or []) == 3  # one chunk, three sections
    return root / "lib"


def test_the_cli_names_the_cited_sentences_section(
    data_dir: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("archivist.index.store.make_embedder", lambda *a, **k: embedder)
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")
    result = CliRunner().invoke(cli_app, ["ask", QUESTION, "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "quokka-setup" in result.output and f"[1] {LABEL}" in result.output
    result = CliRunner().invoke(cli_app, ["ask", QUESTION, "--json", "--data-dir",
                                          str(data_dir)])
    (source,) = json.loads(result.stdout)["sources"]
    assert source["heading_path"] == ["Guide", "Installation on Linux"]


def test_the_api_openai_mcp_and_web_ui_name_it(data_dir: Path, embedder: Any) -> None:
    with Application(Settings(data_dir=data_dir, llm={"model": "scripted"}),
                     embedder=embedder) as library:
        with TestClient(create_app(library, ui=False), base_url="http://localhost") as client:
            thread = client.post("/v1/conversations", json={}).json()["thread_id"]
            answer = client.post(f"/v1/conversations/{thread}/messages",
                                 json={"message": QUESTION}).json()
            (source,) = answer["sources"]
            assert source["heading_path"] == ["Guide", "Installation on Linux"]
            assert source["pages"] == "§ Guide › Installation on Linux"
            assert LABEL in sources_block(answer["sources"], None, 1)  # the web UI's lines

            reply = client.post("/v1/chat/completions", json={
                "model": "archivist", "messages": [{"role": "user", "content": QUESTION}]})
            assert LABEL in reply.json()["choices"][0]["message"]["content"]

        server = build_server(library)
        result = anyio.run(server.call_tool, "ask", {"question": QUESTION})
        structured = getattr(result, "structuredContent", None) or \
            json.loads(result.content[0].text)
        assert [s["label"] for s in structured["sources"]] == [LABEL]
