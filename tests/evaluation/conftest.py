"""A tiny BEIR folder written by hand, so retrieval metrics can be checked exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings

# the two documents of the answer-evaluation tests (a library per test, scripted LLM)
DOCS = [
    (
        "volcano.md",
        "# Volcanoes\n\nMount Etna is an active volcano in Sicily. Its lava flows are slow.",
    ),
    ("bread.md", "# Bread\n\nSourdough bread rises with wild yeast and needs a long fermentation."),
]

CORPUS = [
    {"_id": "d-volcano", "title": "Volcanoes", "text": "Magma erupts from volcanoes as lava."},
    {"_id": "d-tide", "title": "Tides", "text": "Lunar gravity pulls oceans into tides."},
    {"_id": "d-moon", "title": "The Moon", "text": "Craters cover the lunar surface."},
    {"_id": "d-bread", "title": "Bread", "text": "Yeast ferments dough before baking."},
]
QUERIES = [
    # only d-volcano shares terms (magma, lava) -> BM25 ranking [d-volcano]
    {"_id": "q1", "text": "magma lava", "metadata": {}},
    # only d-tide shares "tides"; the qrels also grade d-moon 2, which BM25 never returns
    {"_id": "q2", "text": "tides", "metadata": {}},
    # shares no term with any document -> empty BM25 ranking, every metric 0
    {"_id": "q3", "text": "quasar", "metadata": {}},
    # judged only non-relevant -> left out of every average
    {"_id": "q4", "text": "yeast", "metadata": {}},
    # no qrels at all -> not evaluated
    {"_id": "q5", "text": "baking", "metadata": {}},
]
QRELS = [
    ("q1", "d-volcano", 1),
    ("q2", "d-tide", 1),
    ("q2", "d-moon", 2),
    ("q3", "d-bread", 1),
    ("q4", "d-bread", 0),
]


def write_beir(root: Path) -> Path:
    """Write the tiny BEIR folder under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (root / "qrels").mkdir(exist_ok=True)
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, d, s in QRELS]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def tiny_beir(tmp_path: Path) -> Path:
    """A BEIR folder named ``tiny`` with four documents and five queries."""
    return write_beir(tmp_path / "tiny")


@pytest.fixture
def cli() -> typer.Typer:
    """The real ``archivist`` app when it has the ``eval`` group, else a bare app with it."""
    from archivist.app.cli.main import app

    if any(group.name == "eval" for group in app.registered_groups):
        return app
    from archivist.app.cli.evaluation import register

    bare = typer.Typer()

    @bare.callback()
    def root() -> None:
        """Test root."""

    register(bare)
    return bare


@pytest.fixture
def scripted_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: SentenceTransformerEmbedder
) -> Path:
    """A library folder holding ``DOCS``, with ``ARCHIVIST_LLM__MODEL=scripted`` set."""
    monkeypatch.setenv("ARCHIVIST_LLM__MODEL", "scripted")
    data_dir = tmp_path / "lib"
    with Application(Settings(data_dir=data_dir), embedder=embedder) as library:
        library.ingest.texts(DOCS)
    return data_dir
