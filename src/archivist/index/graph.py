"""The entity graph (search mode ``graph``): phrases <-> children, ranked by personalized PageRank.

Storage: ``graph.sqlite`` in the data directory. Each child links to the phrase keys that
spaCy found in it (``index/phrases.py``); two phrases are linked through every child they
share, so the stored child-phrase links are the whole graph. Rows are kept per document
id: a new document adds its rows, a removed or replaced one has its rows deleted, and
nothing else is rebuilt (the in-memory matrix of a collection is rebuilt lazily from
SQLite, which takes milliseconds, after its rows changed).

At query time the question's phrases (its entities and noun chunks, plus every span of
the question that is itself a stored phrase) seed a personalized PageRank on the
bipartite phrase-child graph, each seed weighted by its specificity (1 / the number of
children it appears in), as in HippoRAG. The children's PageRank mass is their score.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from archivist.index.phrases import phrase_key

DAMPING = 0.5
"""Share of PageRank mass that walks on each step (HippoRAG's 0.5); the rest restarts."""
ITERATIONS = 30
MAX_SPAN_WORDS = 6

_QUESTION_WORDS = {
    "which", "what", "who", "whom", "whose", "where", "when", "why", "how", "the", "a", "an",
    "is", "are", "was", "were", "did", "does", "do", "in", "of", "for", "from", "at", "on",
    "this", "that", "these", "those", "both", "name", "i",
}  # fmt: skip

_SCHEMA = """
CREATE TABLE IF NOT EXISTS graph_documents (
    collection TEXT NOT NULL, document_id TEXT NOT NULL, extractor TEXT NOT NULL,
    PRIMARY KEY (collection, document_id));
CREATE TABLE IF NOT EXISTS graph_phrases (
    phrase_id INTEGER PRIMARY KEY AUTOINCREMENT,
    collection TEXT NOT NULL, key TEXT NOT NULL, UNIQUE (collection, key));
CREATE TABLE IF NOT EXISTS graph_links (
    collection TEXT NOT NULL, document_id TEXT NOT NULL, child_id TEXT NOT NULL,
    phrase_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS graph_links_doc ON graph_links (collection, document_id);
"""


@dataclass
class _Matrix:
    """A collection's graph in memory: children x phrases incidence (CSR)."""

    children: list[str]
    child_index: dict[str, int]
    documents: list[str]
    keys: dict[str, int]
    incidence: Any  # scipy.sparse.csr_matrix, children x phrases
    child_degree: np.ndarray
    phrase_degree: np.ndarray


class EntityGraph:
    """Phrase-child links of every collection in one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.RLock()
        self._cache: dict[str, _Matrix] = {}

    def close(self) -> None:
        """Close the SQLite connection."""
        self._db.close()

    # --- writes --------------------------------------------------------------------------
    def documents(self, collection: str) -> set[str]:
        """Document ids that have their phrases in the graph."""
        rows = self._db.execute(
            "SELECT document_id FROM graph_documents WHERE collection = ?", (collection,)
        )
        return {r[0] for r in rows}

    def add_document(
        self,
        collection: str,
        document_id: str,
        child_phrases: Sequence[tuple[str, Sequence[str]]],
        extractor: str,
    ) -> None:
        """Store one document's ``(child_id, phrase keys)`` links (replacing earlier ones)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._delete(collection, document_id)
                keys = sorted({k for _, ks in child_phrases for k in ks})
                self._db.executemany(
                    "INSERT OR IGNORE INTO graph_phrases (collection, key) VALUES (?, ?)",
                    [(collection, k) for k in keys],
                )
                ids = self._phrase_ids(collection, keys)
                self._db.executemany(
                    "INSERT INTO graph_links (collection, document_id, child_id, phrase_id) "
                    "VALUES (?, ?, ?, ?)",
                    [
                        (collection, document_id, child_id, ids[k])
                        for child_id, ks in child_phrases
                        for k in dict.fromkeys(ks)
                    ],
                )
                self._db.execute(
                    "INSERT INTO graph_documents (collection, document_id, extractor) "
                    "VALUES (?, ?, ?)",
                    (collection, document_id, extractor),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._cache.pop(collection, None)

    def delete_document(self, collection: str, document_id: str) -> None:
        """Drop a document's links (its phrases stay as nodes; unlinked ones are inert)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._delete(collection, document_id)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._cache.pop(collection, None)

    def _delete(self, collection: str, document_id: str) -> None:
        for table in ("graph_links", "graph_documents"):
            self._db.execute(
                f"DELETE FROM {table} WHERE collection = ? AND document_id = ?",  # noqa: S608
                (collection, document_id),
            )

    def _phrase_ids(self, collection: str, keys: Sequence[str]) -> dict[str, int]:
        ids: dict[str, int] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT key, phrase_id FROM graph_phrases "  # noqa: S608
                f"WHERE collection = ? AND key IN ({marks})",
                (collection, *part),
            )
            ids.update({k: i for k, i in rows})
        return ids

    def stats(self, collection: str) -> dict[str, int]:
        """Documents, linked phrases and links of a collection."""
        docs, phrases, links = self._db.execute(
            "SELECT COUNT(DISTINCT document_id), COUNT(DISTINCT phrase_id), COUNT(*) "
            "FROM graph_links WHERE collection = ?",
            (collection,),
        ).fetchone()
        return {"documents": docs, "phrases": phrases, "links": links}

    # --- queries -------------------------------------------------------------------------
    def _matrix(self, collection: str) -> _Matrix:
        with self._lock:
            cached = self._cache.get(collection)
            if cached is not None:
                return cached
            from scipy.sparse import csr_matrix

            rows = self._db.execute(
                "SELECT l.child_id, l.document_id, p.key FROM graph_links l "
                "JOIN graph_phrases p ON p.phrase_id = l.phrase_id WHERE l.collection = ?",
                (collection,),
            ).fetchall()
            child_index: dict[str, int] = {}
            documents: list[str] = []
            keys: dict[str, int] = {}
            r_idx, c_idx = [], []
            for child_id, document_id, key in rows:
                if child_id not in child_index:
                    child_index[child_id] = len(child_index)
                    documents.append(document_id)
                r_idx.append(child_index[child_id])
                c_idx.append(keys.setdefault(key, len(keys)))
            shape = (len(child_index), len(keys))
            incidence = csr_matrix(
                (np.ones(len(r_idx), dtype=np.float64), (r_idx, c_idx)), shape=shape
            )
            incidence.data[:] = 1.0  # duplicate links count once
            matrix = _Matrix(
                children=list(child_index),
                child_index=child_index,
                documents=documents,
                keys=keys,
                incidence=incidence,
                child_degree=np.asarray(incidence.sum(axis=1)).ravel(),
                phrase_degree=np.asarray(incidence.sum(axis=0)).ravel(),
            )
            self._cache[collection] = matrix
            return matrix

    def seeds(self, collection: str, question: str, names: Iterable[str]) -> dict[str, float]:
        """Graph phrases the question names, each with its specificity weight.

        ``names`` are the question's entities; any span of the question that starts with a
        capital letter and is itself a graph phrase counts too (a name the extractor
        missed in the question but found in the documents).
        """
        matrix = self._matrix(collection)
        found: set[str] = {k for k in (phrase_key(p) for p in names) if k in matrix.keys}
        words = [w.strip("?!.,;:\"'()") for w in question.split()]
        for size in range(1, MAX_SPAN_WORDS + 1):
            for start in range(0, len(words) - size + 1):
                first = words[start]
                if not first[:1].isupper() or first.lower() in _QUESTION_WORDS:
                    continue
                key = phrase_key(" ".join(words[start : start + size]))
                if key in matrix.keys:
                    found.add(key)
        return {key: 1.0 / max(1.0, float(matrix.phrase_degree[matrix.keys[key]])) for key in found}

    def rank(
        self,
        collection: str,
        seeds: dict[str, float],
        allowed_documents: set[str] | None,
        limit: int,
        passage_seeds: dict[str, float] | None = None,
    ) -> list[tuple[str, float]]:
        """``(child_id, PageRank mass)`` of the ``limit`` best children, best first.

        ``seeds`` restart the walk at phrases; ``passage_seeds`` (child id -> weight) at
        children, as HippoRAG 2 seeds the passages that dense retrieval found.
        """
        matrix = self._matrix(collection)
        if not matrix.children or not (seeds or passage_seeds):
            return []
        restart_p = np.zeros(len(matrix.keys))
        for key, weight in seeds.items():
            restart_p[matrix.keys[key]] = weight
        restart_c = np.zeros(len(matrix.children))
        for child_id, weight in (passage_seeds or {}).items():
            index = matrix.child_index.get(child_id)
            if index is not None:
                restart_c[index] = weight
        total = restart_p.sum() + restart_c.sum()
        if total <= 0:
            return []
        restart_p /= total
        restart_c /= total
        phrase_out = 1.0 / np.maximum(matrix.phrase_degree, 1.0)
        child_out = 1.0 / np.maximum(matrix.child_degree, 1.0)
        phrases = restart_p.copy()
        children = restart_c.copy()
        for _ in range(ITERATIONS):
            walked_c = matrix.incidence @ (phrases * phrase_out)
            walked_p = matrix.incidence.T @ (children * child_out)
            children = (1 - DAMPING) * restart_c + DAMPING * walked_c
            phrases = (1 - DAMPING) * restart_p + DAMPING * walked_p
        order = np.argsort(-children)
        out: list[tuple[str, float]] = []
        for index in order:
            if children[index] <= 0:
                break
            if allowed_documents is not None and matrix.documents[index] not in allowed_documents:
                continue
            out.append((matrix.children[index], float(children[index])))
            if len(out) >= limit:
                break
        return out
