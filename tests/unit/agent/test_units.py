"""Evidence units: cut by code from retrieved sections, scored, budgeted and numbered."""

from __future__ import annotations

import pytest

import archivist.agent.evidence.units as units_module
from archivist.agent.evidence.unit_split import split_headed_units, split_sentences, split_units
from archivist.agent.evidence.units import (
    Selection,
    Unit,
    bm25_scores,
    cut,
    leans_back,
    render_units,
    score_units,
    select_units,
    unit_evidence,
)
from archivist.agent.state import Evidence

SECTION = """## Staying consistent

A document is written as pending first. Its vectors follow, then it is marked ready.
If the process is killed, anything left half-done is purged when the library is next
opened. This keeps search free of partial documents.

- `archivist ingest` walks folders recursively.
- `archivist remove` takes a file name
  or an id prefix.

| setting | default |
| --- | --- |
| parent_min_chars | 2000 |
| child_chars | 500 |
"""


def _evidence(text: str, kind: str = "parent", pages: str = "p. 6", parent: str = "p1") -> Evidence:
    return Evidence(kind=kind, parent_id=parent, document_id="d1", document_name="guide.pdf",
                    pages=pages, page_start=6, page_end=6, sub_question=0, text=text,
                    heading_path=["How it works", "Staying consistent"])


def test_a_section_is_cut_into_sentences_items_and_rows_with_their_header() -> None:
    units = split_units(SECTION)
    kinds = [k for k, _, _ in units]
    assert kinds == ["sentence"] * 4 + ["item"] * 2 + ["row"] * 2
    assert units[2][1].startswith("If the process is killed") and "next opened." in units[2][1]
    assert units[5][1] == "- `archivist remove` takes a file name or an id prefix."
    assert units[6] == ("row", "| parent_min_chars | 2000 |", "| setting | default |")


def test_abbreviations_do_not_end_a_sentence() -> None:
    units = split_units("See e.g. the guide on p. 3 for details. Then run it.")
    assert [t for _, t, _ in units] == ["See e.g. the guide on p. 3 for details.", "Then run it."]


def test_an_abbreviation_after_a_bracket_does_not_end_a_sentence() -> None:
    text = "Rhiwallon (c. 1020 – c. 1069) was a king. He ruled (ca. 1063) with his brother."
    assert split_sentences(text) == ["Rhiwallon (c. 1020 – c. 1069) was a king.",
                                     "He ruled (ca. 1063) with his brother."]


def test_a_pdf_table_line_is_a_row_under_its_line_of_years() -> None:
    text = "2017 2016 2015\nPaid memberships at end of period 52,810 47,905 43,401\n"
    assert split_units(text) == [
        ("row", "Paid memberships at end of period 52,810 47,905 43,401", "2017 2016 2015")
    ]


def test_a_hit_inside_a_section_read_is_not_repeated() -> None:
    units = cut([_evidence("A document is written as pending first.", kind="hit"),
                 _evidence(SECTION)])
    texts = [u.text for u in units]
    assert texts.count("A document is written as pending first.") == 1
    assert units[0].source == 1  # sections come first
    # a chunk cut mid-sentence leaves no fragment beside its section's whole sentence
    edge = cut([_evidence("Its vectors follow, then it is marked ready. If the process is",
                          kind="hit"), _evidence(SECTION)])
    assert not [u.text for u in edge if u.text == "If the process is"]


def test_pronoun_and_connective_openings_lean_back() -> None:
    assert leans_back("This keeps search free.") and leans_back("However, it fails.")
    assert not leans_back("Archivist keeps search free.")


def test_bm25_prefers_the_unit_with_the_rare_query_terms() -> None:
    scores = bm25_scores("killed process purged", ["the library opens", "the process is "
                                                   "killed and purged", "a process"])
    assert scores.index(max(scores)) == 1 and scores[0] == 0


def test_units_render_numbered_with_their_section_and_no_file_or_page() -> None:
    evidence = [_evidence(SECTION)]
    selection = Selection([Unit("Its vectors follow.", "sentence", 0, 1)])
    block = render_units(selection, evidence)
    assert block.startswith('<passage n="1" section="How it works › Staying consistent">')
    assert "guide.pdf" not in block and "p. 6" not in block


def test_a_unit_maps_to_the_narrowest_known_pages() -> None:
    evidence = [_evidence(SECTION, pages="pp. 5-7"),
                _evidence("Its vectors follow, then it is marked ready.", kind="hit")]
    selection = Selection([Unit("Its vectors follow, then it is marked ready.", "sentence", 0, 1),
                           Unit("| child_chars | 500 |", "row", 0, 7, "| setting | default |")])
    assert unit_evidence(selection, evidence, 1)["pages"] == "p. 6"
    second = unit_evidence(selection, evidence, 2)
    assert second["pages"] == "pp. 5-7"
    assert second["text"] == "| setting | default |\n| child_chars | 500 |"


