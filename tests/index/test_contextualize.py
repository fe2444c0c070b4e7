"""``contextualize = "llm"``: a model-written sentence per child, indexed with it, cached by
content hash, reported; reindex reuses the cache without asking the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.reindex import reindex
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

# The second section never names the company: only its context sentence will.
TEXT = """# Zorblax annual report

## Overview

Zorblax makes glacier survey drones and sells them to research institutes. Its drones
map crevasses, measure ice thickness with radar and fly for six hours on one charge. The
company was founded by two glaciologists and employs forty people in three countries.
Most of its customers are universities; a few are national weather services.

## Results

Revenue grew by a third, driven by orders from two polar expeditions. Margins improved
as the new battery pack cost less to build. Spending on research rose again, mostly for
the radar. The order book for next year is already larger than this year's sales, and
two new distributors were signed in the southern hemisphere.
"""


def contextualizing_model() -> ScriptedChatModel:
    def write_context(messages: list[Any], info: Any) -> str:
        prompt = str(messages[-1].content)
        chunk = prompt.split("<chunk>")[1].split("</chunk>")[0]
        if "Revenue" in chunk:
            return '"This passage reports Quuxcorp subsidiary Zorblax\'s yearly results."\n'
        return "This passage introduces Zorblax."

    return ScriptedChatModel(rules=[write_context])


def library_with(tmp_path: Path, embedder: SentenceTransformerEmbedder, llm: Any) -> Application:
    settings = Settings(data_dir=tmp_path / "lib", index={"contextualize": "llm"})
    return Application(settings, embedder=embedder, llm=llm)


def test_off_by_default_and_no_model_is_asked(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    llm = contextualizing_model()
    with Application(Settings(data_dir=tmp_path / "lib"), embedder=embedder, llm=llm) as lib:
        report = lib.ingest.texts([("zorblax", TEXT)])
        assert report.contexts == {} and "context" not in report.timings
        assert lib.searcher.search("Quuxcorp", 3, "bm25") == []
    assert llm.calls == []


def test_each_child_is_indexed_with_its_context_sentence(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    llm = contextualizing_model()
    with library_with(tmp_path, embedder, llm) as library:
        report = library.ingest.texts([("zorblax", TEXT)])
        (record,) = library.store.documents()
        children = library.store.children_of(record.document_id)
        assert len(children) >= 2
        assert report.contexts == {"children": len(children), "calls": len(children), "cached": 0}
        assert report.timings["context"] > 0
        # each prompt shows the title, the child's section and the child
        prompts = [c.text for c in llm.calls]
        assert all('<document title="Zorblax annual report">' in p for p in prompts)
        assert any("Revenue grew by a third" in p.split("<chunk>")[1] for p in prompts)
        hits = library.searcher.search("Quuxcorp", 3, "bm25")
        assert [h.text for h in hits] == [c.text for c in children if "Revenue" in c.text]


def test_the_cache_spares_the_model_on_reingest_and_reindex(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    llm = contextualizing_model()
    library = library_with(tmp_path, embedder, llm)
    first = library.ingest.texts([("zorblax", TEXT)])
    calls = len(llm.calls)
    library.store.remove("zorblax")
    again = library.ingest.texts([("zorblax", TEXT)])
    assert len(llm.calls) == calls  # every sentence came from the cache
    assert again.contexts == {**first.contexts, "calls": 0, "cached": first.contexts["children"]}
    settings = library.settings
    library.close()
    reindex(settings, lambda _model: embedder)
    assert len(llm.calls) == calls
    with library_with(tmp_path, embedder, llm) as reopened:
        assert len(reopened.searcher.search("Quuxcorp", 3, "bm25")) == 1


def test_a_failing_model_fails_the_file_with_one_line(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zorblax.md").write_text(TEXT, encoding="utf-8")
    llm = ScriptedChatModel(script=[ConnectionError("model server down\nsecond line")])
    with library_with(tmp_path, embedder, llm) as library:
        report = library.ingest.files([docs])
        (failed,) = report.results
        assert failed.outcome.value == "failed"
        assert failed.reason == (
            "contextualize = llm: the model failed (ConnectionError: model server down); "
            "set contextualize = off to ingest without context sentences"
        )
        assert library.store.documents() == []
