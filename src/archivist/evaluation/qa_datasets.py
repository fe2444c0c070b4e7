"""Question-answering datasets for ``archivist eval answers``, in three common shapes.

* **Curated** items (a JSON list or JSONL): ``{question, reference, context_phrases,
  source}``; ``reference`` may be a string or a list, ``source`` a document name or a list.
  Optional: ``pages`` (gold pages of the single ``source``, numbered from 1), ``key_facts``
  (strings that a correct answer must all contain; ``"a|b"`` accepts either) and
  ``answerable`` (``false``: the documents do not hold the answer, so the right reply is an
  abstention).
* **BEIR folder** whose ``queries.jsonl`` carries answers (HotpotQA: ``answers`` at the top
  level; ``metadata.answer(s)`` also works). The qrels give the supporting passages (gold
  documents, named by corpus ``_id``).
* **FinanceBench** items (JSON list or JSONL): ``{financebench_id, question, answer,
  evidence: [{doc_name, evidence_page_num, evidence_text}]}``. FinanceBench numbers pages
  from 0; Archivist from 1, so a gold page is ``evidence_page_num + 1``. ``doc_name`` has no
  extension (``3M_2018_10K``) and matches a catalog name by its stem. A top-level
  ``doc_name`` (and ``evidence_page_num``) stands for items without an ``evidence`` list.

A labels file (JSONL, one ``{financebench_id | id, numeric, unit, key_facts}`` a line)
adds hand-written scoring data by item id: ``numeric`` (the gold figure, scored within 1%)
and its ``unit``, or ``key_facts``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archivist.evaluation.beir import DatasetError, load_beir

__all__ = ["QAItem", "apply_labels", "load_qa_dataset"]


@dataclass
class QAItem:
    """One question with whatever gold data its dataset has (empty lists: not scored)."""

    item_id: str
    question: str
    references: list[str] = field(default_factory=list)
    context_phrases: list[str] = field(default_factory=list)
    gold_documents: list[str] = field(default_factory=list)
    gold_pages: list[tuple[str, int]] = field(default_factory=list)
    evidence_texts: list[str] = field(default_factory=list)
    supporting_passages: bool = False  # gold documents are BEIR passages (HotpotQA)
    key_facts: list[str] = field(default_factory=list)
    answerable: bool | None = None  # None: the dataset does not say
    kind: str = ""  # free label for grouping results ("simple", "compound", ...)
    numeric: float | None = None  # the gold figure of a numeric answer (scored within 1%)
    unit: str = ""  # its unit ("USD millions", "%")


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None and str(v) != ""]
    return [str(value)]


def _read_items(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    rows: Any
    if path.suffix.lower() == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
        rows = data.get("items", data.get("data")) if isinstance(data, dict) else data
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise DatasetError(f"{path}: expected a list of question objects")
    return rows


def _item(row: dict[str, Any], index: int, path: Path) -> QAItem:
    question = str(row.get("question") or row.get("query") or "").strip()
    if not question:
        raise DatasetError(f"{path}: item {index + 1} has no 'question'")
    item_id = str(row.get("id") or row.get("financebench_id") or row.get("_id") or index)
    evidence = row.get("evidence")
    if isinstance(evidence, list) and evidence and isinstance(evidence[0], dict):
        pages: list[tuple[str, int]] = []
        docs: list[str] = []
        texts: list[str] = []
        for ev in evidence:
            doc = str(ev.get("doc_name") or row.get("doc_name") or "")
            if doc and doc not in docs:
                docs.append(doc)
            if doc and isinstance(ev.get("evidence_page_num"), int):
                pages.append((doc, int(ev["evidence_page_num"]) + 1))
            if ev.get("evidence_text"):
                texts.append(str(ev["evidence_text"]))
        return QAItem(item_id, question, _as_list(row.get("answer")), [], docs, pages, texts)
    if row.get("doc_name") and "source" not in row:  # FinanceBench without an evidence list
        doc = str(row["doc_name"])
        page = row.get("evidence_page_num")
        return QAItem(item_id, question, _as_list(row.get("answer")), [], [doc],
                      [(doc, page + 1)] if isinstance(page, int) else [])
    references = _as_list(row.get("reference", row.get("answer", row.get("answers"))))
    sources = _as_list(row.get("source", row.get("sources")))
    return QAItem(
        item_id,
        question,
        references,
        _as_list(row.get("context_phrases")),
        sources,
        gold_pages=_gold_pages(row, sources, index, path),
        key_facts=_as_list(row.get("key_facts")),
        answerable=_answerable(row, index, path),
        kind=str(row.get("kind") or ""),
    )


def _gold_pages(row: dict[str, Any], sources: list[str], index: int,
                path: Path) -> list[tuple[str, int]]:
    pages = row.get("pages")
    if pages is None:
        return []
    if len(sources) != 1 or not isinstance(pages, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in pages
    ):
        raise DatasetError(
            f"{path}: item {index + 1}: 'pages' must be a list of page numbers (from 1) "
            "of exactly one 'source'"
        )
    return [(sources[0], page) for page in pages]


def _answerable(row: dict[str, Any], index: int, path: Path) -> bool | None:
    value = row.get("answerable")
    if value is None or isinstance(value, bool):
        return value
    raise DatasetError(f"{path}: item {index + 1}: 'answerable' must be true or false")


def apply_labels(items: list[QAItem], path: Path | str) -> None:
    """Set each item's ``numeric``, ``unit`` and ``key_facts`` from a labels file by id.

    Raises ``DatasetError`` for a label of no item, a bad number or a missing id.
    """
    source = Path(path)
    if not source.is_file():
        raise DatasetError(f"missing file: {source}")
    by_id = {item.item_id: item for item in items}
    for number, row in enumerate(_read_items(source), start=1):
        item_id = str(row.get("financebench_id") or row.get("id") or "")
        if item_id not in by_id:
            raise DatasetError(f"{source}:{number}: label for unknown item '{item_id}'")
        item = by_id[item_id]
        value = row.get("numeric")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise DatasetError(f"{source}:{number}: 'numeric' must be a number or null")
        item.numeric = None if value is None else float(value)
        item.unit = str(row.get("unit") or "")
        item.key_facts = _as_list(row.get("key_facts")) or item.key_facts
        item.answerable = True if item.answerable is None else item.answerable


def load_qa_dataset(path: Path | str, labels: Path | str | None = None) -> list[QAItem]:
    """Load a curated, BEIR or FinanceBench dataset, with a labels file if given.

    Raises ``DatasetError`` on bad input.
    """
    source = Path(path)
    if source.is_dir():
        beir = load_beir(source)
        items = []
        for query in beir.queries.values():
            gold = sorted(d for d, g in beir.qrels.get(query.query_id, {}).items() if g > 0)
            # a question with a short answer (HotpotQA) is answerable from its corpus, and
            # is correct when the answer states the reference (either one, if several)
            answers = [a for a in query.answers if a.strip()]
            items.append(
                QAItem(
                    query.query_id, query.text, query.answers, [], gold, supporting_passages=True,
                    key_facts=["|".join(answers)] if answers else [],
                    answerable=True if answers else None,
                )
            )
        return items
    if not source.is_file():
        raise DatasetError(f"missing file: {source}")
    items = [_item(row, i, source) for i, row in enumerate(_read_items(source))]
    seen: set[str] = set()
    for item in items:
        if item.item_id in seen:
            raise DatasetError(f"{source}: duplicate item id '{item.item_id}'")
        seen.add(item.item_id)
    if labels is not None:
        apply_labels(items, labels)
    return items
