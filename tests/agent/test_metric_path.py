"""A filing's metric computed in code end to end: real PDF, library and SQL, model scripted.

The filing is made up (Tallowmere Outfitters, fiscal 2023 ended May 31) and has no
accounts receivable line, so a DSO cannot be computed from it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from tests.agent.helpers import done, run, source_names, steps
from tests.filings.fake_filings import cover_lines, make_filing
from typer.testing import CliRunner

from archivist.agent.service import AgentService
from archivist.app.cli.main import app as cli_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

INCOME = [("Net sales", "8,640", "7,910"), ("Cost of sales", "5,372", "4,987"),
          ("Gross profit", "3,268", "2,923"),
          ("Selling, general and administrative", "1,905", "1,742"),
          ("Operating income", "1,363", "1,181"), ("Interest expense", "(64)", "(58)"),
          ("Income before income taxes", "1,299", "1,123"),
          ("Provision for income taxes", "286", "247"), ("Net income", "1,013", "876")]
BALANCE = [("Cash and cash equivalents", "415", "380"), ("Inventories", "1,134", "1,046"),
           ("Prepaid expenses", "522", "498"), ("Total current assets", "2,071", "1,924"),
           ("Property and equipment, net", "1,688", "1,590"), ("Total assets", "3,759", "3,514"),
           ("Accounts payable", "733", "689"), ("Accrued liabilities", "312", "295"),
           ("Total current liabilities", "1,045", "984"), ("Long-term debt", "900", "950"),
           ("Total liabilities", "1,945", "1,934"),
           ("Total stockholders' equity", "1,814", "1,580")]
CASH = [("Net income", "1,013", "876"), ("Depreciation and amortization", "241", "226"),
        ("Inventories", "(88)", "(61)"),
        ("Net cash provided by operating activities", "1,190", "1,050"),
        ("Purchases of property and equipment", "(339)", "(310)"),
        ("Net cash used in investing activities", "(339)", "(310)")]
DPO_QUESTION = (
    "What was Tallowmere Outfitters' FY2023 days payable outstanding? DPO is defined as: "
    "365 * (average accounts payable between FY2022 and FY2023) / (FY2023 COGS + change in "
    "inventory between FY2022 and FY2023). Round your answer to one decimal place.")
# 365 * ((733 + 689) / 2) / (5,372 + (1,134 - 1,046)) = 47.5302...
WORKED = "365 × (((733 + 689) ÷ 2)) ÷ (5,372 + (1,134 - 1,046))"
AP_SQL = ('SELECT line_item, "d2023_05_31", page FROM "balance_sheet" '
          "WHERE line_item = 'Accounts payable'")
COGS_SQL = ('SELECT line_item, "fy2023", page FROM "income_statement" '
            "WHERE line_item = 'Cost of sales'")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory,
             embedder: SentenceTransformerEmbedder) -> Path:
    """A library of the made-up 10-K, named by number: cover p. 1, income statement p. 2,
    balance sheet p. 3, cash flows p. 4."""
    root = tmp_path_factory.mktemp("metric")
    (root / "docs").mkdir()
    make_filing(root / "docs" / "1.pdf",
                cover_lines("Tallowmere Outfitters, Inc.", "10-K", "May 31, 2023", "TLWM"),
                [("TALLOWMERE OUTFITTERS, INC. CONSOLIDATED STATEMENTS OF OPERATIONS", INCOME,
                  ("2023", "2022")),
                 ("CONSOLIDATED BALANCE SHEETS", BALANCE,
                  ("May 31, 2023", "May 31, 2022")),
                 ("CONSOLIDATED STATEMENTS OF CASH FLOWS", CASH, ("2023", "2022"))])
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as library:
        assert library.ingest.files([root / "docs"]).counts["added"] == 1
        names = {t.name for t in library.store.tables_of()}
        assert {"income_statement", "balance_sheet", "cash_flow_statement"} <= names
    return root / "lib"


@pytest.fixture
def library(data_dir: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    with Application(Settings(data_dir=data_dir), embedder=embedder) as opened:
        yield opened


def _service(library: Application, llm: ScriptedChatModel, policy: str = "capable"
             ) -> AgentService:
    return AgentService(library.searcher, library.settings.with_values(agent={"policy": policy}),
                        llm=llm)


@pytest.mark.parametrize("policy", ["capable", "small"])
def test_a_defined_metric_is_computed_shown_and_cited_to_its_pages(library: Application,
                                                                  policy: str) -> None:
    llm = ScriptedChatModel()
    with closing(_service(library, llm, policy)) as service:
        events = run(service, DPO_QUESTION)
    answer = done(events)["answer"]
    assert "DPO = 365 * (average accounts payable between FY2022 and FY2023)" in answer
    assert f"= {WORKED}\n= 47.5 days" in answer  # one decimal, as asked
    assert "Accounts payable, May 31, 2023: 733 [1.pdf, p. 3]" in answer
    assert "Cost of sales, fiscal 2023: 5,372 [1.pdf, p. 2]" in answer
    (sources,) = [e.data for e in events if e.type == "sources"]
    assert sorted(s["pages"] for s in sources["sources"]) == ["p. 2", "p. 3"]
    assert set(source_names(events)) == {"1.pdf"}
    sql = [s["detail"] for s in steps(events, "sql")]
    assert AP_SQL in sql and COGS_SQL in sql and len(sql) == 5  # AP, COGS, inventory x2
    (metric,) = steps(events, "metric")
    assert metric["detail"].endswith("= 47.5 days")
    assert not steps(events, "search")  # computed before any search
    assert not any("<passage" in call.text or "SQLite SELECT" in call.text
                   for call in llm.calls)  # no model call wrote or computed it


def test_a_missing_line_item_falls_back_with_the_reason(library: Application) -> None:
    with closing(_service(library, ScriptedChatModel())) as service:
        events = run(service, "What was Tallowmere Outfitters' FY2023 days sales outstanding?")
    (fallback,) = steps(events, "metric_fallback")
    assert fallback["detail"] == ("days sales outstanding not computed: no line item for "
                                  "accounts receivable in the balance sheet: answering by "
                                  "the usual path")
    assert not steps(events, "metric")
    assert steps(events, "search")  # the usual path ran
    assert "days sales outstanding =" not in done(events)["answer"]


def test_archivist_ask_prints_the_computation_its_sources_and_the_sql(
    data_dir: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("archivist.index.store.make_embedder", lambda *a, **k: embedder)
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")
    result = CliRunner().invoke(cli_app, ["ask", "What was Tallowmere Outfitters' FY2023 "
                                          "working capital? Answer in USD billions.",
                                          "--verbose", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "working capital = current assets - current liabilities" in out
    assert "= 2,071 - 1,045\n= USD 1.03 billion" in out  # 1,026 millions, 2 decimals
    assert '· sql: SELECT line_item, "d2023_05_31", page FROM "balance_sheet" WHERE ' \
           "line_item = 'Total current assets'" in out
    assert "Sources:" in out and "1.pdf, p. 3" in out.split("Sources:", 1)[1]


def test_a_quarter_the_statements_hold_no_column_for_is_not_answered_by_the_year(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel())) as service:
        events = run(service, "What was Tallowmere Outfitters' gross margin in the second "
                              "quarter of FY2023?")
    (fallback,) = steps(events, "metric_fallback")
    assert fallback["detail"] == ("the statements have no column for Q2 of fiscal 2023: "
                                  "answering by the usual path")
    assert not steps(events, "metric")


def test_a_line_item_and_its_change_are_read_from_the_statements(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        value = run(service, "What was Tallowmere Outfitters' operating income in fiscal 2023?")
        change = run(service, "By how much did Tallowmere Outfitters' net sales grow from "
                              "fiscal 2022 to fiscal 2023?")
    answer = done(value)["answer"]
    assert "read from the 10-K statements: 1,363.00" in answer
    assert "Operating income, fiscal 2023: 1,363 [1.pdf, p. 2]" in answer
    assert not steps(value, "search")  # read before any search
    answer = done(change)["answer"]
    assert "= 8,640 - 7,910\n= 730.00" in answer
    assert "Net sales, fiscal 2022: 7,910 [1.pdf, p. 2]" in answer


def test_three_months_the_statements_hold_no_column_for_are_not_answered_by_the_year(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel())) as service:
        events = run(service, "What were Tallowmere Outfitters' net sales in the three months "
                              "ended May 31, 2023?")
    (fallback,) = steps(events, "metric_fallback")
    assert "no column for the three months ended May 31, 2023" in fallback["detail"]
    assert not steps(events, "metric")


def test_a_margins_change_across_years_is_each_year_computed_then_their_difference(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        events = run(service, "Did Tallowmere Outfitters' operating margin improve from FY2022 "
                              "to FY2023?")
    answer = done(events)["answer"]
    # 1,363 / 8,640 = 15.7755%; 1,181 / 7,910 = 14.9305%
    assert answer.startswith("Yes. Operating margin of Tallowmere Outfitters, Inc. rose from "
                             "14.93% in fiscal 2022 to 15.78% in fiscal 2023, by 0.84 "
                             "percentage points: it improved")
    assert "= 1,181 ÷ 7,910 × 100\n= 14.93%" in answer
    assert "Operating income, fiscal 2023: 1,363 [1.pdf, p. 2]" in answer
    details = [s["detail"] for s in steps(events, "metric")]
    assert len(details) == 3 and details[-1] == (
        "change in operating margin from fiscal 2022 to fiscal 2023 = 15.7755% - 14.9305% = "
        "0.84 percentage points")
    assert not steps(events, "search")


def test_a_change_from_a_year_the_statements_do_not_hold_falls_back_with_the_year(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel())) as service:
        events = run(service, "How did Tallowmere Outfitters' current ratio change from FY2021 "
                              "to FY2022?")
    (fallback,) = steps(events, "metric_fallback")
    assert fallback["detail"] == ("fiscal 2021: current ratio not computed: the balance sheet "
                                  "has no column for fiscal 2021: answering by the usual path")
    assert not steps(events, "metric")


def test_a_line_items_sum_across_years_is_each_year_read_then_added(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        events = run(service, "What was Tallowmere Outfitters' cumulative operating income "
                              "in fiscal 2022 and fiscal 2023?")
        margin = run(service, "What were Tallowmere Outfitters' gross margins in FY2022 and "
                              "FY2023 combined?")
    answer = done(events)["answer"]
    assert answer.startswith("Total operating income of Tallowmere Outfitters, Inc. over "
                             "fiscal 2022 and 2023: 2,544.00 million.")
    assert "Operating income, fiscal 2022: 1,181 [1.pdf, p. 2]" in answer
    details = [s["detail"] for s in steps(events, "metric")]
    assert details[-1] == ("total operating income over fiscal 2022 and 2023 = 1,181 + 1,363 "
                           "= 2,544.00 million")
    assert not steps(events, "search")
    (fallback,) = steps(margin, "metric_fallback")  # a sum of percentages means nothing
    assert fallback["detail"].startswith("a sum of gross margin across years is not computed")
    assert not steps(margin, "metric")


def test_a_yes_no_movement_in_one_year_is_the_change_from_the_year_before(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        margin = run(service, "Did Tallowmere Outfitters' operating margin improve in FY2023?")
        sales = run(service, "Did Tallowmere Outfitters' net sales grow in fiscal 2023?")
    assert done(margin)["answer"].startswith(
        "Yes. Operating margin of Tallowmere Outfitters, Inc. rose from 14.93% in fiscal 2022 "
        "to 15.78% in fiscal 2023")
    answer = done(sales)["answer"]
    assert answer.startswith("Yes. ") and "= 8,640 - 7,910" in answer
    assert "Net sales, fiscal 2022: 7,910 [1.pdf, p. 2]" in answer
    assert not steps(margin, "search") and not steps(sales, "search")


def test_a_line_item_narrowed_to_a_part_is_not_read_as_the_statements_total(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        events = run(service, "What were Tallowmere Outfitters' net sales in Canada in fiscal "
                              "2023?")
    assert not steps(events, "metric")  # the usual path answers it, not the metric path
    assert "read from the 10-K statements" not in done(events)["answer"]


def test_a_metric_in_each_year_listed_is_computed_and_shown_for_each(
    library: Application,
) -> None:
    with closing(_service(library, ScriptedChatModel(), "small")) as service:
        events = run(service, "What were Tallowmere Outfitters' operating margins in FY2022 "
                              "and FY2023?")
    answer = done(events)["answer"]
    # 1,181 / 7,910 = 14.93%; 1,363 / 8,640 = 15.78%
    assert answer.startswith("Operating margin of Tallowmere Outfitters, Inc.: 14.93% in "
                             "fiscal 2022, 15.78% in fiscal 2023.")
    assert "Operating income, fiscal 2022: 1,181 [1.pdf, p. 2]" in answer
    details = [s["detail"] for s in steps(events, "metric")]
    assert details[-1] == "operating margin in fiscal 2022 and 2023 = 14.93%; 15.78%"
    assert not steps(events, "search")

