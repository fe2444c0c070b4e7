"""The period a metric question names, read from a made-up release's statement columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from archivist.agent.research.metric_answer import asked_period
from archivist.filings.metrics import StatementFigures
from archivist.index.table_store import TableStore
from archivist.storage.database import Database
from archivist.types import DataTable, DocumentRecord

RECORD = DocumentRecord("rel1", "default", "/tmp/rel1.pdf", "rel1.pdf", "h", 1, 9, 1, 1, "now",
                        company="Harrowgate plc", form="earnings release", fiscal_year=2024,
                        fiscal_quarter=4, fiscal_year_end="03-31")


@pytest.fixture
def statements(tmp_path: Path) -> StatementFigures:
    names = ["line_item", "q2024_03_31", "q2023_03_31", "fy2024", "fy2023", "page"]
    income = DataTable(caption="income_statement", columns=names, labels=names,
                       kinds=["text", *["number"] * 5],
                       rows=[["Net sales", 980, 1010, 3900, 3700, 6],
                             ["Operating income", 120, 95, 410, 380, 6]],
                       unit="millions", page_start=6, page_end=6, name="income_statement")
    database = Database(f"sqlite:///{tmp_path / 'release.sqlite'}")
    TableStore(database).add("default", "rel1", [income])
    figures = StatementFigures.of_document(TableStore(database), "default", "rel1")
    database.close()
    return figures


@pytest.mark.parametrize(("question", "period"), [
    ("What was Harrowgate's operating margin for the quarter ended March 31, 2023?",
     "q2023_03_31"),
    ("What was Harrowgate's operating margin in the three months ended March 31, 2024?",
     "q2024_03_31"),
    ("What was Harrowgate's operating margin in Q4 FY2024?", "q2024_03_31"),
    ("What was Harrowgate's FY2023 operating margin?", 2023),
])
def test_a_quarter_named_by_its_end_date_is_its_column(statements: StatementFigures,
                                                        question: str,
                                                        period: str | int) -> None:
    year = 2023 if "2023" in question else 2024
    assert asked_period(question, year, RECORD, statements) == (period, "")


def test_a_quarter_the_statements_hold_no_column_for_says_so(
        statements: StatementFigures) -> None:
    found, reason = asked_period("What was Harrowgate's operating margin for the quarter ended "
                                 "December 31, 2023?", 2023, RECORD, statements)
    assert found is None
    assert reason == "the statements have no column for the quarter ended December 31, 2023"
