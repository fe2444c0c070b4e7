"""A claim judging between a question's subjects is checked one subject at a time."""

from __future__ import annotations

import pytest

from archivist.agent.claims import check_claim, holds_property
from archivist.agent.policy.subjects import offered_subjects
from archivist.agent.verdicts import judged_by_code, verdict_problem

BANDS = "Which band was formed first, The Exies or Circus Diablo?"
EXIES = "The Exies were an American rock band from Los Angeles, California, formed in 1997."
DIABLO = "Circus Diablo is an American rock band, formed in early 2006 by Billy Morrison."
SINGERS = "Which singer is American, Mark King or Nick Hexum?"
KING = "Mark King (born 20 October 1958) is an English musician."
HEXUM = "Nick Hexum (born April 12, 1970) is an American singer, songwriter and rapper."
AIRPORTS = ("Are Watertown International Airport and Alexandria International Airport both "
            "airports in the same state?")
WATERTOWN = "Watertown International Airport is a public use airport in Jefferson County, New York."
ALEXANDRIA = ("Alexandria International Airport is a public use airport in Rapides Parish, "
              "Louisiana.")


def problem(claim: str, cited: list[str], question: str) -> str:
    return verdict_problem(claim, cited, question, holds=holds_property)


@pytest.mark.parametrize(("question", "subjects"), [
    (BANDS, ["Exies", "Circus Diablo"]),
    (SINGERS, ["Mark King", "Nick Hexum"]),
    (AIRPORTS, ["Watertown International Airport", "Alexandria International Airport"]),
    ("Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?",
     ["Woman's Viewpoint", "Pick Me Up"]),
    ("Which plant is larger, the Pterocarya or the Cotula?", ["Pterocarya", "Cotula"]),
    # no verdict asked, or fewer than two subjects offered: nothing to judge between
    ("What were Amcor's net sales in fiscal 2023 and 2022?", []),
    ("Who directed Maximum Overdrive?", []),
    ("Does the director Puneet Sira have an OBE?", []),
])
def test_the_subjects_a_question_offers(question: str, subjects: list[str]) -> None:
    assert offered_subjects(question) == subjects


def test_a_property_is_read_in_the_named_subjects_own_passage() -> None:
    # joined, the two units hold "American"; Mark King's own says "English"
    assert "Mark King" in problem("Mark King is American.", [KING, HEXUM], SINGERS)
    assert problem("Nick Hexum is American.", [HEXUM], SINGERS) == ""
    assert problem("Nick Hexum is American.", [KING, HEXUM], SINGERS) == ""


def test_a_verdict_in_time_must_agree_with_each_subjects_years() -> None:
    assert problem("The Exies were formed first.", [EXIES, DIABLO], BANDS) == ""
    assert "do not bear this out" in problem("Circus Diablo was formed first.",
                                             [EXIES, DIABLO], BANDS)
    assert problem("Circus Diablo was formed later than The Exies.", [DIABLO, EXIES], BANDS) == ""
    # the rival's year is not among the cited passages
    assert "Circus Diablo" in problem("The Exies were formed first.", [EXIES], BANDS)
    assert "no cited passage gives a year" in problem(
        "The Exies were formed first.", [EXIES, "Circus Diablo is an American rock band."],
        BANDS)


def test_the_same_thing_must_be_said_of_every_subject_and_named() -> None:
    both_new_york = "Yes, both airports are in the same state, New York."
    assert "Alexandria" in problem(both_new_york, [WATERTOWN, ALEXANDRIA], AIRPORTS)
    assert problem("Watertown International Airport and Alexandria International Airport are "
                   "in the same state.", [WATERTOWN, ALEXANDRIA], AIRPORTS) \
        == "it does not say what they share"
    # a negated claim needs its subjects named, not the property said of each
    assert problem("No, Watertown International Airport is in New York and Alexandria "
                   "International Airport is in Louisiana.", [WATERTOWN, ALEXANDRIA],
                   AIRPORTS) == ""


def test_a_weighed_verdict_needs_each_subjects_passage() -> None:
    question = "Which plant is larger, the Pterocarya or the Cotula?"
    trees, herbs = "Pterocarya is a genus of trees.", "Cotula is a genus of small herbs."
    assert "Cotula" in problem("Pterocarya is larger.", [trees], question)
    # code cannot weigh "trees" against "small herbs": that is the verification call's
    assert problem("Pterocarya is larger.", [trees, herbs], question) == ""


def test_a_claim_about_no_offered_subject_is_left_to_the_other_checks() -> None:
    assert problem("Both are rock bands.", [EXIES, DIABLO], BANDS) == ""
    assert problem("Mark King is American.", [KING], "Who is Mark King?") == ""


def test_the_claim_check_reports_why() -> None:
    claim = check_claim("Mark King is American [1][2].", [1, 2], [KING, HEXUM], None,
                        question=SINGERS)
    assert not claim.supported
    assert claim.reason == "the cited passages on Mark King do not say this of it"
    assert check_claim("Nick Hexum is American [2].", [2], [KING, HEXUM], None,
                       question=SINGERS).supported


def test_a_verdict_citing_one_subject_is_completed_by_the_others_passage() -> None:
    from archivist.agent.citations import recite_unsupported
    question = "Who is the oldest, Sid Haig or Vic Darchinyan?"
    units = ["Vic Darchinyan (born 7 January 1976) is an Armenian professional boxer.",
             "Sid Haig (born July 14, 1939) is an American actor.",
             "Sid Haig's roles include Captain Spaulding in films of the 2000s."]
    answer, changed = recite_unsupported("Sid Haig is the oldest, born in 1939 [2].", units,
                                         None, question=question)
    assert changed == 1 and answer == "Sid Haig is the oldest, born in 1939 [2][1]."


def test_a_passage_names_a_person_in_full_and_pruning_keeps_the_rivals_year() -> None:
    from archivist.agent.citations import needed_citations
    # "King" alone is not Mark King: the property must be said of him by name
    kings = "King Charles was an American-born monarch."
    assert "Mark King" in problem("Mark King is American.", [KING, kings], SINGERS)
    # Haig's unit holds every word of the claim; Darchinyan's year is what makes it true
    question = "Who is the oldest, Sid Haig or Vic Darchinyan?"
    units = ["Vic Darchinyan (born 7 January 1976) is an Armenian professional boxer.",
             "Sid Haig (born July 14, 1939) is the oldest of the cast, an American actor."]
    assert needed_citations("Sid Haig is the oldest, born in 1939.", [2, 1], units, None,
                            question=question) == [2, 1]


def test_only_a_verdict_code_cannot_read_goes_to_the_verification_call() -> None:
    assert judged_by_code("Sid Haig is the oldest.", "Who is the oldest, Sid Haig or Vic "
                          "Darchinyan?")
    assert judged_by_code("Yes, both are in the same state, New York.", AIRPORTS)
    assert not judged_by_code("Pterocarya is larger.", "Which plant is larger, the Pterocarya "
                              "or the Cotula?")
    assert not judged_by_code("Stephen King directed it.", "Who directed the film shot there?")
