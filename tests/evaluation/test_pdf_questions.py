"""The curated regression set ``bench/data/pdf_questions.jsonl`` checked against the PDFs.

Every answerable item's key facts must be printed on one of its gold pages (read with
PyMuPDF, pages numbered from 1), so a wrong page or a typo in a reference fails here, not
silently in an evaluation. The set must keep its shape: at least 30 items, at least 5 that
the PDFs cannot answer and 5 compound ones, all among the first 20 as well.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.evaluation.qa_metrics import facts_found

REPO = Path(__file__).resolve().parents[2]
DATASET = REPO / "bench" / "data" / "pdf_questions.jsonl"
PDFS = Path(os.environ.get("ARCHIVIST_EVAL_DIR") or REPO.parent / "shared" / "eval") / "pdfs"


def _pdf_dir() -> Path:
    if not PDFS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"evaluation PDFs not found at {PDFS} (set ARCHIVIST_EVAL_DIR)")
        pytest.skip(f"evaluation PDFs not found at {PDFS} (set ARCHIVIST_EVAL_DIR)")
    return PDFS


def test_the_set_has_its_shape() -> None:
    items = load_qa_dataset(DATASET)
    assert len(items) >= 30
    kinds = Counter(i.kind for i in items)
    first = Counter(i.kind for i in items[:20])
    assert kinds["unanswerable"] >= 5 and first["unanswerable"] >= 5
    assert kinds["compound"] >= 5 and first["compound"] >= 5
    for item in items:
        if item.kind == "unanswerable":
            assert item.answerable is False and not item.gold_pages, item.item_id
        else:
            assert item.answerable and item.key_facts and item.gold_pages, item.item_id


def test_every_key_fact_is_on_a_gold_page() -> None:
    pdfs = _pdf_dir()
    texts: dict[str, list[str]] = {}
    for item in load_qa_dataset(DATASET):
        for document, _page in item.gold_pages:
            if document not in texts:
                with pymupdf.open(pdfs / document) as doc:
                    texts[document] = [page.get_text() for page in doc]
        pages = [texts[d][p - 1] for d, p in item.gold_pages]
        for fact in item.key_facts:
            assert any(facts_found(page, [fact]) for page in pages), (item.item_id, fact)
