from pathlib import Path

import pytest
from tests.index.corpus import write_corpus

from archivist.application import Application
from archivist.settings import Settings
from archivist.types import IndexMismatch, IngestOutcome, UnknownDocument


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """Each test here runs on both backends: the embedded SQLite file and PostgreSQL."""
    return Settings(data_dir=tmp_path / "library", storage={"database_url": database_url})


@pytest.fixture
def filled(library: Application, tmp_path: Path) -> Application:
    report = library.ingest.files([write_corpus(tmp_path / "docs")])
    assert report.counts["added"] == 4
    return library


def test_ingest_is_idempotent(filled: Application, tmp_path: Path) -> None:
    before = {d.document_id for d in filled.store.documents()}
    report = filled.ingest.files([tmp_path / "docs"])
    assert report.counts == {"added": 0, "unchanged": 4, "replaced": 0, "failed": 0, "skipped": 0}
    assert {d.document_id for d in filled.store.documents()} == before
    total = sum(d.child_count for d in filled.store.documents())
    assert filled.store.vectors.count("default") == total


def test_changed_file_replaces_old_version(filled: Application, tmp_path: Path) -> None:
    path = tmp_path / "docs" / "cooking.md"
    old = filled.store.resolve("cooking.md")
    path.write_text("# Cooking notes\n\nPancakes need eggs, milk and flour.\n", encoding="utf-8")
    report = filled.ingest.files([path])
    assert [r.outcome for r in report.results] == [IngestOutcome.REPLACED]
    new = filled.store.resolve("cooking.md")
    assert new.document_id != old.document_id
    assert filled.store.vectors.count("default", old.document_id) == 0
    assert filled.store.parents_of(old.document_id) == []
    hits = filled.searcher.search("knead the dough and let it rise", k=10)
    assert all(h.document_id != old.document_id for h in hits)
    assert filled.searcher.search("pancakes eggs flour", k=1)[0].document_id == new.document_id


def test_remove_deletes_parents_children_vectors_and_row(filled: Application) -> None:
    record = filled.store.remove("postgres.md")
    assert record.name == "postgres.md"
    assert filled.store.parents_of(record.document_id) == []
    assert filled.store.children_of(record.document_id) == []
    assert filled.store.vectors.count("default", record.document_id) == 0
    with pytest.raises(UnknownDocument):
        filled.store.resolve("postgres.md")
    assert all(h.document_name != "postgres.md" for h in filled.searcher.search("PostgreSQL", k=10))


def test_remove_by_id_prefix(filled: Application) -> None:
    record = filled.store.resolve("astronomy.txt")
    assert filled.store.remove(record.document_id[:6]).document_id == record.document_id


def test_keyword_only_query_ranks_exact_term_first(filled: Application) -> None:
    # A made-up code only BM25 can match; dense similarity knows nothing about it.
    hits = filled.searcher.search("XK-4471", k=3)
    assert hits[0].document_name == "errors.md"
    assert "XK-4471" in hits[0].text


def test_paraphrase_only_query_ranks_meaning_first(filled: Application) -> None:
    # No content word of the answer appears in the query.
    query = "which world orbiting our sun is the biggest one"
    bm25 = filled.searcher.search(query, k=3, mode="bm25")
    assert not bm25 or bm25[0].document_name != "astronomy.txt" or "Jupiter" not in query
    hits = filled.searcher.search(query, k=3)
    assert hits[0].document_name == "astronomy.txt"


def test_hybrid_has_no_fixed_score_threshold(filled: Application) -> None:
    total = sum(d.child_count for d in filled.store.documents())
    hits = filled.searcher.search("planet", k=total)
    assert len(hits) == total  # every chunk comes back, however low its fused score


def test_filter_by_document(filled: Application) -> None:
    astro = filled.store.resolve("astronomy.txt")
    hits = filled.searcher.search("PostgreSQL port", k=5, document_ids=[astro.document_id])
    assert hits and {h.document_id for h in hits} == {astro.document_id}


def test_collections_are_separate(filled: Application, tmp_path: Path) -> None:
    note = tmp_path / "other" / "note.md"
    note.parent.mkdir()
    note.write_text("# Gardening\n\nTomatoes need full sun.\n", encoding="utf-8")
    filled.ingest.files([note], collection="garden")
    assert [d.name for d in filled.store.documents("garden")] == ["note.md"]
    garden_hits = filled.searcher.search("sun", collection="garden")
    assert all(h.document_name == "note.md" for h in garden_hits)
    assert all(h.document_name != "note.md" for h in filled.searcher.search("tomatoes", k=10))
    assert set(filled.store.collections()) == {"default", "garden"}


def test_hits_carry_pages_and_headings(library: Application, eval_dir: Path) -> None:
    library.ingest.files([eval_dir / "pdfs" / "AMCOR_2023Q4_EARNINGS.pdf"])
    hits = library.searcher.search("adjusted free cash flow guidance fiscal 2024", k=3)
    assert hits and all(h.page_start and h.page_end for h in hits)
    assert all(1 <= h.page_start <= h.page_end <= 14 for h in hits)  # type: ignore[operator]
    parent = library.store.get_parent(hits[0].parent_id)
    assert parent is not None and hits[0].text in parent.text


def test_changing_embedding_model_is_refused(filled: Application, tmp_path: Path) -> None:
    other = filled.settings.with_values(index={"embedding_model": "some-other-model"})
    filled.close()
    reopened = Application(other)
    try:
        with pytest.raises(IndexMismatch, match="all-MiniLM-L6-v2"):
            reopened.ingest.files([tmp_path / "docs"])
        with pytest.raises(IndexMismatch, match="new collection|--collection"):
            reopened.searcher.search("bread")
    finally:
        reopened.close()
