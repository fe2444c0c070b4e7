"""Filings in a real library: metadata from their text under numeric file names, kept on
SQLite and PostgreSQL, listed, and used as a search filter by the CLI, the API and MCP."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession, StdioServerParameters, stdio_client
from tests.filings.fake_filings import harbor_10q, widget_10k
from typer.testing import CliRunner

from archivist.agent.evidence.gate import score_gate
from archivist.agent.tools import hit_evidence
from archivist.app.api.app import create_app
from archivist.app.cli.main import app as cli_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.search import SearchRequest
from archivist.settings import Settings

NOTES = "# Orchard notes\n\nPrune the pear trees in late winter; net revenues are not a topic.\n"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two made-up filings named by number, and one document that is no filing."""
    root = tmp_path_factory.mktemp("filings")
    widget_10k(root / "1.pdf")
    harbor_10q(root / "2.pdf")
    (root / "3.md").write_text(NOTES, encoding="utf-8")
    return root


def _by_name(library: Application) -> dict[str, Any]:
    return {d.name: d for d in library.store.documents()}


def test_metadata_and_statements_are_kept_on_both_backends(
    folder: Path, tmp_path: Path, database_url: str, embedder: SentenceTransformerEmbedder,
) -> None:
    settings = Settings(data_dir=tmp_path / "lib", storage={"database_url": database_url})
    with Application(settings, embedder=embedder) as library:
        assert library.ingest.files([folder]).counts["added"] == 3
    with Application(settings, embedder=embedder) as library:  # read back from the database
        docs = _by_name(library)
        widget, harbor, notes = docs["1.pdf"], docs["2.pdf"], docs["3.md"]
        assert (widget.company, widget.ticker, widget.form, widget.fiscal_year,
                widget.fiscal_year_end, widget.period) == (
            "Quillfeather Instruments, Inc.", "QFI", "10-K", 2022, "06-30", "2022-06-30")
        assert (harbor.company, harbor.form, harbor.fiscal_year, harbor.fiscal_quarter) == (
            "Harborline Foods Corporation", "10-Q", 2023, 1)
        assert (notes.company, notes.form, notes.fiscal_year) == (None, None, None)
        tables = {t.name: t for t in library.store.tables_of(document_ids={widget.document_id})}
        income = tables["income_statement"]
        assert income.columns == ["line_item", "fy2022", "fy2021", "page"]
        assert income.unit == "millions"
        balance = tables["balance_sheet"]
        assert balance.columns == ["line_item", "d2022_06_30", "d2021_06_30", "page"]
        assert "cash_flow_statement" in tables
        result = library.searcher.retriever().query_tables(
            [income], 'SELECT fy2022, page FROM income_statement WHERE line_item = '
                      "'Operating income'")
        assert result.rows == [[1050, 2]]
        request = SearchRequest.model_validate({"query": "net revenues cost of revenues",
                                                "where": ["company=Harborline"]})
        hits = library.searcher.run(request)
        assert hits and {h.document_name for h in hits} == {"2.pdf"}
        none = SearchRequest.model_validate({"query": "net revenues", "where": ["form=8-K"]})
        assert library.searcher.run(none) == []


@pytest.fixture(scope="module")
def data_dir(folder: Path, tmp_path_factory: pytest.TempPathFactory,
             embedder: SentenceTransformerEmbedder) -> Path:
    path = tmp_path_factory.mktemp("filing-lib")
    with Application(Settings(data_dir=path), embedder=embedder) as library:
        library.ingest.files([folder])
    return path


def test_a_page_of_a_numbered_file_is_known_as_its_company_s(data_dir: Path) -> None:
    """The balance sheet page does not print the company's name and the file is ``1.pdf``:
    its hits still say whose filing they are, so the score gate keeps them."""
    question = "What were Quillfeather's total current liabilities at June 30, 2022?"
    with Application(Settings(data_dir=data_dir)) as library:
        hits = library.searcher.search(question, k=4, document_ids=[
            d.document_id for d in library.store.documents() if d.name == "1.pdf"])
    balance = [h for h in hits if "Total current liabilities" in h.text]
    assert balance and all("Quillfeather" not in h.text for h in balance)
    assert all(h.document_about.endswith("Quillfeather Instruments, Inc. · QFI · 10-K · FY2022 · "
                                         "period 2022-06-30") for h in balance)
    evidence = [hit_evidence(h) for h in balance]
    assert score_gate(question, evidence)[0] == evidence
    unknown = [{**e, "document_about": ""} for e in evidence]
    assert score_gate(question, unknown)[0] == []  # type: ignore[arg-type]


