r"""Read a BEIR folder and ingest its corpus into a dedicated collection.

A BEIR folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``
(``_id``, ``text``, optionally ``answers`` at the top level or under ``metadata``) and
``qrels/<split>.tsv`` (a header line, then ``query-id  corpus-id  score``).

Each corpus document becomes the Markdown ``# {title}\\n\\n{text}`` (just ``text`` when the
title is empty) ingested under its ``_id`` as catalog name, so every search hit carries
the BEIR id as ``hit.document_name``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archivist.collection_names import collection_name_from
from archivist.types import ArchivistError, IngestReport

if TYPE_CHECKING:
    from archivist.application import Application
    from archivist.ingest_progress import ProgressCallback

__all__ = [
    "BeirDataset",
    "BeirQuery",
    "DatasetError",
    "collection_for",
    "corpus_markdown",
    "ingest_corpus",
    "load_beir",
]


class DatasetError(ArchivistError):
    """An evaluation dataset is missing a file or holds a malformed line (bad input)."""


@dataclass
class BeirQuery:
    """One query, with gold answers when the dataset has them (HotpotQA does)."""

    query_id: str
    text: str
    answers: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class BeirDataset:
    """A BEIR folder in memory. ``qrels[query_id][doc_id] = graded relevance``."""

    name: str
    path: Path
    corpus: dict[str, tuple[str, str]]
    queries: dict[str, BeirQuery]
    qrels: dict[str, dict[str, int]]

    def judged_queries(self) -> list[BeirQuery]:
        """Queries that have at least one qrels line, in ``queries.jsonl`` order."""
        return [q for qid, q in self.queries.items() if qid in self.qrels]


def _require(path: Path) -> Path:
    if not path.is_file():
        raise DatasetError(f"missing file: {path}")
    return path


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with _require(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict) or "_id" not in row:
                raise DatasetError(f"{path}:{number}: expected an object with an '_id'")
            yield number, row


def _answers(row: dict[str, Any]) -> list[str]:
    metadata = row.get("metadata") or {}
    raw = row.get("answers", metadata.get("answers", metadata.get("answer", [])))
    if isinstance(raw, str):
        return [raw]
    return [str(a) for a in raw or []]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """``qrels[query_id][doc_id] = score`` from a BEIR TSV (the header line is skipped)."""
    qrels: dict[str, dict[str, int]] = {}
    with _require(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t")
            if number == 1 and parts[0] in ("query-id", "query_id", "qid"):
                continue
            if not line.strip():
                continue
            if len(parts) < 3:
                raise DatasetError(f"{path}:{number}: expected 'query-id corpus-id score'")
            try:
                score = int(float(parts[2]))
            except ValueError as exc:
                raise DatasetError(f"{path}:{number}: score '{parts[2]}' is not a number") from exc
            qrels.setdefault(parts[0], {})[parts[1]] = score
    return qrels


def load_beir(folder: Path | str, split: str = "test") -> BeirDataset:
    """Load corpus, queries and ``qrels/<split>.tsv``; raises ``DatasetError`` on bad input."""
    root = Path(folder)
    if not root.is_dir():
        raise DatasetError(f"not a BEIR folder: {root}")
    qrels_path = _require(root / "qrels" / f"{split}.tsv")
    corpus = {
        str(row["_id"]): (str(row.get("title") or ""), str(row.get("text") or ""))
        for _, row in _jsonl(root / "corpus.jsonl")
    }
    queries = {
        str(row["_id"]): BeirQuery(
            str(row["_id"]),
            str(row.get("text") or ""),
            _answers(row),
            {k: v for k, v in row.items() if k not in ("_id", "text", "answers")},
        )
        for _, row in _jsonl(root / "queries.jsonl")
    }
    return BeirDataset(root.name, root, corpus, queries, read_qrels(qrels_path))


def corpus_markdown(title: str, text: str) -> str:
    """A corpus document as Markdown: the title as an H1 heading, then the text."""
    title = " ".join(title.split())
    return f"# {title}\n\n{text}" if title else text


def collection_for(dataset: BeirDataset) -> str:
    """The dedicated collection name for a dataset, e.g. ``beir_scifact``."""
    return collection_name_from(dataset.name, prefix="beir_")


def ingest_corpus(
    app: Application,
    dataset: BeirDataset,
    collection: str | None = None,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Ingest the corpus (unchanged documents are skipped, so a rebuilt index is reused)."""
    items = [(doc_id, corpus_markdown(t, x)) for doc_id, (t, x) in dataset.corpus.items()]
    return app.ingest.texts(
        items, collection=collection or collection_for(dataset), progress=progress
    )
