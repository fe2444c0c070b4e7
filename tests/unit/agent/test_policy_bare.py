"""Bare answers (``policy/bare.py``): which the code sees linked to the question."""

from __future__ import annotations

from archivist.agent.policy.bare import answer_unlinked, as_answer, bare_answer
from archivist.agent.state import Evidence


def _unit(text: str, title: str = "Oskar Brand") -> Evidence:
    return Evidence(kind="hit", parent_id=title, document_id="d", document_name="d.md",
                    pages="", text=text, heading_path=[title])


BOOKS = "What language were books being translated into during the era of Oskar Brand?"


def test_a_bare_answer_is_a_short_name_the_question_does_not_give() -> None:
    assert bare_answer("Latin [1].", BOOKS) == "Latin"
    assert bare_answer("- Latin [1]", BOOKS) == bare_answer("2. Latin [1]", BOOKS) == ""
    assert bare_answer("Oskar Brand [1]", BOOKS) == ""  # the question's own words
    assert bare_answer("Books were translated into Latin in his era [1].", BOOKS) == ""


def test_a_bare_answer_in_a_sentence_about_something_else_is_unlinked() -> None:
    gloss = _unit("Oskar Brand was a scholar of Vellmar. His nickname was Magister "
                  "(Latin for teacher).")
    assert answer_unlinked(BOOKS, "Latin [1]", [gloss])


def test_a_sentence_stating_what_is_asked_links_the_answer() -> None:
    stated = _unit("In the era of Oskar Brand, books were being translated into Latin.")
    assert not answer_unlinked(BOOKS, "Latin [1]", [stated])
    ceo = _unit("Vellmar Foods CEO Ada Brun said the year went well.", "Results")
    assert not answer_unlinked("Who is the CEO of Vellmar Foods?", "Ada Brun [1]", [ceo])


def test_half_of_the_question_is_wanted_not_one_word() -> None:
    # a cast list names the star and shares one word ("stars") with the question
    cast = _unit("The film Riverlight stars Ben Moss, Ada Crane and Ida Holm in lead roles.",
                 "Riverlight")
    band = "What is the name of the pop band founded by one of the stars of Riverlight?"
    assert answer_unlinked(band, "Ida Holm [1]", [cast])


def test_sentences_and_verdicts_are_not_bare_answers() -> None:
    gloss = _unit("His nickname was Magister (Latin for teacher).")
    assert not answer_unlinked(BOOKS, "Books were translated into Latin [1].", [gloss])
    formed = _unit("The Exies formed in 1997.", "The Exies")
    assert not answer_unlinked("Which band was formed first, The Exies or Circus Diablo?",
                               "The Exies [1]", [formed])


def test_a_bare_answer_states_that_it_answers_the_question() -> None:
    assert as_answer("Latin [1]", BOOKS) == "The answer to the question is Latin."
    sentence = "Books were translated into Latin [1]."
    assert as_answer(sentence, BOOKS) == sentence