def test_the_cli_lists_filings_and_filters_a_search(data_dir: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(cli_app, ["list", "--json", "--data-dir", str(data_dir)])
    assert listed.exit_code == 0, listed.output
    rows = {d["name"]: d for d in json.loads(listed.output)["documents"]}
    assert rows["1.pdf"]["company"] == "Quillfeather Instruments, Inc."
    assert rows["1.pdf"]["form"] == "10-K" and rows["1.pdf"]["fiscal_year"] == 2022
    assert rows["3.md"]["form"] is None
    table = runner.invoke(cli_app, ["list", "--data-dir", str(data_dir)])
    assert "Harborline" in table.output and "10-Q" in table.output
    found = runner.invoke(cli_app, ["search", "net revenues", "--where", "form=10-K", "--json",
                                    "--data-dir", str(data_dir)])
    assert found.exit_code == 0, found.output
    body = json.loads(found.output)
    assert body["where"] == ["form=10-K"]
    assert body["hits"] and {h["document_name"] for h in body["hits"]} == {"1.pdf"}
    bad = runner.invoke(cli_app, ["search", "net revenues", "--where", "sector=food",
                                  "--data-dir", str(data_dir)])
    assert bad.exit_code == 2
    assert "unknown filter key 'sector'" in bad.output and "Traceback" not in bad.output


@pytest.fixture
def client(data_dir: Path, embedder: SentenceTransformerEmbedder) -> Iterator[TestClient]:
    settings = Settings(data_dir=data_dir, llm={"model": "scripted"})
    with Application(settings, embedder=embedder) as library, \
            TestClient(create_app(library, ui=False), base_url="http://localhost",
                       raise_server_exceptions=False) as test_client:
        yield test_client


def test_the_api_lists_filings_and_filters_a_search(client: TestClient) -> None:
    listed = {d["name"]: d for d in client.get("/v1/documents").json()["documents"]}
    assert listed["2.pdf"]["ticker"] == "HBLF" and listed["2.pdf"]["period"] == "2023-03-31"
    response = client.get("/v1/search", params=[("q", "gross profit"), ("where", "ticker=QFI"),
                                                ("where", "fiscal_year=2022")])
    assert response.status_code == 200, response.text
    assert {h["document_name"] for h in response.json()["hits"]} == {"1.pdf"}
    bad = client.get("/v1/search", params={"q": "x", "where": "fiscal_year=soon"})
    assert bad.status_code == 422
    assert "must be a number" in bad.text


def test_mcp_lists_filings_and_filters_a_search(data_dir: Path, tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARCHIVIST_")}
    env.update({"ARCHIVIST_DATA_DIR": str(data_dir), "ARCHIVIST_LLM__MODEL": "scripted",
                "ARCHIVIST_CONFIG": "", "HF_HUB_OFFLINE": "1"})
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "archivist.app.mcp.server"], env=env)
    seen: dict[str, Any] = {}

    async def session_run() -> None:
        with (tmp_path / "mcp-stderr.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                listing = await session.call_tool("list_documents", {})
                seen["listing"] = json.loads(listing.content[0].text)
                found = await session.call_tool("search_documents", {
                    "query": "net revenues", "where": ["company=Harborline Foods"]})
                seen["found"] = json.loads(found.content[0].text)

    anyio.run(session_run)
    documents = {d["name"]: d for d in seen["listing"]["documents"]}
    assert documents["1.pdf"]["fiscal_year_end"] == "06-30"
    assert {p["document"] for p in seen["found"]["passages"]} == {"2.pdf"}
