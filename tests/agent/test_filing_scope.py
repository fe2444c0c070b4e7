"""A question naming a company, form or fiscal period draws from that filing alone."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

from .helpers import done, run, steps

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "filings"))
from fake_filings import harbor_10q, widget_10k  # noqa: E402


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory,
            embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    """Two made-up filings with the same statement lines, named by number only."""
    root = tmp_path_factory.mktemp("filings")
    (root / "docs").mkdir()
    widget_10k(root / "docs" / "1.pdf")
    harbor_10q(root / "docs" / "2.pdf")
    made = Application(Settings(data_dir=root / "library", agent={"policy": "capable"}),
                       embedder=embedder)
    assert made.ingest.files([root / "docs"]).counts["added"] == 2
    yield made
    made.close()


def test_a_question_naming_a_company_searches_its_filing(make_service,
                                                         filings: Application) -> None:
    events = run(make_service(ScriptedChatModel(), library=filings, table_queries=False),
                 "What were Harborline Foods' net revenues for the quarter?")
    (within,) = steps(events, "within_document")[:1]
    assert within["document"] == "2.pdf"
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert {s["document_name"] for s in sources["sources"]} <= {"2.pdf"}
    assert done(events)["status"] == "answered"
