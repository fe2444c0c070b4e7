"""One label names a cited source in every interface (CLI, API, UI, MCP, OpenAI footnotes)."""

from __future__ import annotations

from archivist.events import Source
from archivist.types import section_of, source_label


def test_a_pdf_source_names_its_pages_and_the_section_of_the_cited_text() -> None:
    pdf = Source(document_id="d", document_name="guide.pdf", pages="p. 9",
                 heading_path=["How Archivist works", "Staying consistent"])
    assert pdf.label() == "guide.pdf, p. 9, § How Archivist works › Staying consistent"
    assert source_label({"document_name": "guide.pdf", "pages": "pp. 3-4"}) == "guide.pdf, pp. 3-4"


def test_a_document_without_pages_is_named_by_its_section_once() -> None:
    md = Source(document_id="d", document_name="guide.md",
                pages="§ Guide › Installation on Linux", heading_path=["Guide", "Installation"])
    assert md.label() == "guide.md, § Guide › Installation on Linux"
    assert source_label({"document_name": "notes.txt"}) == "notes.txt"
    web = {"document_name": "", "url": "https://example.org/a", "kind": "web",
           "heading_path": ["x"], "pages": ""}
    assert source_label(web) == "https://example.org/a"


def test_a_heading_finds_its_section_whatever_its_markup() -> None:
    sections = [["Guide"], ["Guide", "Install on Linux"], ["Guide", "Usage"]]
    assert section_of(sections, "Install** on  Linux") == ["Guide", "Install on Linux"]
    assert section_of(sections, "usage") == ["Guide", "Usage"]
    assert section_of(sections, "Details") is None  # an H4: no section of its own
    assert section_of(None, "Usage") is None and section_of(sections, "") is None
