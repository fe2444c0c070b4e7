"""The entity graph (search mode ``graph``): phrases <-> children, ranked by personalized PageRank.

Storage: three tables of the library's database. Each child links to the phrase keys that
spaCy found in it (``index/phrases.py``); two phrases are linked through every child they
share, so the stored child-phrase links are the whole graph. Rows are kept per document
id: a new document adds its rows, a removed or replaced one has its rows deleted, and
nothing else is rebuilt (the in-memory matrix of a collection is rebuilt lazily from
the database, which takes milliseconds, after its rows changed).

At query time the question's phrases (its entities and noun chunks, plus every span of
the question that is itself a stored phrase) seed a personalized PageRank on the
bipartite phrase-child graph, each seed weighted by its specificity (1 / the number of
children it appears in), as in HippoRAG. The children's PageRank mass is their score.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, delete, func, select

from archivist.index.phrases import phrase_key
from archivist.storage import Database
from archivist.storage.schema import graph_documents, graph_links, graph_phrases

DAMPING = 0.5
"""Share of PageRank mass that walks on each step (HippoRAG's 0.5); the rest restarts."""
ITERATIONS = 30
MAX_SPAN_WORDS = 6
_COUNTER = "graph"

_QUESTION_WORDS = {
    "which", "what", "who", "whom", "whose", "where", "when", "why", "how", "the", "a", "an",
    "is", "are", "was", "were", "did", "does", "do", "in", "of", "for", "from", "at", "on",
    "this", "that", "these", "those", "both", "name", "i",
}  # fmt: skip

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
    """Phrase-child links of every collection, in the library's database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self._lock = threading.RLock()
        self._cache: dict[str, _Matrix] = {}
        self._version = -1  # the graph counter the cache was built at (any worker writes)

    def close(self) -> None:
        """Nothing to release: the database is the application's."""

    # --- writes --------------------------------------------------------------------------
    def documents(self, collection: str) -> set[str]:
        """Document ids that have their phrases in the graph."""
        with self.database.reading() as conn:
            rows = conn.execute(select(graph_documents.c.document_id)
                                .where(graph_documents.c.collection == collection))
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
            with self.database.transaction() as conn:
                self._delete(conn, collection, document_id)
                keys = sorted({k for _, ks in child_phrases for k in ks})
                if keys:
                    conn.execute(self.database.insert_ignore(graph_phrases),
                                 [{"collection": collection, "key": k} for k in keys])
                ids = self._phrase_ids(conn, collection, keys)
                links = [
                    {"collection": collection, "document_id": document_id,
                     "child_id": child_id, "phrase_id": ids[k]}
                    for child_id, ks in child_phrases
                    for k in dict.fromkeys(ks)
                ]
                if links:
                    conn.execute(graph_links.insert(), links)
                conn.execute(graph_documents.insert().values(
                    collection=collection, document_id=document_id, extractor=extractor))
                self.database.bump(conn, _COUNTER)
            self._cache.pop(collection, None)

    def delete_document(self, collection: str, document_id: str) -> None:
        """Drop a document's links (its phrases stay as nodes; unlinked ones are inert)."""
        with self._lock:
            with self.database.transaction() as conn:
                self._delete(conn, collection, document_id)
                self.database.bump(conn, _COUNTER)
            self._cache.pop(collection, None)

    @staticmethod
    def _delete(conn: Connection, collection: str, document_id: str) -> None:
        for table in (graph_links, graph_documents):
            conn.execute(delete(table).where(table.c.collection == collection,
                                             table.c.document_id == document_id))

    @staticmethod
    def _phrase_ids(conn: Connection, collection: str, keys: Sequence[str]) -> dict[str, int]:
        ids: dict[str, int] = {}
        for start in range(0, len(keys), 500):
            rows = conn.execute(select(graph_phrases.c.key, graph_phrases.c.phrase_id).where(
                graph_phrases.c.collection == collection,
                graph_phrases.c.key.in_(keys[start : start + 500])))
            ids.update({k: int(i) for k, i in rows})
        return ids

    def stats(self, collection: str) -> dict[str, int]:
        """Documents, linked phrases and links of a collection."""
        with self.database.reading() as conn:
            docs, phrases, links = conn.execute(select(
                func.count(graph_links.c.document_id.distinct()),
                func.count(graph_links.c.phrase_id.distinct()), func.count())
                .where(graph_links.c.collection == collection)).one()
        return {"documents": docs, "phrases": phrases, "links": links}

    # --- queries -------------------------------------------------------------------------
    def _matrix(self, collection: str) -> _Matrix:
        with self._lock:
            version = self.database.counter(_COUNTER)
            if version != self._version:  # written since, here or by another worker
                self._cache.clear()
                self._version = version
            cached = self._cache.get(collection)
            if cached is not None:
                return cached
            from scipy.sparse import csr_matrix

            joined = graph_links.join(
                graph_phrases, graph_phrases.c.phrase_id == graph_links.c.phrase_id)
            with self.database.reading() as conn:
                rows = conn.execute(
                    select(graph_links.c.child_id, graph_links.c.document_id,
                           graph_phrases.c.key).select_from(joined)
                    .where(graph_links.c.collection == collection)).all()
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
