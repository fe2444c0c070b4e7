"""A cited HTML or Word passage opens its section (heading path and text), with no page."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from fastapi.testclient import TestClient
from tests.app.conftest import open_library, ui_turn

from archivist.app.api.app import create_app
from archivist.app.api.auth import UI_OWNER
from archivist.app.ui.session import UiConversations
from archivist.index.embeddings import SentenceTransformerEmbedder

FILLER = " Every visit is written in the yard book with its date and who came." * 40


def _sections(path: Path, sections: list[tuple[str, str, str]]) -> Path:
    """An HTML or Word file: a title, then sections long enough to be their own parents."""
    if path.suffix == ".html":
        body = "".join(f"<h2>{h}</h2><p>{first}{FILLER}</p><p>{last}</p>"
                       for h, first, last in sections)
        path.write_text(f"<html><head><title>{path.stem}</title></head><body>"
                        f"<h1>{path.stem}</h1>{body}</body></html>", encoding="utf-8")
        return path
    document = docx.Document()
    document.add_heading(path.stem, level=0)
    for heading, first, last in sections:
        document.add_heading(heading, level=1)
        document.add_paragraph(first + FILLER)
        document.add_paragraph(last)
    document.save(path)
    return path


HIVES = [("Winter care", "Bees in the Larkspur hives are fed sugar fondant in January.",
          "The entrance reducer stays on until the first willow catkins."),
         ("Swarms", "Swarms are collected in a spare box.", "The spare box is kept dry.")]
BOAT = [("Rigging", "The halyard of the Marigold sloop is replaced every spring.",
         "Old halyards are kept as dock lines."),
        ("Hull", "The hull is scraped in October.", "Antifouling goes on in March.")]


@pytest.mark.parametrize(("question", "name", "heading", "section"), [
    ("Where are swarms collected?", "hives.html", "Swarms", "The spare box is kept dry."),
    ("When is the hull scraped?", "boat-log.docx", "Hull", "Antifouling goes on in March."),
])
def test_a_cited_html_or_word_passage_opens_its_section(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
    embedder: SentenceTransformerEmbedder, question: str, name: str, heading: str, section: str,
) -> None:
    _sections(tmp_path / "hives.html", HIVES)
    _sections(tmp_path / "boat-log.docx", BOAT)
    library = open_library(tmp_path_factory, embedder, "sections")
    try:
        report = library.ingest.files([tmp_path / name])
        assert report.counts["added"] == 1, report.results
        app = create_app(library, ui=False)
        with TestClient(app, base_url="http://localhost") as client:
            chat = app.state.chat
            thread, turn = ui_turn(app, library.settings.collection, question)
            numbers = [n for n, s in enumerate(turn.sources, start=1)
                       if s["document_name"] == name]
            assert numbers, turn.sources
            cited = turn.sources[numbers[0] - 1]

            convs = UiConversations(library.store, chat.registry, chat.turns)
            opened = convs.open_source(thread, 1, numbers[0], UI_OWNER)
            assert opened.page_png is None  # not a PDF: no page picture
            # the label every interface shows: the document and its section
            assert f"**[{numbers[0]}] {name}, § " in opened.markdown
            assert "_Section: " in opened.markdown and heading in opened.markdown
            assert section in opened.section  # the whole section, beyond the cited passage

            body = client.get(f"/v1/documents/{cited['document_id']}/passages/"
                              f"{cited['parent_id']}").json()
            assert body["document_name"] == name and heading in body["heading_path"]
            assert section in body["text"] and body["page_start"] is None
            page = client.get(f"/v1/documents/{cited['document_id']}/pages/1")
            assert page.status_code == 422 and name in page.json()["error"]["message"]
    finally:
        library.close()


def _opening_without_heading(path: Path, title: str, opening: str) -> Path:
    """An HTML or Word file whose first section has no heading, then two headed sections."""
    later = [("Winter care", "The hives are fed fondant in January."),
             ("Swarms", "Swarms are collected in a spare box.")]
    if path.suffix == ".html":
        body = "".join(f"<h2>{h}</h2><p>{text}{FILLER}</p>" for h, text in later)
        path.write_text(f"<html><head><title>{title}</title></head><body>"
                        f"<p>{opening}{FILLER}</p>{body}</body></html>", encoding="utf-8")
        return path
    document = docx.Document()
    document.core_properties.title = title
    document.add_paragraph(opening + FILLER)
    for heading, text in later:
        document.add_heading(heading, level=1)
        document.add_paragraph(text + FILLER)
    document.save(path)
    return path


@pytest.mark.parametrize("name", ["apiary.html", "apiary.docx"])
def test_a_section_before_the_first_heading_is_named_after_the_document(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
    embedder: SentenceTransformerEmbedder, name: str,
) -> None:
    """Cited, searched, opened or fetched, the opening section is '§ <title>' everywhere."""
    title = "Larkspur Apiary Notes"
    question = "What colour are the lids of the Larkspur hives?"
    path = _opening_without_heading(tmp_path / name, title,
                                    "The lids of the Larkspur hives are painted sky blue.")
    library = open_library(tmp_path_factory, embedder, "opening")
    try:
        assert library.ingest.files([path]).counts["added"] == 1
        [hit, *_] = library.searcher.search(question, k=3)
        assert hit.heading_path == [] and "sky blue" in hit.text, hit
        assert hit.pages == f"§ {title}" and hit.section == [title]  # CLI search, MCP search
        app = create_app(library, ui=False)
        with TestClient(app, base_url="http://localhost") as client:
            searched = client.get("/v1/search", params={"q": question, "k": 3}).json()
            assert searched["hits"][0]["pages"] == f"§ {title}", searched
            chat = app.state.chat
            thread, turn = ui_turn(app, library.settings.collection, question)
            numbers = [n for n, s in enumerate(turn.sources, start=1) if not s["heading_path"]]
            assert numbers, turn.sources
            cited = turn.sources[numbers[0] - 1]
            assert cited["pages"] == f"§ {title}", cited  # `ask`, the API and MCP cite this

            convs = UiConversations(library.store, chat.registry, chat.turns)
            opened = convs.open_source(thread, 1, numbers[0], UI_OWNER)
            assert f"_Section: {title}_" in opened.markdown and "untitled" not in opened.markdown

            body = client.get(f"/v1/documents/{cited['document_id']}/passages/"
                              f"{cited['parent_id']}").json()
            assert body["location"] == f"§ {title}" and body["heading_path"] == [], body
    finally:
        library.close()
