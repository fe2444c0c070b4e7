"""What each child is embedded and BM25-indexed with: document title, heading path, text."""

from __future__ import annotations

from archivist.documents.chunked import embedding_text
from archivist.types import Child


def child(path: list[str]) -> Child:
    return Child("d-c0", "d-p0", "d", 0, "Run pg_upgradecluster.", path, None, None)


def test_a_deep_chunk_carries_its_document_title_and_section_path() -> None:
    text = embedding_text(child(["Upgrading", "Major versions"]), "PostgreSQL Handbook")
    assert text == "PostgreSQL Handbook > Upgrading > Major versions\n\nRun pg_upgradecluster."


def test_the_title_is_not_repeated_when_the_first_heading_is_the_title() -> None:
    text = embedding_text(child(["PostgreSQL Handbook", "Upgrading"]), "PostgreSQL handbook")
    assert text.startswith("PostgreSQL Handbook > Upgrading\n\n")


def test_a_chunk_without_headings_still_names_its_document() -> None:
    assert embedding_text(child([]), "notes").startswith("notes\n\n")
    assert embedding_text(child([]), "") == "Run pg_upgradecluster."


def test_in_memory_texts_take_their_h1_as_title(library) -> None:
    library.ingest.texts([("a1b2", "# Demon Dice\n\nA collectible dice game.")])
    (record,) = library.store.documents()
    hits = library.searcher.search("Demon Dice", 1, "bm25")
    assert hits and hits[0].document_id == record.document_id
    # The name is a key, not a title: it is not indexed in front of the chunk.
    assert library.searcher.search("a1b2", 1, "bm25") == []
