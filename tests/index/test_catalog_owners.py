"""Document owners in the catalog: new rows, set_owner, and catalogs from before owners."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from archivist.index.catalog import Catalog
from archivist.storage import Database, open_database
from archivist.types import ADMIN_OWNER, Child, DocumentRecord, Parent


def _record(document_id: str) -> DocumentRecord:
    return DocumentRecord(document_id=document_id, collection="c", path=f"/x/{document_id}",
                          name=f"{document_id}.md", content_hash=document_id, size_bytes=1,
                          page_count=0, parent_count=0, child_count=0, added_at="")


def test_documents_belong_to_the_admin_until_given_away(database: Database) -> None:
    catalog = Catalog(database)
    catalog.add_pending(_record("a1"), [], [])
    catalog.add_pending(_record("b2"), [], [])
    catalog.set_status("c", {"a1": "ready", "b2": "ready"})
    catalog.set_owner("c", ["b2"], "key:bob")
    owners = {d.document_id: d.owner for d in catalog.documents("c")}
    assert owners == {"a1": ADMIN_OWNER, "b2": "key:bob"}


def test_a_rewritten_document_replaces_its_parents_and_children(database: Database) -> None:
    catalog = Catalog(database)
    parent = Parent("d-p0", "d", 0, "old", ["A"], 1, 1, "c")
    child = Child("d-c0", "d-p0", "d", 0, "old", ["A"], 1, 1)
    catalog.add_pending(_record("d"), [parent], [child])
    parent.text = child.text = "new"
    catalog.add_pending(_record("d"), [parent], [child])
    assert [p.text for p in catalog.parents_of("c", "d")] == ["new"]
    assert [c.text for c in catalog.children_of("c", "d")] == ["new"]
    assert catalog.counts() == {"documents": 1, "parents": 1, "children": 1}


def test_a_catalog_from_before_owners_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE documents (collection TEXT NOT NULL, document_id TEXT NOT NULL, "
            "path TEXT NOT NULL, name TEXT NOT NULL, content_hash TEXT NOT NULL, size_bytes "
            "INTEGER NOT NULL, page_count INTEGER NOT NULL, parent_count INTEGER NOT NULL, "
            "child_count INTEGER NOT NULL, added_at TEXT NOT NULL, status TEXT NOT NULL, "
            "PRIMARY KEY (collection, document_id))"
        )
        conn.execute("INSERT INTO documents VALUES ('c','old','/p','old.md','h',1,0,0,0,'t',"
                     "'ready')")
    database = open_database(None, tmp_path)
    assert [d.owner for d in Catalog(database).documents("c")] == [ADMIN_OWNER]
    database.close()
    assert not path.exists() and (tmp_path / "catalog.sqlite.imported").is_file()
    again = open_database(None, tmp_path)  # imported once: reopening keeps the one row
    assert len(Catalog(again).documents("c")) == 1
    again.close()


def test_a_catalog_from_before_section_flags_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    columns = ("collection TEXT NOT NULL, {id} TEXT NOT NULL, {extra}document_id TEXT NOT NULL, "
               "position INTEGER NOT NULL, text TEXT NOT NULL, heading_path TEXT NOT NULL, "
               "page_start INTEGER, page_end INTEGER, PRIMARY KEY (collection, {id})")
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE parents ({columns.format(id='parent_id', extra='')})")
        conn.execute("CREATE TABLE children "
                     f"({columns.format(id='child_id', extra='parent_id TEXT NOT NULL, ')})")
        conn.execute("INSERT INTO parents VALUES ('c','old-p0','old',0,'text','[]',1,1)")
        conn.execute("INSERT INTO children VALUES ('c','old-c0','old-p0','old',0,'t','[]',1,1)")
    database = open_database(None, tmp_path)
    catalog = Catalog(database)
    assert [p.kind for p in catalog.parents_of("c", "old")] == ["body"]
    assert [c.kind for c in catalog.children_of("c", "old")] == ["body"]
    parent = Parent("new-p0", "new", 0, "Index", ["Index"], 40, 41, "c", kind="index")
    child = Child("new-c0", "new-p0", "new", 0, "Index", ["Index"], 40, 41, kind="index")
    catalog.add_pending(_record("new"), [parent], [child])
    assert [p.kind for p in catalog.parents_of("c", "new")] == ["index"]
    assert [(c.parent_id, c.kind) for c in catalog.children_of("c", "new")] == [("new-p0", "index")]
    database.close()