def test_a_unit_is_cited_under_the_deepest_heading_above_it() -> None:
    text = ("# Guide\n\nThis guide covers the toolkit.\n\n## Installation on Linux\n\n"
            "Run the setup script as root.\n\n## Usage\n\nStart it with one command.\n")
    sections = [["Guide"], ["Guide", "Installation on Linux"], ["Guide", "Usage"]]
    markdown = Evidence(kind="parent", parent_id="p1", document_id="d1",
                        document_name="guide.md", pages="§ Guide (+2 more)", page_start=None,
                        page_end=None, sub_question=0, text=text, heading_path=["Guide"],
                        sections=sections)
    units = cut([markdown])
    selection = Selection([u for u in units if "setup script" in u.text])
    cited = unit_evidence(selection, [markdown], 1)
    assert cited["heading_path"] == ["Guide", "Installation on Linux"]
    assert cited["pages"] == "§ Guide › Installation on Linux"
    # a PDF keeps its pages and names the section beside them
    pdf = {**markdown, "pages": "p. 6", "page_start": 6, "page_end": 6}
    cited = unit_evidence(Selection([u for u in cut([pdf]) if "Start it" in u.text]), [pdf], 1)
    assert (cited["pages"], cited["heading_path"]) == ("p. 6", ["Guide", "Usage"])
    # sections unknown (a library ingested before chunks carried them): the chunk's own
    old = {k: v for k, v in markdown.items() if k != "sections"}
    cited = unit_evidence(Selection([u for u in cut([old]) if "setup" in u.text]), [old], 1)
    assert (cited["pages"], cited["heading_path"]) == ("§ Guide (+2 more)", ["Guide"])


def test_a_unit_is_scored_under_the_heading_it_stands_under() -> None:
    text = ("## Backups\n\nDocuments ingested before the upgrade are ingested again.\n\n"
            "## Staying consistent\n\nIf the process is killed half way, the next start "
            "removes what was written.\n")
    assert [h for *_, h in split_headed_units(text)] == ["Backups", "Staying consistent"]
    units = cut([_evidence(text)])
    assert [u.heading for u in units] == ["Backups", "Staying consistent"]
    # "consistent" is only in the heading: without it, "ingested" (BM25) wins the question
    scored = score_units("How does it stay consistent if killed during an ingest?", units, None)
    best = max(scored, key=lambda u: u.score)
    assert best.text.startswith("If the process is killed")
    # a unit before any heading stands under its section's heading path
    assert cut([_evidence("Plain sentence here.")])[0].heading == "Staying consistent"


def test_a_sentence_is_shown_once_even_when_it_is_a_neighbours_context() -> None:
    # "Salt and Ember is a 1998 book ..." went to the 1.5B as passage 1 and again
    # as the context of passage 5, and the writer replied "[1][2]"
    section = ("Salt and Ember is a 1998 book of Welsh baking by Morwen Tasker. "
               "Its recipes suit busy weeknights and it sold 300,000 copies. "
               "Reviewers hailed it as a handbook for baking in Welsh kitchens.")
    chosen = select_units("Salt and Ember, a book of Welsh baking, sold how many copies?",
                          [_evidence(section)], None, budget_tokens=1000)
    shown = "\n".join(u.full_text() for u in chosen.units)
    assert [shown.count(s) for s in split_sentences(section)][:2] == [1, 1], shown
    assert all(shown.count(s) <= 1 for s in split_sentences(section)), shown
    merged = max(chosen.units, key=lambda u: len(u.full_text()))
    assert merged.full_text().index("1998") < merged.full_text().index("300,000")


def _album_and_singer() -> tuple[str, Evidence, Evidence]:
    """A two-hop question, the album's page and the singer's (which shares few words)."""
    album = _evidence("Hollow Lantern is the third studio album by singer-songwriter "
                      "T. Maren. The album was recorded in one week.", parent="album")
    singer = _evidence("Tobias Maren (born 1970) is a guitarist from Velmora, Ostland. "
                       "He tours with a brass band.", parent="singer")
    question = ("From what state is the singer-songwriter whose third studio album is "
                "Hollow Lantern?")
    return question, album, singer


def test_each_section_a_hop_found_shows_its_best_unit() -> None:
    # a bridge's page shares few words with the question: under half the best score, its
    # sentences were left out, and the writer saw what it had seen before the hop
    question, album, singer = _album_and_singer()
    plain = select_units(question, [album, singer], None, budget_tokens=500)
    assert all("Ostland" not in u.full_text() for u in plain.units)
    hop = select_units(question, [album, singer], None, budget_tokens=500, each_of=["singer"])
    shown = [u.full_text() for u in hop.units]
    assert sum("Ostland" in t for t in shown) == 1 and "brass band" not in " ".join(shown)
    assert hop.units[0].text == plain.units[0].text  # the question's best unit stays first


def test_a_floor_of_zero_fills_the_budget_best_first() -> None:
    question, album, singer = _album_and_singer()
    floored = select_units(question, [album, singer], None, budget_tokens=500)
    filled = select_units(question, [album, singer], None, budget_tokens=500, floor=0.0)
    assert len(filled.units) > len(floored.units)
    assert any("Ostland" in u.full_text() for u in filled.units)
    assert floored.units[0].text in filled.units[0].full_text()  # still best first
    tight = select_units(question, [album, singer], None, budget_tokens=20, floor=0.0)
    assert tight.tokens() <= 20 < filled.tokens()  # the budget still bounds it


def test_a_unit_stating_the_kind_of_thing_asked_is_preferred(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # HotpotQA: the birth date scored just under half the best unit, a sentence on the
    # election the question names, and the writer was never shown it
    sections = [_evidence("The founder of Korvath Mills left the mills when Korvath Mills "
                          "closed. Korvath Mills grinds flour for the northern towns."),
                _evidence("Before the mills, Jonas Brell was a soldier. Jonas Brell was born "
                          "on 4 May 1931 in Tessendorf.", parent="p2")]
    question = "In what year was the founder of Korvath Mills born?"

    def shown() -> list[str]:
        return [u.text for u in select_units(question, sections, None, budget_tokens=500).units]

    assert "Jonas Brell was born on 4 May 1931 in Tessendorf." in shown()
    monkeypatch.setattr(units_module, "KIND_WEIGHT", 0.0)
    assert "Jonas Brell was born on 4 May 1931 in Tessendorf." not in shown()
