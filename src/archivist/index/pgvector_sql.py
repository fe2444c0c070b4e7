"""The SQL of the pgvector engine: a collection's tables, its dense and its BM25 search.

Each collection is two tables, registered in ``vector_collections``:

- ``vectors_<id>``: one row per child (a UUID from ``point_id``, its document and kind, the
  payload as JSON) with its dense vector in a ``vector(dimension)`` column and an HNSW graph
  over it (cosine, Qdrant's m=16 and ef_construction=100), built only over the kinds a search
  may return, so no search loses hits to a filter applied after the graph;
- ``vectors_<id>_terms``: the BM25 sparse vectors as an inverted index (term, child,
  weight). A search weights each query term by Qdrant's IDF,
  ``ln(1 + (N - n + 0.5) / (n + 0.5))`` over the collection, so the scores are the embedded
  engine's BM25 scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg import sql

from archivist.index.edge_config import GRAPH_EF_CONSTRUCT, GRAPH_M
from archivist.index.sparse import SparseVector
from archivist.index.vectors import UNSEARCHED_KINDS, VectorHit, ranked

_KINDS = ", ".join(f"'{kind}'" for kind in UNSEARCHED_KINDS)
#: Literal, not a parameter: the planner must see that it implies the graph index's predicate.
SEARCHABLE = sql.SQL(f"kind NOT IN ({_KINDS})")
REGISTRY = """
CREATE TABLE IF NOT EXISTS vector_collections (
    name text PRIMARY KEY,
    id serial UNIQUE,
    dimension integer NOT NULL
)"""


def tables(table_id: int) -> tuple[sql.Identifier, sql.Identifier]:
    """A collection's tables: its children (with dense vectors) and its BM25 terms."""
    return sql.Identifier(f"vectors_{table_id}"), sql.Identifier(f"vectors_{table_id}_terms")


def schema(table_id: int, dimension: int) -> list[sql.Composed]:
    """The statements that create a collection's tables and indexes."""
    children, terms = tables(table_id)
    graph = sql.Identifier(f"vectors_{table_id}_graph")
    return [
        sql.SQL(
            "CREATE TABLE {} (point_id uuid PRIMARY KEY, document_id text NOT NULL, "
            "kind text NOT NULL, payload jsonb NOT NULL, embedding vector({}) NOT NULL)"
        ).format(children, sql.Literal(dimension)),
        sql.SQL("CREATE INDEX ON {} (document_id)").format(children),
        sql.SQL(
            "CREATE INDEX {} ON {} USING hnsw (embedding vector_cosine_ops) "
            "WITH (m = {}, ef_construction = {}) WHERE {}"
        ).format(graph, children, sql.Literal(GRAPH_M), sql.Literal(GRAPH_EF_CONSTRUCT),
                 SEARCHABLE),
        sql.SQL(
            "CREATE TABLE {} (term integer NOT NULL, point_id uuid NOT NULL "
            "REFERENCES {} (point_id) ON DELETE CASCADE, weight real NOT NULL, "
            "PRIMARY KEY (term, point_id) INCLUDE (weight))"
        ).format(terms, children),
        sql.SQL("CREATE INDEX ON {} (point_id)").format(terms),
    ]


def _documents(document_ids: list[str] | None) -> tuple[sql.Composable, tuple[Any, ...]]:
    if not document_ids:
        return sql.SQL(""), ()
    return sql.SQL(" AND c.document_id = ANY(%s::text[])"), (list(document_ids),)


Statement = tuple[sql.Composed, tuple[Any, ...]]
"""A query and its parameters."""


def dense_search(
    table: sql.Identifier, vector: Sequence[float], limit: int, document_ids: list[str] | None
) -> Statement:
    """Nearest children by cosine: ``(0, payload, score)`` rows.

    The graph answers a search of the whole collection. Within documents the search is
    exact: ordering by ``distance + 0`` keeps the planner off the graph (which would drop
    hits past its candidate list), so it reads the documents' rows and sorts them.
    """
    where, args = _documents(document_ids)
    query = np.asarray(vector, dtype=np.float32)
    order = sql.SQL("(c.embedding <=> %s) + 0" if document_ids else "c.embedding <=> %s")
    return (
        sql.SQL(
            "SELECT 0, c.payload, 1 - (c.embedding <=> %s) FROM {} c WHERE c.{}{} "
            "ORDER BY {} LIMIT %s"
        ).format(table, SEARCHABLE, where, order),
        (query, *args, query, limit),
    )


def bm25_search(
    names: tuple[sql.Identifier, sql.Identifier],
    vector: SparseVector,
    limit: int,
    document_ids: list[str] | None,
) -> Statement:
    """BM25 (``(1, payload, score)`` rows): stored term weights times the query's, by IDF."""
    table, terms = names
    where, args = _documents(document_ids)
    return (
        sql.SQL(
            "WITH q AS (SELECT * FROM unnest(%s::integer[], %s::real[]) AS q(term, weight)), "
            "n AS (SELECT count(*)::float8 AS n FROM {table}), "
            "idf AS (SELECT q.term, q.weight * ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5)) AS w "
            "        FROM q, n, LATERAL (SELECT count(*)::float8 AS df FROM {terms} t "
            "                            WHERE t.term = q.term) df), "
            "top AS (SELECT t.point_id, sum(t.weight * idf.w) AS score "
            "        FROM idf JOIN {terms} t ON t.term = idf.term "
            "        JOIN {table} c ON c.point_id = t.point_id "
            "        WHERE c.{searchable}{where} "
            "        GROUP BY t.point_id ORDER BY score DESC, t.point_id LIMIT %s) "
            "SELECT 1, c.payload, top.score FROM top JOIN {table} c ON c.point_id = top.point_id "
            "ORDER BY top.score DESC, top.point_id"
        ).format(table=table, terms=terms, searchable=SEARCHABLE, where=where),
        (list(vector.indices), list(vector.values), *args, limit),
    )


def together(statements: Sequence[Statement]) -> Statement:
    """Several searches as one statement (one round trip): their rows, each list in order."""
    query = sql.SQL(" UNION ALL ").join(sql.SQL("({})").format(q) for q, _ in statements)
    return query, tuple(arg for _, args in statements for arg in args)


def hit_lists(rows: Sequence[tuple[Any, ...]], lists: int) -> list[list[VectorHit]]:
    """``(list, payload, score)`` rows as hits, one list per number, best first."""
    out: list[list[VectorHit]] = [[] for _ in range(lists)]
    for row in rows:
        out[int(row[0])].append(VectorHit(dict(row[1]), float(row[2])))
    return [ranked(hits) for hits in out]
