"""Which of a company's filings the metric path reads: made-up 10-Ks, real PDFs and library.

Brackwater Mills files two annual reports (fiscal 2023 as ``1.pdf``, fiscal 2024 as
``2.pdf``), each with its income statement; the model is scripted and computes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from tests.agent.helpers import done, run, steps
from tests.filings.fake_filings import cover_lines, make_filing

from archivist.agent.service import AgentService
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel


def _income(sales: tuple[str, str], gross: tuple[str, str], net: tuple[str, str]
            ) -> list[tuple[str, str, str]]:
    return [("Net sales", *sales), ("Cost of sales", "1,500", "1,380"), ("Gross profit", *gross),
            ("Operating income", "310", "260"), ("Income before income taxes", "290", "245"),
            ("Provision for income taxes", "54", "47"), ("Net income", *net)]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory,
             embedder: SentenceTransformerEmbedder) -> Path:
    root = tmp_path_factory.mktemp("choice")
    (root / "docs").mkdir()
    for number, year, name, income in (
            (1, 2023, "Brackwater Mills, Inc.",
             _income(("2,150", "1,990"), ("770", "700"), ("198", "171"))),
            (2, 2024, "BRACKWATER MILLS INC",  # one registrant, its name printed otherwise
             _income(("2,400", "2,150"), ("900", "770"), ("236", "198")))):
        make_filing(root / "docs" / f"{number}.pdf",
                    cover_lines(name, "10-K", f"December 31, {year}", "BWM"),
                    [("BRACKWATER MILLS, INC. CONSOLIDATED STATEMENTS OF OPERATIONS", income,
                      (str(year), str(year - 1)))])
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as library:
        assert library.ingest.files([root / "docs"]).counts["added"] == 2
    return root / "lib"


@pytest.fixture
def service(data_dir: Path, embedder: SentenceTransformerEmbedder) -> Iterator[AgentService]:
    with Application(Settings(data_dir=data_dir), embedder=embedder) as library:
        settings = library.settings.with_values(agent={"policy": "small"})
        with closing(AgentService(library.searcher, settings, llm=ScriptedChatModel())) as made:
            yield made


def test_with_no_year_named_the_latest_annual_report_is_read(service: AgentService) -> None:
    events = run(service, "What is Brackwater Mills' gross margin?")
    assert not steps(events, "metric_fallback")
    answer = done(events)["answer"]
    assert "for fiscal 2024" in answer and "\n= 37.50%" in answer  # (2,400 - 1,500) / 2,400
    assert "Net sales, fiscal 2024: 2,400 [2.pdf, p. 2]" in answer


def test_the_year_named_chooses_its_own_annual_report(service: AgentService) -> None:
    events = run(service, "What was Brackwater Mills' net income in fiscal 2023?")
    assert "Net income, fiscal 2023: 198 [1.pdf, p. 2]" in done(events)["answer"]
    earlier = run(service, "What was Brackwater Mills' net income in fiscal 2022?")
    assert "Net income, fiscal 2022: 171 [1.pdf, p. 2]" in done(earlier)["answer"]
