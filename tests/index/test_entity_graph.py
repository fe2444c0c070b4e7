"""The entity graph: spaCy phrases per child in SQLite, kept in step, ranked by PageRank."""

from __future__ import annotations

from pathlib import Path

import pytest

from archivist.application import Application
from archivist.index.graph import EntityGraph
from archivist.index.phrases import SpacyPhraseExtractor, available, phrase_key
from archivist.settings import Settings
from archivist.storage import Database

pytestmark = pytest.mark.skipif(
    not available(), reason="spaCy's English model is not installed (archivist[graph])"
)

FILM = (
    "# Moonlit Harbor\n\nMoonlit Harbor is a 2003 drama film directed by Tamsin Orwell. "
    "It was shot on the coast of Brittany and premiered at a festival in Venice."
)
DIRECTOR = (
    "# Tamsin Orwell\n\nTamsin Orwell (born 1961) is a Welsh screenwriter. "
    "Orwell read philosophy at Aberystwyth University before moving to London."
)
DISTRACTORS = [
    f"# {name}\n\n{name} is a university whose film school trains every director who "
    f"wants to attend a course. Students attend lectures about which films a director made."
    for name in ("Northgate University", "Eastbrook College", "Harbor Institute", "Westfield")
]
QUESTION = "Which university did the director of Moonlit Harbor attend?"


def test_phrase_keys_merge_surface_forms() -> None:
    assert phrase_key("the University of Oxford") == phrase_key("University of Oxford")
    assert phrase_key("Orwell's") == "orwell"
    assert phrase_key("it") == ""
    assert phrase_key("1961") == ""


def test_spacy_reads_entities_and_noun_phrases() -> None:
    keys = SpacyPhraseExtractor().extract([FILM.split("\n\n", 1)[1]])[0]
    assert "moonlit harbor" in keys
    assert "tamsin orwell" in keys
    assert "brittany" in keys


def test_pagerank_walks_from_the_question_phrase_to_the_second_hop(database: Database) -> None:
    graph = EntityGraph(database)
    graph.add_document("c", "film", [("film-c0", ["moonlit harbor", "tamsin orwell"])], "t")
    graph.add_document("c", "bio", [("bio-c0", ["tamsin orwell", "aberystwyth university"])], "t")
    graph.add_document("c", "other", [("other-c0", ["harbor institute", "university"])], "t")
    seeds = graph.seeds("c", "Where did the director of Moonlit Harbor study?", [])
    assert set(seeds) == {"moonlit harbor"}
    ranked = [cid for cid, _ in graph.rank("c", seeds, None, 10)]
    assert ranked[:2] == ["film-c0", "bio-c0"]
    assert "other-c0" not in ranked  # no path from the seed
    assert [c for c, _ in graph.rank("c", seeds, {"film"}, 10)] == ["film-c0"]
    graph.close()


def test_graph_follows_ingest_replace_and_remove(tmp_path: Path, embedder: object) -> None:
    settings = Settings(data_dir=tmp_path / "lib", index={"entity_graph": True})
    with Application(settings, embedder=embedder) as library:  # type: ignore[arg-type]
        report = library.ingest.texts([("film", FILM), ("director", DIRECTOR)])
        assert report.timings["graph"] > 0
        film_id = library.store.resolve("film").document_id
        assert library.store.graph.documents("default") == {
            film_id,
            library.store.resolve("director").document_id,
        }
        # One more document adds its own rows and extracts nothing else again.
        assert library.searcher.hops.sync_graph("default") == 0
        library.ingest.texts([(f"d{i}", text) for i, text in enumerate(DISTRACTORS)])
        assert len(library.store.graph.documents("default")) == 6
        hits = [h.document_name for h in library.searcher.search(QUESTION, 2, "graph")]
        assert set(hits) == {"film", "director"}
        # Replace: the new version's phrases in, the old version's out.
        library.ingest.texts([("film", FILM.replace("Brittany", "Cornwall"))])
        new_id = library.store.resolve("film").document_id
        assert new_id != film_id
        stored = library.store.graph.documents("default")
        assert new_id in stored and film_id not in stored
        library.store.remove("director")
        assert len(library.store.graph.documents("default")) == 5
        hits = [h.document_name for h in library.searcher.search(QUESTION, 5, "graph")]
        assert "director" not in hits


def test_graph_search_fills_in_a_collection_ingested_without_it(library: Application) -> None:
    library.ingest.texts([("film", FILM), ("director", DIRECTOR)])
    assert library.store.graph.documents("default") == set()
    hits = library.searcher.search(QUESTION, 2, "graph")
    assert {h.document_name for h in hits} == {"film", "director"}
    assert len(library.store.graph.documents("default")) == 2
