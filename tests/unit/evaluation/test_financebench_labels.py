"""FinanceBench-shaped items with a labels file, and numeric answers scored within 1%."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archivist.evaluation.answers import score_item
from archivist.evaluation.beir import DatasetError
from archivist.evaluation.numeric import numeric_match, scale_of
from archivist.evaluation.qa_datasets import load_qa_dataset

ROWS = [
    {"financebench_id": "fb_1", "question": "What was Quillfeather's FY2022 revenue in USD "
     "millions?", "answer": "$5,200 million", "doc_name": "QUILLFEATHER_2022_10K",
     "evidence": [{"doc_name": "QUILLFEATHER_2022_10K", "evidence_page_num": 41,
                   "evidence_text": "Net revenues 5,200"}]},
    {"financebench_id": "fb_2", "question": "Is Harborline's margin improving?",
     "answer": "Yes, it improved on lower freight costs.", "doc_name": "HARBORLINE_2023Q1_10Q",
     "evidence_page_num": 3},
]
LABELS = [
    {"financebench_id": "fb_1", "numeric": 5200, "unit": "USD millions", "key_facts": []},
    {"financebench_id": "fb_2", "numeric": None, "unit": None,
     "key_facts": ["improv|better", "freight"]},
]


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_items_take_their_figures_and_key_facts_from_the_labels(tmp_path: Path) -> None:
    items = load_qa_dataset(_write(tmp_path / "questions.jsonl", ROWS),
                            _write(tmp_path / "labels.jsonl", LABELS))
    first, second = items
    assert (first.numeric, first.unit, first.answerable) == (5200.0, "USD millions", True)
    assert first.gold_pages == [("QUILLFEATHER_2022_10K", 42)]  # pages counted from 0
    assert second.gold_documents == ["HARBORLINE_2023Q1_10Q"]
    assert second.gold_pages == [("HARBORLINE_2023Q1_10Q", 4)]
    assert second.numeric is None and second.key_facts == ["improv|better", "freight"]
    right = score_item(first, "Revenue was $5.21 billion [1].", [], [])
    wrong = score_item(first, "Revenue was $5,400 million [1].", [], [])
    assert (right["correct"], wrong["correct"]) == (1.0, 0.0)
    assert score_item(first, "The documents do not contain 5,200.", [], [])["correct"] == 0.0
    assert score_item(second, "It is better, as freight costs fell.", [], [])["correct"] == 1.0


def test_a_bad_labels_file_names_the_line_and_reason(tmp_path: Path) -> None:
    questions = _write(tmp_path / "questions.jsonl", ROWS)
    with pytest.raises(DatasetError, match=r"labels.jsonl:1: label for unknown item 'fb_9'"):
        load_qa_dataset(questions, _write(tmp_path / "labels.jsonl", [{"financebench_id":
                                                                        "fb_9"}]))
    with pytest.raises(DatasetError, match="'numeric' must be a number"):
        load_qa_dataset(questions, _write(tmp_path / "labels.jsonl", [
            {"financebench_id": "fb_1", "numeric": "lots"}]))
    with pytest.raises(DatasetError, match="missing file"):
        load_qa_dataset(questions, tmp_path / "absent.jsonl")


def test_numbers_are_matched_within_one_percent_at_their_scale() -> None:
    assert numeric_match("DPO is 57.69 days.", 57.7) == 1.0
    assert numeric_match("DPO is 59.0 days.", 57.7) == 0.0
    assert numeric_match("Net loss of (238) million", -238, "USD millions") == 1.0
    assert numeric_match("about $1.05 billion", 1048, "USD millions") == 1.0
    assert numeric_match("about $1.05 million", 1048, "USD millions") == 0.0
    assert numeric_match("18.5%", 18.54, "%") == 1.0
    assert scale_of("USD thousands") == 1e3 and scale_of("%") == 1.0
