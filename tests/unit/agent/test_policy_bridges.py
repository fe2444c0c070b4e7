"""A two-hop answer cites both hops: the passage that states it and the one that ties it
to what was asked (``policy.answer.bridges`` and ``bridge_citations``)."""

from __future__ import annotations

from archivist.agent.claims import check_claim, split_claims
from archivist.agent.policy.answer import (
    BRIDGE_UNITS,
    bridge_citations,
    bridges,
    past_the_bridge,
)
from archivist.agent.state import Evidence

QUESTION = "In what language did the author of The Salt Orchard write?"


def _evidence(text: str, parent: str, title: str) -> Evidence:
    return Evidence(kind="hit", parent_id=parent, document_id="d1", document_name="atlas.md",
                    pages="", page_start=None, page_end=None, sub_question=0, text=text,
                    grade="relevant", heading_path=[title])


ANSWER_HOP = _evidence("Mara Quell wrote all her novels in Latin.", "p2", "Mara Quell")
FIRST_HOP = _evidence("The Salt Orchard is a novel by Mara Quell.", "p1", "The Salt Orchard")
UNRELATED = _evidence("Ilse Varga wrote in German.", "p3", "Ilse Varga")


def _supported(units: list[Evidence]):  # the claim check the answer node passes in
    texts = [u["text"] for u in units]

    def supported(sentence: str, numbers: list[int]) -> bool:
        return check_claim(sentence, numbers, texts, None, question=QUESTION).supported

    return supported


def test_the_passage_linking_a_cited_one_to_the_question_is_its_bridge() -> None:
    seen = [UNRELATED, ANSWER_HOP, FIRST_HOP]
    # the first hop names the answer hop's section title and the question's subject
    assert bridges(QUESTION, [ANSWER_HOP], seen) == [3]
    # a cited passage that names every subject needs none
    assert bridges(QUESTION, [FIRST_HOP], seen) == []
    # a linked passage that names no subject of the question adds nothing
    quell_again = _evidence("Mara Quell was born in Tessendorf.", "p4", "Tessendorf")
    assert bridges(QUESTION, [ANSWER_HOP], [ANSWER_HOP, quell_again]) == []
    # nothing links: nothing taken (an unlinked passage may name the subject by chance)
    orchard_alone = _evidence("The Salt Orchard won a prize.", "p5", "Prizes")
    assert bridges(QUESTION, [ANSWER_HOP], [ANSWER_HOP, orchard_alone]) == []


def test_bridges_stop_once_every_subject_is_named_and_at_the_cap() -> None:
    question = "Did the authors of The Salt Orchard and Blue Harbour Nights write in Latin?"
    seen = [
        ANSWER_HOP,
        _evidence("The Salt Orchard is a novel by Mara Quell.", "p1", "The Salt Orchard"),
        _evidence("The Salt Orchard was reprinted by Mara Quell's press.", "p6", "Reprints"),
        _evidence("Blue Harbour Nights is a Mara Quell novel.", "p7", "Blue Harbour Nights"),
    ]
    taken = bridges(question, [ANSWER_HOP], seen)
    assert taken == [2, 4]  # the reprint adds no subject once the first hop named it
    assert len(taken) <= BRIDGE_UNITS


def test_a_supported_two_hop_sentence_also_cites_its_first_hop() -> None:
    units = [UNRELATED, ANSWER_HOP, FIRST_HOP]
    text, linked = bridge_citations(QUESTION, "Latin [2].", units, _supported(units))
    assert (text, linked) == ("Latin [2][3].", 1)
    # a sentence its own citations do not support is left to fail as written
    text, linked = bridge_citations(QUESTION, "Greek [2].", units, _supported(units))
    assert (text, linked) == ("Greek [2].", 0)
    # a sentence with no citation, or citing a passage on the subject, is left as is
    assert bridge_citations(QUESTION, "Latin.", units, _supported(units)) == ("Latin.", 0)
    on_subject = "The Salt Orchard is by Mara Quell [3]."
    assert bridge_citations(QUESTION, on_subject, units, _supported(units)) == (on_subject, 0)


