"""PostgreSQL with pgvector: the same collections and queries as the embedded engine.

Each collection is a table of children with their dense vectors under an HNSW graph, and a
table of their BM25 terms (see :mod:`archivist.index.pgvector_sql`). Hybrid search runs both
searches ``max(prefetch_limit, limit)`` deep and fuses them with the same RRF as the other
engines (:func:`archivist.index.vectors.rrf`). A search restricted to documents is exact
(their rows by the ``document_id`` index, then sorted): the graph would drop hits past its
candidate list.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from archivist.index.pgvector_sql import (
    REGISTRY,
    bm25_search,
    dense_search,
    hit_lists,
    schema,
    tables,
    together,
)
from archivist.index.sparse import SparseVector
from archivist.index.vectors import (
    SEARCH_EF,
    UPSERT_BATCH,
    QueryVectors,
    VectorHit,
    VectorStoreUnreadable,
    child_payload,
    point_id,
    rrf,
)
from archivist.settings import SearchMode
from archivist.types import ArchivistError, Child

#: pgvector's largest ``hnsw.ef_search``.
_MAX_EF = 1000


Tables = tuple[sql.Identifier, sql.Identifier] | None
"""A collection's (children, terms) tables, or ``None`` when it does not exist."""


class VectorDatabaseError(ArchivistError):
    """The PostgreSQL database holding the vectors cannot be reached or used."""


