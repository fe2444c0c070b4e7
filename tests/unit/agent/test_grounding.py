"""An answer written from numbered units made final: turn-wide numbers, Sources, abstention."""

from __future__ import annotations

from archivist.agent.answer.grounding import (
    cite_sources,
    gather_units,
    no_supported_answer,
    shift_citations,
)
from archivist.agent.checks.claims import CheckedAnswer, Claim
from archivist.agent.prompts import abstains
from archivist.agent.state import Evidence, SubAnswer
from archivist.app.ui.render import mark_unsupported, with_markers
from archivist.events import unsupported_note


def _unit(text: str, pages: str, document: str = "guide.pdf") -> Evidence:
    return Evidence(kind="parent", parent_id=f"{document}-{pages}", document_id=document,
                    document_name=document, pages=pages, page_start=None, page_end=None,
                    sub_question=0, text=text, heading_path=["Guide"])


UNITS = [_unit("Pending first.", "p. 6"), _unit("Purged on open.", "p. 6"),
         _unit("Vectors second.", "p. 7"), _unit("Unrelated.", "p. 9")]


def test_citations_are_shifted_to_turn_wide_numbers() -> None:
    assert shift_citations("A [1]. B [2, 3].", 4) == "A [5]. B [6][7]."
    subs = [SubAnswer(index=0, question="q1", answer="A [1].", found=True,
                      budget_exhausted=False, units=UNITS[:2]),
            SubAnswer(index=1, question="q2", answer="B [1].", found=True,
                      budget_exhausted=False, units=UNITS[2:])]
    texts, units = gather_units(subs)
    assert texts == ["A [1].", "B [3]."] and units == UNITS


def test_cited_units_become_numbered_sources_and_the_text_follows() -> None:
    checked = CheckedAnswer([Claim("Vectors second.", [3], True, 0.9),
                             Claim("Purged on open.", [2, 1], True, 0.8),
                             Claim("Made up.", [9], False, 0.0, "cites a passage that does "
                                   "not exist")])
    text, sources, claims = cite_sources("Vectors second [3]. Purged on open [2][1]. Made "
                                         "up [9].", checked, UNITS)
    assert text == "Vectors second [1]. Purged on open [2]. Made up."
    assert [s.pages for s in sources] == ["p. 7", "p. 6"]  # units on one page share a line
    assert sources[1].passage == "Purged on open. … Pending first."
    assert [c["citations"] for c in claims] == [[1], [2], []]
    assert claims[2]["supported"] is False and claims[2]["reason"].startswith("cites a")


def test_an_answer_with_no_supported_claim_says_what_was_found() -> None:
    text = no_supported_answer("How is it kept consistent?", UNITS)
    assert abstains(text) and "How is it kept consistent?" in text
    assert '"Pending first." (guide.pdf, p. 6)' in text and "Vectors" not in text
    vetoed = no_supported_answer("How is it kept consistent?", UNITS, cited=[3, 9])
    assert vetoed.index(UNITS[2]["text"]) < vetoed.index(UNITS[0]["text"])  # cited first


def test_unsupported_sentences_are_marked_for_people() -> None:
    claims = [{"text": "Made up.", "citations": [1], "supported": False, "score": 0.2,
               "reason": "the cited passages do not say this"},
              {"text": "Fine.", "citations": [1], "supported": True, "score": 0.9}]
    assert unsupported_note(claims) == ("Not supported by the cited passages:\n- ⚠ Made up. "
                                        "(the cited passages do not say this)")
    assert unsupported_note(claims[1:]) == ""
    marked = mark_unsupported("Fine [1]. Made up [1].", claims)
    assert marked.startswith("Fine [1]. ⚠ Made up [1].")
    assert marked.endswith("- ⚠ Made up. (the cited passages do not say this)")


def test_numbered_citations_link_to_their_sources_line() -> None:
    sources = [{"document_name": "guide.pdf", "pages": "p. 7"},
               {"document_name": "guide.pdf", "pages": "p. 6"}]
    linked = with_markers("A [2]. B [1, 2]. C [7].", sources, 3)
    assert linked == ("A [\\[2\\]](#source-3-2). B [\\[1\\]](#source-3-1)[\\[2\\]](#source-3-2)"
                      ". C [7].")


def test_every_interface_carries_the_claims(capsys) -> None:
    from archivist import events
    from archivist.app.api.routes.openai import _footer
    from archivist.app.cli import agent as cli_agent

    source = {"document_id": "d", "document_name": "guide.pdf", "pages": "p. 6"}
    claims = [{"text": "Purged on open.", "citations": [1], "supported": True, "score": 0.8,
               "reason": ""},
              {"text": "Made up.", "citations": [1], "supported": False, "score": 0.2,
               "reason": "the cited passages do not say this"}]
    turn = [events.token("Purged on open [1]. Made up [1]."),
            events.Event("sources", {"sources": [source], "claims": claims}),
            events.done("t1", "Purged on open [1]. Made up [1].")]
    assert cli_agent.turn_json(iter(turn))["claims"] == claims
    cli_agent.render(iter(turn))
    printed = capsys.readouterr().out
    assert "Not supported by the cited passages:\n- ⚠ Made up. (the cited passages do not say " \
        "this)" in printed
    assert "[1] guide.pdf, p. 6" in printed
    footer = _footer([source], claims)
    assert "Not supported by the cited passages:\n- ⚠ Made up." in footer
    assert footer.endswith("Sources:\n[1] guide.pdf, p. 6")
