"""The table question set: well formed, and its spreadsheet answers are what SQL computes."""

from __future__ import annotations

from pathlib import Path

from archivist.documents.loaders import load_file
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.evaluation.qa_metrics import facts_found
from archivist.index.table_sql import run_select
from archivist.index.table_store import TableStore
from archivist.storage.database import Database

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def test_every_question_has_an_answer_and_every_pdf_question_a_gold_page() -> None:
    items = load_qa_dataset(DATA / "table_questions.jsonl")
    assert len(items) >= 30
    assert {i.kind for i in items} >= {"lookup", "difference", "sum", "ranking", "count",
                                       "comparison"}
    for item in items:
        assert item.key_facts and item.answerable, item.item_id
        assert item.gold_pages or item.gold_documents[0].endswith((".csv", ".xlsx"))


def test_the_spreadsheet_answers_are_what_sql_over_the_loaded_sheets_gives(
    tmp_path: Path,
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'archivist.sqlite'}")
    store = TableStore(database)
    for name in ("netflix_segments.csv", "amcor_results.xlsx"):
        store.add("eval", name, load_file(DATA / "tables" / name).tables)
    tables = store.tables("eval", {"netflix_segments.csv", "amcor_results.xlsx"})
    facts = {i.item_id: i.key_facts for i in load_qa_dataset(DATA / "table_questions.jsonl")}
    queries = {
        "sheet-nflx-rev-2017": "SELECT sum(revenues) FROM netflix_segments WHERE year = 2017",
        "sheet-nflx-negative-cp":
            "SELECT count(*) FROM netflix_segments WHERE contribution_profit < 0",
        "sheet-nflx-dvd-rev-sum":
            "SELECT sum(revenues) FROM netflix_segments WHERE segment = 'Domestic DVD'",
        "sheet-amcor-rnd-change": "SELECT abs(y2023) - abs(y2022) FROM income_statement "
                                  "WHERE line_item LIKE 'Research%'",
        "sheet-amcor-q4-sales-sum": "SELECT q4_fy2022 + q4_fy2023 FROM income_statement "
                                    "WHERE line_item = 'Net sales'",
        "sheet-amcor-ebit-fy22": "SELECT sum(adjusted_ebit_fy2022) FROM segments",
    }
    rows = store.rows("eval", [t.table_id for t in tables])
    for item_id, sql in queries.items():
        (value,) = run_select(tables, rows, sql).rows[0]
        assert facts_found(f"{value:,}", facts[item_id]) == 1.0, (item_id, value)
    database.close()


def test_every_figure_an_answer_is_computed_from_is_printed_on_its_gold_pages() -> None:
    import json

    import pymupdf
    from tests.eval_data import require_eval

    pdfs = require_eval() / "pdfs"
    checked = 0
    for line in (DATA / "table_questions.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if "pages" not in item:
            continue
        with pymupdf.open(pdfs / item["source"]) as doc:
            text = " ".join(" ".join(doc[p - 1].get_text().split()) for p in item["pages"])
        for figure in item["inputs"]:
            assert figure in text, (item["id"], figure)
            checked += 1
    assert checked >= 50