def driver_url(url: str) -> str:
    """``url`` as libpq takes it (SQLAlchemy's ``postgresql+psycopg://`` prefix removed)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme.split('+', 1)[0]}{sep}{rest}"


class PgVectorStore:
    """``VectorStore`` on PostgreSQL with pgvector (a pool of connections, thread-safe)."""

    def __init__(self, url: str, *, max_connections: int = 8) -> None:
        self.opening_notes: list[str] = []
        self._known_tables: dict[str, tuple[sql.Identifier, sql.Identifier]] = {}
        self._graph_ef: weakref.WeakKeyDictionary[psycopg.Connection[Any], int] = (
            weakref.WeakKeyDictionary()
        )
        self._guard = threading.Lock()
        try:
            with psycopg.connect(driver_url(url), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute(REGISTRY)
        except psycopg.Error as exc:
            raise VectorDatabaseError(f"cannot use PostgreSQL for vectors: {exc}") from exc
        self._pool = ConnectionPool(
            driver_url(url), min_size=1, max_size=max_connections, open=True,
            configure=register_vector, kwargs={"autocommit": True},
        )

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[Any]]:
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def _collection(self, collection: str) -> Iterator[tuple[psycopg.Connection[Any], Tables]]:
        """A transaction and the collection's tables, looked up in it (``None``: no collection).

        Looked up every time, not remembered: another worker may drop and rebuild it.
        """
        with self._transaction() as conn:
            found = _lookup(conn, collection)
            yield conn, tables(found[0]) if found else None

    # --- collections ---------------------------------------------------------------------
    def exists(self, collection: str) -> bool:
        """Whether the collection has been created (a search finds out if it was dropped)."""
        return self._known(collection) is not None

    def dense_size(self, collection: str) -> int | None:
        """The dense vector size of an existing collection."""
        with self._pool.connection() as conn:
            found = _lookup(conn, collection)
        return found[1] if found else None

    def ensure(self, collection: str, dimension: int) -> None:
        """Create the collection's tables and indexes if missing (safe from many workers)."""
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('vector_collections'))")
            if _lookup(conn, collection) is not None:
                return
            row = conn.execute(
                "INSERT INTO vector_collections (name, dimension) VALUES (%s, %s) RETURNING id",
                (collection, dimension),
            ).fetchone()
            assert row is not None
            for statement in schema(int(row[0]), dimension):
                conn.execute(statement)

    def drop(self, collection: str) -> None:
        """Delete a whole collection."""
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('vector_collections'))")
            found = _lookup(conn, collection)
            if found is None:
                return
            children, terms = tables(found[0])
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}, {}").format(terms, children))
            conn.execute("DELETE FROM vector_collections WHERE name = %s", (collection,))
        with self._guard:
            self._known_tables.pop(collection, None)

    # --- writes --------------------------------------------------------------------------
    def upsert(
        self,
        collection: str,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int = UPSERT_BATCH,
    ) -> None:
        """Store children with both vectors in one transaction; committed when this returns."""
        with self._collection(collection) as (conn, names):
            if names is None:
                raise VectorStoreUnreadable(f"collection '{collection}' has no vector store yet")
            table, terms = names
            with conn.pipeline():  # the statements go out together, not one round trip each
                self._write(conn, table, terms, children, dense, sparse, document_name, batch)

    @staticmethod
    def _write(
        conn: psycopg.Connection[Any],
        table: sql.Identifier,
        terms: sql.Identifier,
        children: Sequence[Child],
        dense: Sequence[Sequence[float]],
        sparse: Sequence[SparseVector],
        document_name: str,
        batch: int,
    ) -> None:
        """Upsert the children and replace their BM25 terms, ``batch`` at a time."""
        for start in range(0, len(children), batch):
            part = children[start : start + batch]
            ids = [point_id(child.child_id) for child in part]
            conn.execute(
                sql.SQL(
                    "INSERT INTO {} (point_id, document_id, kind, payload, embedding) "
                    "SELECT * FROM unnest(%s::uuid[], %s::text[], %s::text[], %s::jsonb[], "
                    "%s::vector[]) ON CONFLICT (point_id) DO UPDATE SET "
                    "document_id = EXCLUDED.document_id, kind = EXCLUDED.kind, "
                    "payload = EXCLUDED.payload, embedding = EXCLUDED.embedding"
                ).format(table),
                (
                    ids,
                    [child.document_id for child in part],
                    [child.kind for child in part],
                    [Jsonb(child_payload(child, document_name)) for child in part],
                    [np.asarray(vec, dtype=np.float32) for vec in dense[start : start + batch]],
                ),
            )
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE point_id = ANY(%s::uuid[])").format(terms), (ids,)
            )
            rows = [
                (term, pid, weight)
                for pid, vec in zip(ids, sparse[start : start + batch], strict=True)
                for term, weight in zip(vec.indices, vec.values, strict=True)
            ]
            conn.execute(
                sql.SQL(
                    "INSERT INTO {} (term, point_id, weight) "
                    "SELECT * FROM unnest(%s::integer[], %s::uuid[], %s::real[])"
                ).format(terms),
                ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
            )

    def delete_document(self, collection: str, document_id: str) -> None:
        """Delete every child of a document (its terms go with it)."""
        with self._collection(collection) as (conn, names):
            if names is not None:
                conn.execute(
                    sql.SQL("DELETE FROM {} WHERE document_id = %s").format(names[0]),
                    (document_id,),
                )

    def rename_document(self, collection: str, document_id: str, name: str) -> None:
        """Change the document name stored with every child of a document."""
        with self._collection(collection) as (conn, names):
            if names is not None:
                conn.execute(
                    sql.SQL(
                        "UPDATE {} SET payload = jsonb_set(payload, '{{document_name}}', "
                        "to_jsonb(%s::text)) WHERE document_id = %s"
                    ).format(names[0]),
                    (name, document_id),
                )

    # --- reads ---------------------------------------------------------------------------
    def document_ids(self, collection: str) -> set[str]:
        """Every document id that has vectors."""
        with self._collection(collection) as (conn, names):
            if names is None:
                return set()
            rows = conn.execute(sql.SQL("SELECT DISTINCT document_id FROM {}").format(names[0]))
            return {str(row[0]) for row in rows}

    def count(self, collection: str, document_id: str | None = None) -> int:
        """How many children are stored (for one document, or in all)."""
        with self._collection(collection) as (conn, names):
            if names is None:
                return 0
            query = sql.SQL("SELECT count(*) FROM {}").format(names[0])
            if document_id is None:
                row = conn.execute(query).fetchone()
            else:
                where = sql.SQL(" WHERE document_id = %s")
                row = conn.execute(query + where, (document_id,)).fetchone()
        return int(row[0]) if row else 0

    def query(
        self,
        collection: str,
        mode: SearchMode,
        limit: int,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        document_ids: list[str] | None = None,
        prefetch_limit: int = 40,
    ) -> list[VectorHit]:
        """Dense, BM25 or hybrid (RRF over both) search; no threshold on scores."""
        return self.query_many(
            collection, mode, limit, [(dense, sparse)], document_ids, prefetch_limit
        )[0]

    def query_many(
        self,
        collection: str,
        mode: SearchMode,
        limit: int,
        queries: Sequence[QueryVectors],
        document_ids: list[str] | None = None,
        prefetch_limit: int = 40,
    ) -> list[list[VectorHit]]:
        """Several searches of one mode (each one statement, one round trip).

        The collection's tables are remembered; when another worker has dropped them the
        search fails on the missing table, and the collection is looked up again.
        """
        for attempt in range(2):
            names = self._known(collection)
            if names is None:
                return [[] for _ in queries]
            try:
                return self._search(names, mode, limit, queries, document_ids, prefetch_limit)
            except psycopg.errors.UndefinedTable:
                with self._guard:
                    self._known_tables.pop(collection, None)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _known(self, collection: str) -> Tables:
        names = self._known_tables.get(collection)
        if names is None:
            with self._pool.connection() as conn:
                found = _lookup(conn, collection)
            if found is None:
                return None
            names = tables(found[0])
            with self._guard:
                self._known_tables[collection] = names
        return names

    def _search(
        self,
        names: tuple[sql.Identifier, sql.Identifier],
        mode: SearchMode,
        limit: int,
        queries: Sequence[QueryVectors],
        document_ids: list[str] | None,
        prefetch_limit: int,
    ) -> list[list[VectorHit]]:
        """Each search is one statement (dense and BM25 together): one round trip."""
        depth = max(prefetch_limit, limit) if mode == "hybrid" else limit
        out = []
        with self._pool.connection() as conn:
            self._graph_depth(conn, min(_MAX_EF, max(SEARCH_EF, depth)))
            for dense, sparse in queries:
                statements = [
                    dense_search(names[0], dense, depth, document_ids)
                    if mode != "bm25" and dense is not None else None,
                    bm25_search(names, sparse, depth, document_ids)
                    if mode != "dense" and sparse is not None and sparse.indices else None,
                ]
                sent = [s for s in statements if s is not None]
                rows = conn.execute(*together(sent)).fetchall() if sent else []
                dense_hits, sparse_hits = hit_lists(rows, 2)
                if mode == "dense":
                    out.append(dense_hits)
                elif mode == "bm25":
                    out.append(sparse_hits)
                else:
                    out.append(rrf([dense_hits, sparse_hits], limit))
        return out

    def _graph_depth(self, conn: psycopg.Connection[Any], ef: int) -> None:
        """Candidates an HNSW search keeps, set on the connection only when it changes."""
        if self._graph_ef.get(conn) != ef:
            conn.execute(sql.SQL("SET hnsw.ef_search = {}").format(sql.Literal(ef)))
            self._graph_ef[conn] = ef

    # --- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        """Close the pool's connections."""
        self._pool.close()


def _lookup(conn: psycopg.Connection[Any], collection: str) -> tuple[int, int] | None:
    """A collection's table id and dense size, from the registry."""
    row = conn.execute(
        "SELECT id, dimension FROM vector_collections WHERE name = %s", (collection,)
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else None
