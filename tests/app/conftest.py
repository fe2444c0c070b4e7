"""Server fixtures: small real documents, real libraries (shared embedder), apps, clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.app.server_helpers import ORCHARD_MD, ZEPHYR_PAGES, clarifying_model, make_pdf

from archivist.app.api.app import create_app
from archivist.app.api.auth import UI_OWNER, KeyChecker
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The test documents on disk."""
    root = tmp_path_factory.mktemp("corpus")
    orchard = root / "orchard.md"
    orchard.write_text(ORCHARD_MD, encoding="utf-8")
    broken = root / "broken.pdf"
    broken.write_text("this is not a pdf at all", encoding="utf-8")
    return {
        "zephyr": make_pdf(root / "zephyr-manual.pdf", ZEPHYR_PAGES),
        "orchard": orchard,
        "broken": broken,
    }


def open_library(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
    name: str, llm: Any = None, **overrides: Any,
) -> Application:
    """A real library in its own temp dir (scripted LLM unless overridden)."""
    options: dict[str, Any] = {"llm": "scripted", **overrides}
    settings = Settings(data_dir=tmp_path_factory.mktemp(name), **options)
    return Application(settings, embedder=embedder, llm=llm)


def ui_turn(app: FastAPI, collection: str, question: str) -> tuple[str, Any]:
    """Ask ``question`` as the web UI does; the new thread and its recorded turn."""
    chat = app.state.chat
    thread = chat.create(UI_OWNER, collection)
    events = chat.events(question, thread, collection)
    try:
        for _event in events:
            pass
    finally:
        events.close()
    (turn,) = chat.turns.turns(thread)
    return thread, turn


@pytest.fixture(scope="session")
def server_library(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
    corpus: dict[str, Path],
) -> Iterator[Application]:
    """A library holding the Zephyr manual (PDF) and the orchard notes (Markdown)."""
    library = open_library(tmp_path_factory, embedder, "server-lib")
    report = library.ingest.files([corpus["zephyr"], corpus["orchard"]])
    assert report.counts["added"] == 2, report
    yield library
    library.close()


@pytest.fixture(scope="session")
def open_app(server_library: Application) -> FastAPI:
    """The app with no API keys, without the UI (faster)."""
    return create_app(server_library, ui=False)


@pytest.fixture(scope="session")
def client(open_app: FastAPI) -> Iterator[TestClient]:
    """A test client of the open app; it never turns server errors into exceptions."""
    with TestClient(open_app, base_url="http://localhost",
                    raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def keyed_app(server_library: Application) -> FastAPI:
    """The same library served with two API keys."""
    return create_app(server_library, ui=False, keys=KeyChecker(["key-alice", "key-bob"]))


@pytest.fixture(scope="session")
def keyed_client(keyed_app: FastAPI) -> Iterator[TestClient]:
    """A client of the keyed app (send headers yourself)."""
    with TestClient(keyed_app, base_url="http://localhost",
                    raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def clarify_library(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
    corpus: dict[str, Path],
) -> Iterator[Application]:
    """A library whose agent uses the clarifying scripted model."""
    library = open_library(tmp_path_factory, embedder, "clarify-lib", llm=clarifying_model())
    library.ingest.files([corpus["zephyr"]])
    yield library
    library.close()


@pytest.fixture(scope="session")
def clarify_app(clarify_library: Application) -> FastAPI:
    """An app whose agent asks back on 'it' questions."""
    return create_app(clarify_library, ui=False)


