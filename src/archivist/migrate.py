"""``archivist migrate --to postgresql://...``: copy an embedded library into PostgreSQL.

Copied: every table of the library database (catalog, contexts, turns, feedback, threads,
the entity graph), the conversations' checkpoints (through LangGraph's savers, so each
backend keeps its own format) and the vectors as stored (read from the embedded engine and
written to pgvector: nothing is embedded again). Rows already in the target are kept, so a
second run copies only what the first did not, and the counts are compared at the end.
Ingest jobs are not copied (the target's workers start with an empty queue).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import qdrant_edge as qe
from sqlalchemy import Table, delete, func, select, text

from archivist.index.catalog import Catalog
from archivist.index.edge_store import EdgeVectorStore
from archivist.index.sparse import SparseVector
from archivist.index.vectors import DENSE, SPARSE
from archivist.settings import Settings
from archivist.storage import Database, is_embedded, open_database
from archivist.storage.schema import graph_links, graph_phrases, metadata
from archivist.types import ArchivistError, Child

NOT_COPIED = {"jobs", "counters"}
BATCH = 1000
Progress = Callable[[str], None]


@dataclass
class MigrationReport:
    """Counts on both sides: ``{name: (source, target)}``."""

    tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    checkpoints: tuple[int, int] = (0, 0)
    vectors: dict[str, tuple[int, int]] = field(default_factory=dict)

    def mismatches(self) -> list[str]:
        """Every count that differs (a target may hold more rows than it was given)."""
        counts = {**self.tables, "checkpoints": self.checkpoints,
                  **{f"vectors of {c}": n for c, n in self.vectors.items()}}
        return [f"{name}: {source} in the library, {target} in the target"
                for name, (source, target) in counts.items() if target < source]


def migrate_library(settings: Settings, target_url: str,
                    progress: Progress | None = None) -> MigrationReport:
    """Copy the embedded library of ``settings`` into the PostgreSQL database ``target_url``."""
    say = progress or (lambda _line: None)
    if not is_embedded(settings.storage.database_url):
        raise ArchivistError("migrate copies an embedded library; this one's database_url "
                             "already names a server")
    if is_embedded(target_url):
        raise ArchivistError("--to: give a postgresql:// database to copy the library into")
    source = open_database(settings.storage.database_url, settings.data_dir)
    try:
        target = Database(target_url)
    except BaseException:
        source.close()
        raise
    report = MigrationReport()
    try:
        for table in metadata.sorted_tables:
            if table.name not in NOT_COPIED:
                report.tables[table.name] = _copy_table(source, target, table)
                say(f"{table.name}: {report.tables[table.name][0]} rows")
        report.checkpoints = _copy_checkpoints(source, target)
        say(f"checkpoints: {report.checkpoints[0]}")
        if not settings.storage.qdrant_url:
            report.vectors = _copy_vectors(settings, source, target_url, say)
    finally:
        target.close()
        source.close()
    return report


def _count(database: Database, table: Table) -> int:
    with database.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar() or 0)


def _rows(database: Database, table: Table) -> Iterator[list[dict[str, Any]]]:
    with database.reading() as conn:
        result = conn.execution_options(yield_per=BATCH).execute(select(table))
        for part in result.partitions(BATCH):
            yield [dict(row._mapping) for row in part]


def _copy_table(source: Database, target: Database, table: Table) -> tuple[int, int]:
    for rows in _rows(source, table):
        with target.transaction() as conn:
            if table is graph_links:  # no key: a document's links are replaced, not added
                for collection, document_id in {(r["collection"], r["document_id"])
                                                for r in rows}:
                    conn.execute(delete(table).where(table.c.collection == collection,
                                                     table.c.document_id == document_id))
            conn.execute(target.insert_ignore(table), rows)
    if table is graph_phrases:  # the ids were copied: the sequence continues after them
        with target.transaction() as conn:
            conn.execute(text("SELECT setval(pg_get_serial_sequence('graph_phrases', "
                              "'phrase_id'), COALESCE(MAX(phrase_id), 0) + 1, false) "
                              "FROM graph_phrases"))
    return _count(source, table), _count(target, table)


def _copy_checkpoints(source: Database, target: Database) -> tuple[int, int]:
    reader, writer = source.checkpointer(), target.checkpointer()
    copied = 0
    for item in reader.list(None):
        configurable = item.config["configurable"]
        parent = item.parent_config or {"configurable": {
            "thread_id": configurable["thread_id"],
            "checkpoint_ns": configurable.get("checkpoint_ns", "")}}
        stored = writer.put(parent, item.checkpoint, item.metadata,
                            item.checkpoint["channel_versions"])
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in item.pending_writes or []:
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            writer.put_writes(stored, writes, task_id)
        copied += 1
    with target.reading() as conn:
        stored_count = int(conn.execute(text("SELECT count(*) FROM checkpoints")).scalar() or 0)
    return copied, stored_count


def _stored_points(store: EdgeVectorStore, collection: str,
                   document_id: str) -> dict[str, tuple[list[float], SparseVector]]:
    """A document's points in the embedded engine: child id -> (dense, sparse)."""
    shard = store._shard(collection)  # noqa: SLF001 (the engine's own reader)
    found: dict[str, tuple[list[float], SparseVector]] = {}
    offset = None
    while shard is not None:
        request = qe.ScrollRequest(
            offset=offset, limit=256, with_payload=True, with_vector=True,
            filter=qe.Filter(must=[qe.FieldCondition(key="document_id",
                                                     match=qe.MatchAny([document_id]))]))
        points, offset = shard.scroll(request)
        for point in points:
            vectors: Any = point.vector
            sparse = vectors[SPARSE]
            found[str((point.payload or {})["child_id"])] = (
                [float(x) for x in vectors[DENSE]],
                SparseVector(list(sparse.indices), list(sparse.values)))
        if offset is None:
            break
    return found


def _copy_vectors(settings: Settings, source: Database, target_url: str,
                  say: Progress) -> dict[str, tuple[int, int]]:
    from archivist.index.engines import open_vector_store
    from archivist.index.pgvector_store import PgVectorStore

    catalog = Catalog(source)
    edge = open_vector_store(settings)
    shared = PgVectorStore(target_url)
    counts: dict[str, tuple[int, int]] = {}
    try:
        assert isinstance(edge, EdgeVectorStore)
        for collection in catalog.collections():
            model = catalog.collection_model(collection)
            if model is None or not edge.exists(collection):
                continue
            shared.ensure(collection, model[1])
            for record in catalog.documents(collection):
                stored = edge.count(collection, record.document_id)
                if shared.count(collection, record.document_id) == stored:
                    continue  # copied by an earlier run
                points = _stored_points(edge, collection, record.document_id)
                children: list[Child] = [c for c in catalog.children_of(
                    collection, record.document_id) if c.child_id in points]
                shared.delete_document(collection, record.document_id)
                shared.upsert(collection, children, [points[c.child_id][0] for c in children],
                              [points[c.child_id][1] for c in children], record.name)
            counts[collection] = (edge.count(collection), shared.count(collection))
            say(f"vectors of {collection}: {counts[collection][0]}")
    finally:
        shared.close()
        edge.close()
    return counts
