"""Citations name the deepest section holding the cited text, in every format.

Small sections share a parent (they are merged up to ``parent_min_chars``); each child
still holds one section's text and names it. Real files, the real embedding model and
engine; only the answering model is the scripted one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import pymupdf
import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from tests.app.conftest import ui_turn

from archivist.app.api.app import create_app
from archivist.app.api.auth import UI_OWNER
from archivist.app.demo import GUIDE
from archivist.app.ui.session import UiConversations
from archivist.application import Application
from archivist.documents.chunked import Chunked
from archivist.index.catalog import Catalog
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.reindex import reindex
from archivist.settings import Settings
from archivist.storage import Database
from archivist.storage.database import MIGRATIONS

GUIDE_MD = """# Guide

Archivist keeps notes about the lab's instruments and who may use them.

## Installation on Linux

Install the package with apt install archivist-lab, then enable the service with
systemctl enable archivist so that it starts at boot.

## Usage

Open the web page on port 8000 and pick an instrument from the list.
"""

GREENHOUSE = [("Watering", "The tomato beds are watered at dawn from the rain barrel."),
              ("Pruning", "Side shoots of the tomatoes are pinched out every Friday."),
              ("Pests", "Aphids on the peppers are sprayed with soapy water.")]


def _html(path: Path) -> Path:
    body = "".join(f"<h2>{heading}</h2><p>{text}</p>" for heading, text in GREENHOUSE)
    path.write_text(f"<html><head><title>Greenhouse</title></head><body><h1>Greenhouse</h1>"
                    f"<p>How the greenhouse is kept.</p>{body}</body></html>", encoding="utf-8")
    return path


def _docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Boat log", level=1)
    document.add_paragraph("How the Marigold sloop is kept through the year.")
    document.add_heading("Rigging", level=2)
    document.add_paragraph("The halyard of the Marigold sloop is replaced every spring.")
    document.add_heading("Hull", level=2)
    document.add_paragraph("The hull is scraped in October and painted in March.")
    document.save(path)
    return path


def _pdf(path: Path, machine: str, *, outline: bool) -> Path:
    """A one-page manual with bold section titles; with an outline, or headings detected."""
    pdf = pymupdf.open()
    page = pdf.new_page()
    lines = [("Field Station Manual", True, 20),
             ("Opening notes for the crew of the north field station.", False, 11),
             ("1 Water pump", True, 14),
             ("The water pump is primed with two litres from the blue canister.", False, 11),
             (f"2 {machine.title()}", True, 14),
             (f"The {machine} runs on diesel and its oil is checked every Monday.", False, 11)]
    y = 72.0
    for line, bold, size in lines:
        page.insert_text((72, y), line, fontname="hebo" if bold else "helv", fontsize=size)
        y += size + 8
    if outline:
        pdf.set_toc([[1, "Field Station Manual", 1], [2, "1 Water pump", 1],
                     [2, f"2 {machine.title()}", 1]])
    pdf.save(path)
    return path


@pytest.fixture(scope="module")
def library(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder
) -> Iterator[Application]:
    """Every format, ingested with the default chunking settings."""
    root = tmp_path_factory.mktemp("cited")
    (root / "guide.md").write_text(GUIDE_MD, encoding="utf-8")
    files = [root / "guide.md", _html(root / "greenhouse.html"), _docx(root / "boat-log.docx"),
             _pdf(root / "station-outline.pdf", "generator", outline=True),
             _pdf(root / "station-detected.pdf", "tractor", outline=False), GUIDE]
    settings = Settings(data_dir=root / "library", llm={"model": "scripted"})
    application = Application(settings, embedder=embedder)
    report = application.ingest.files(files)
    assert not report.counts["failed"], report.results
    yield application
    application.close()


def _hit(library: Application, query: str, name: str):  # noqa: ANN202 - a SearchHit
    hits = library.searcher.search(query, k=5)
    found = [h for h in hits if h.document_name == name]
    assert found, [(h.document_name, h.pages) for h in hits]
    return found[0]


def _cited(library: Application, question: str, name: str) -> list[str]:
    result = library.agent.ask(question)
    return [s.label() for s in result.sources if s.document_name == name]


@pytest.mark.parametrize(("name", "question", "label"), [
    ("guide.md", "How do I install the lab package on Linux?",
     "guide.md, § Guide › Installation on Linux"),
    ("greenhouse.html", "When are the tomato side shoots pinched out?",
     "greenhouse.html, § Greenhouse › Pruning"),
    ("boat-log.docx", "When is the hull of the sloop scraped?",
     "boat-log.docx, § Boat log › Hull"),
    ("03-how-it-works.md", "How does Archivist stay consistent if it is killed during an ingest?",
     "03-how-it-works.md, § How Archivist works › Staying consistent"),
])
def test_search_and_answers_name_the_section_of_the_text(
    library: Application, name: str, question: str, label: str
) -> None:
    hit = _hit(library, question, name)
    assert f"{name}, {hit.pages}" == label, hit  # `search`, /v1/search, MCP search_documents
    # the section shares its parent with others: the parent's path names less than the label
    assert hit.location_path[: len(hit.heading_path)] == hit.heading_path != hit.location_path
    assert label in _cited(library, question, name)  # `ask`, API sources, MCP, footnotes


@pytest.mark.parametrize(("name", "machine"), [("station-outline.pdf", "generator"),
                                             ("station-detected.pdf", "tractor")])
def test_pdf_hits_carry_the_section_of_their_text(
    library: Application, name: str, machine: str
) -> None:
    """A PDF is cited by page; its heading path names the section (outline or detected)."""
    question = f"How often is the oil of the {machine} checked?"
    section = ["Field Station Manual", f"2 {machine.title()}"]
    hit = _hit(library, question, name)
    assert hit.pages == "p. 1"
    assert hit.to_dict()["heading_path"] == section, hit
    result = library.agent.ask(question)
    paths = [s.heading_path for s in result.sources if s.document_name == name]
    assert section in paths, result.sources


def test_a_child_spanning_two_sections_names_the_first_and_marks_the_span(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    """A section too small to be a child of its own joins the next; the label says so."""
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\n## Keys\n\nSpare keys: hook 4.\n\n## Alarm\n\nThe alarm code "
                     "of the store room is changed on the first day of every quarter by the "
                     "caretaker.\n", encoding="utf-8")
    with Application(Settings(data_dir=tmp_path / "lib"), embedder=embedder) as library:
        assert library.ingest.files([notes]).counts["added"] == 1
        hit = _hit(library, "where are the spare keys", "notes.md")
    assert hit.pages == "§ Notes › Keys (+1 more)", hit
    assert hit.sections == [["Notes", "Keys"], ["Notes", "Alarm"]]


def test_every_interface_shows_the_section_label(library: Application) -> None:
    """The API's search and sources, the OpenAI footnotes and the web UI's opened source."""
    question = "How do I install the lab package on Linux?"
    label = "§ Guide › Installation on Linux"
    app = create_app(library, ui=False)
    with TestClient(app, base_url="http://localhost") as client:
        searched = client.get("/v1/search", params={"q": question, "k": 5}).json()["hits"]
        hit = next(h for h in searched if h["document_name"] == "guide.md")
        assert hit["pages"] == label and hit["heading_path"] == ["Guide", "Installation on Linux"]

        reply = client.post("/v1/chat/completions", json={
            "model": "archivist", "messages": [{"role": "user", "content": question}]}).json()
        assert f"guide.md, {label}" in reply["choices"][0]["message"]["content"], reply

        chat = app.state.chat
        thread, turn = ui_turn(app, library.settings.collection, question)
        numbers = [n for n, s in enumerate(turn.sources, start=1) if s["pages"] == label]
        assert numbers, turn.sources
        opened = UiConversations(library.store, chat.registry, chat.turns).open_source(
            thread, 1, numbers[0], UI_OWNER)
        assert "_Section: Guide › Installation on Linux_" in opened.markdown, opened.markdown


def test_a_library_ingested_before_sections_still_answers(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No sections stored: the parent's headings name the section, as before.

    ``reindex`` re-embeds the stored chunks as they are; ingesting the file again adds them.
    """
    import archivist.ingest as ingest_module

    real = ingest_module.chunk_document

    def without_sections(*args: Any, **kwargs: Any) -> Chunked:
        chunked = real(*args, **kwargs)
        for chunk in [*chunked.parents, *chunked.children]:
            chunk.sections = None
        return chunked

    guide = tmp_path / "guide.md"
    guide.write_text(GUIDE_MD, encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "lib", llm={"model": "scripted"})
    question = "How do I install the lab package on Linux?"
    with monkeypatch.context() as patch:
        patch.setattr(ingest_module, "chunk_document", without_sections)
        with Application(settings, embedder=embedder) as library:
            assert library.ingest.files([guide]).counts["added"] == 1
    reindex(settings, lambda _model: embedder)  # re-embeds the stored chunks as they are
    with Application(settings, embedder=embedder) as library:
        hit = _hit(library, question, "guide.md")
        assert hit.sections is None and hit.pages == "§ Guide", hit
        assert "guide.md, § Guide" in _cited(library, question, "guide.md")
        library.store.remove(hit.document_id)
        assert library.ingest.files([guide]).counts["added"] == 1
        assert _hit(library, question, "guide.md").pages == "§ Guide › Installation on Linux"


def test_a_database_from_before_sections_gains_the_column(tmp_path: Path) -> None:
    """A library at the first schema revision opens: its chunks have no sections (NULL)."""
    url = f"sqlite:///{tmp_path / 'archivist.sqlite'}"
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(url)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        conn.execute(text("INSERT INTO children (collection, child_id, parent_id, document_id, "
                          "position, text, heading_path, kind) VALUES ('default', 'd-c0', "
                          "'d-p0', 'd', 0, 'text', '[\"Guide\"]', 'body')"))
    engine.dispose()
    database = Database(url)  # migrates to the newest revision
    try:
        (child,) = Catalog(database).children_of("default", "d")
    finally:
        database.close()
    assert child.sections is None and child.heading_path == ["Guide"]