def test_only_the_subjects_a_sentence_names_are_linked_and_all_for_a_bare_answer() -> None:
    seen = [UNRELATED, ANSWER_HOP, FIRST_HOP]
    # a bare answer stands for "the answer to the question is ..."
    assert bridges(QUESTION, [ANSWER_HOP], seen, "Latin") == [3]
    # a sentence naming a subject the cited passage lacks is linked to it
    assert bridges(QUESTION, [ANSWER_HOP], seen,
                   "Mara Quell, author of The Salt Orchard, wrote in Latin") == [3]
    # a short answer naming none of them stands for the answer too
    assert bridges(QUESTION, [ANSWER_HOP], seen, "Mara Quell wrote in Latin") == [3]
    # a longer sentence naming none is about something else ("She wrote a second book")
    assert bridges(QUESTION, [ANSWER_HOP], seen, "She wrote all of her novels in Latin") == []


ASKS_PAST = "Speakers at the Lakeside Forum included a painter known for her watercolour " \
            "depictions of what?"
FORUM = _evidence("Speakers at the Lakeside Forum included the poet Ben Moss and the painter "
                  "Ada Crane.", "f1", "Lakeside Forum")
CRANE = _evidence("Ada Crane was born in Tessendorf in 1950.\nShe is a painter known for her "
                  "watercolour depictions of harbour towns.", "c1", "Ada Crane (painter)")


def test_a_bare_answer_naming_the_described_bridge_becomes_its_pages_sentence() -> None:
    answer = past_the_bridge(ASKS_PAST, "Ada Crane [1]", [FORUM, CRANE])
    # the sentence stating what is asked, after the name it stands for, cited
    assert answer == ("Ada Crane: She is a painter known for her watercolour depictions of "
                      "harbour towns. [2]")
    # and the claim check reads it like any other
    texts = [FORUM["text"], CRANE["text"]]
    (sentence, numbers), = split_claims(answer)
    assert check_claim(sentence, numbers, texts, None, question=ASKS_PAST).supported


def test_an_answer_that_is_not_the_bridge_stays_as_written() -> None:
    units = [FORUM, CRANE]
    # the answer itself, cited from the bridge's page: no unit is titled with it
    assert past_the_bridge(ASKS_PAST, "Harbour towns [2]", units) == ""
    # a sentence, not a bare answer
    assert past_the_bridge(ASKS_PAST, "Ada Crane spoke at the Lakeside Forum in the spring "
                                      "of that year [1]", units) == ""
    # the bridge's page not among the units, or not stating what the question asks
    assert past_the_bridge(ASKS_PAST, "Ada Crane [1]", [FORUM]) == ""
    born = _evidence("Ada Crane was born in Tessendorf in 1950.", "c1", "Ada Crane")
    assert past_the_bridge(ASKS_PAST, "Ada Crane [1]", [FORUM, born]) == ""
    # an answer the question names, or a verdict between named subjects
    assert past_the_bridge("Which painter spoke at the Lakeside Forum, Ada Crane?",
                           "Ada Crane [1]", units) == ""
    assert past_the_bridge("Who was born first, Ada Crane or Ben Moss?", "Ada Crane [2]",
                           units) == ""
    # the cited unit is the bridge's own page
    assert past_the_bridge(ASKS_PAST, "Ada Crane [2]", [FORUM, CRANE]) == ""


def test_a_sentence_naming_the_bridge_is_quoted_as_it_is() -> None:
    named = _evidence("Ada Crane is a painter known for her watercolour depictions of harbour "
                      "towns.", "c1", "Ada Crane")
    assert past_the_bridge(ASKS_PAST, "Ada Crane [1]", [FORUM, named]) == (
        "Ada Crane is a painter known for her watercolour depictions of harbour towns. [2]")
