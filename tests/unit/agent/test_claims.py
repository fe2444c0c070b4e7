"""Every sentence of an answer checked against the units it cites."""

from __future__ import annotations

from archivist.agent.checks.citations import (
    attribute_uncited,
    needed_citations,
    prune_citations,
    recite_unsupported,
)
from archivist.agent.checks.claims import (
    check_answer,
    check_claim,
    is_gap,
    missing_facts,
    parse_citations,
    split_claims,
    strip_citations,
    unsaid_subjects,
    word_coverage,
)

UNITS = [
    "A document is written as pending first, then its vectors, then it is marked ready.",
    "Anything left half-done, even by kill -9, is purged when the library is next opened.",
    "2017 2016 2015\nPaid memberships at end of period 52,810 47,905 43,401",
]


def test_citations_are_parsed_in_every_form() -> None:
    assert parse_citations("x [2] y [1, 3] z [4-6] [2]") == [2, 1, 3, 4, 5, 6]
    assert parse_citations("no numbers [guide.pdf, p. 3]") == []
    assert strip_citations("It is purged [2]. ") == "It is purged."


def test_an_answer_is_cut_into_claims_with_their_citations() -> None:
    answer = ("Documents are written as pending first [1]. Leftovers are purged on the next "
              "open. [2] The documents do not contain the exact timing.\n\n- A row [3]")
    claims = split_claims(answer)
    assert [c for _, c in claims] == [[1], [2], [3]]
    assert claims[1][0].startswith("Leftovers are purged") and "[2]" in claims[1][0]


def test_a_sentence_without_a_number_takes_the_one_that_closes_its_paragraph() -> None:
    claims = split_claims("Vectors come second. Then the document is marked ready [1].")
    assert [c for _, c in claims] == [[1], [1]]


def test_gaps_are_not_claims() -> None:
    assert is_gap("The documents do not contain the year it was founded.")
    assert is_gap("The passages do not state the price [2].")
    assert not is_gap("The documents are purged on open [2].")


def test_numbers_and_names_must_appear_in_the_cited_units() -> None:
    assert missing_facts("Netflix had 52,810 paid memberships in 2017.", UNITS[2],
                         "How many memberships did Netflix have?") == []
    assert missing_facts("It had 57,834 memberships in 2018.", UNITS[2]) == ["57,834", "2018"]
    assert missing_facts("The library is purged by Qdrant Edge.", UNITS[1]) == ["Qdrant", "Edge"]
    assert missing_facts("There were 3 steps.", "three steps") == []
    assert missing_facts("He was picked 2 times.", "a two-time Gold Anchor selection") == []


def test_citation_problems_fail_before_any_scoring() -> None:
    uncited = check_claim("Half-done documents are purged.", [], UNITS, None)
    assert not uncited.supported and uncited.reason == "cites no passage"
    ghost = check_claim("Purged [9].", [9], UNITS, None)
    assert ghost.reason == "cites a passage that does not exist"
    words = check_claim("Anything left half-done is purged when the library is next opened "
                        "[2].", [2], UNITS, None)
    assert words.supported and words.score == 1.0  # without a model: word coverage alone


def test_a_sentence_left_uncited_is_given_the_unit_that_supports_it() -> None:
    # a small model wrote the right sentence and no [n]: code cites the unit that holds it
    answer = ("Netflix had 52,810 paid memberships at the end of 2017. "
              "It also sold 900 bicycles.")
    cited, given = attribute_uncited(answer, UNITS, None,
                                     question="How many paid memberships did Netflix have?")
    assert given == 1
    assert cited.startswith("Netflix had 52,810 paid memberships at the end of 2017 [3].")
    checked = check_answer(cited, UNITS, None, question="How many paid memberships?")
    assert [c.supported for c in checked.claims] == [True, False]  # no unit holds the 900
    assert checked.claims[1].reason == "cites no passage"
    # a sentence that already cites keeps its own numbers
    assert attribute_uncited("Purged when next opened [1].", UNITS, None) == (
        "Purged when next opened [1].", 0)
    # a sentence that would borrow the next one's number is given its own unit instead
    composed, given = attribute_uncited(
        "Netflix had 52,810 paid memberships in 2017. Leftovers are purged when the library "
        "is next opened [2].", UNITS, None)
    assert given == 1 and composed.startswith("Netflix had 52,810 paid memberships in 2017 [3].")
    # an uncited sentence is cited where it stands, not where an earlier one shares its start
    twice = "Netflix had 52,810 paid memberships [3]. Netflix had 52,810 paid"
    cited, given = attribute_uncited(twice, UNITS, None)
    assert (cited, given) == (f"{twice} [3]", 1)


HOPS = [
    "Elections were held on 31 July 2000, after Edvin Halloran resigned as president.",
    "Edvin Halloran was born on 15 June 1924 in Dunmore.",
    "The Korvath Assembly elects the president for a seven-year term.",
]


def test_a_wrong_number_is_replaced_by_the_unit_that_holds_the_claim() -> None:
    answer = "Edvin Halloran was born on 15 June 1924 in Dunmore [3]."
    assert not check_answer(answer, HOPS, None).any_supported
    recited, given = recite_unsupported(answer, HOPS, None)
    assert (recited, given) == ("Edvin Halloran was born on 15 June 1924 in Dunmore [2].", 1)
    assert check_answer(recited, HOPS, None).any_supported


def test_a_claim_that_joins_two_facts_cites_the_two_units_that_hold_them() -> None:
    question = "In what year was the man who resigned as president of Korvath born?"
    answer = "Edvin Halloran, who resigned as president in 2000, was born in 1924 [1]."
    # neither unit alone holds both years; the cited one and the one that completes it do
    recited, given = recite_unsupported(answer, HOPS, None, question=question)
    assert given == 1 and recited.endswith("was born in 1924 [1][2].")
    claim = check_answer(recited, HOPS, None, question=question).claims[0]
    assert claim.supported and claim.citations == [1, 2]


def test_a_claim_no_unit_supports_keeps_its_citation_and_fails() -> None:
    answer = "Halloran was born in Velmora in 1930 [2]. He resigned in 2000 [1]."
    recited, given = recite_unsupported(answer, HOPS, None)
    assert (recited, given) == (answer, 0)  # the first names what no unit holds
    assert [c.supported for c in check_answer(recited, HOPS, None).claims] == [False, True]


def test_a_sentence_cites_only_the_units_that_hold_it() -> None:
    # the model cited three units for a sentence one of them states
    answer = "Edvin Halloran was born on 15 June 1924 in Dunmore [1][2][3]. He resigned [1]."
    pruned, dropped = prune_citations(answer, HOPS, None)
    assert dropped == 2
    assert pruned == "Edvin Halloran was born on 15 June 1924 in Dunmore [2]. He resigned [1]."
    assert check_answer(pruned, HOPS, None).claims[0].supported


def test_a_claim_that_joins_two_facts_keeps_both_units_and_drops_the_third() -> None:
    question = "In what year was the man who resigned as president of Korvath born?"
    claim = "Edvin Halloran, who resigned as president in 2000, was born in 1924."
    assert needed_citations(claim, [3, 1, 2], HOPS, None, question=question) == [1, 2]


def test_a_comparison_keeps_the_unit_on_each_subject_the_question_names() -> None:
    # a yes/no question lends the verdict none of its names: each unit is needed
    units = ["Tin Lantern! is a British weekly women's magazine.",
             "The Harbour Review was a British magazine founded in 1923."]
    question = "Are Tin Lantern and The Harbour Review both British magazines?"
    claim = "Yes, Tin Lantern and The Harbour Review are both British magazines."
    assert not check_claim(claim, [1], units, None, question=question).supported
    assert check_claim(claim, [1, 2], units, None, question=question).supported
    assert needed_citations(claim, [1, 2], units, None, question=question) == [1, 2]


def test_an_unsupported_claim_keeps_every_citation() -> None:
    answer = "Halloran was born in Velmora in 1930 [1][2]."
    assert prune_citations(answer, HOPS, None) == (answer, 0)


def test_a_small_number_counts_written_either_way() -> None:
    unit = ["He was a two-time Gold Anchor selection."]
    assert word_coverage("2 times", unit[0]) == 1.0
    assert word_coverage("He was selected two times", "Selected 2 times.") == 1.0
    assert check_claim("2 times [1]", [1], unit, None).supported
    assert not check_claim("3 times [1]", [1], unit, None).supported


def test_a_function_the_cited_unit_does_not_name_is_missing() -> None:
    # the 1.5B's "use `read.csv` or `read.csv2`" cited a unit naming read.csv alone
    unit = "Convenience functions `read.csv` and `read.delim` provide arguments to `read.table`."
    assert missing_facts("Use `read.csv` or `read.csv2`.", unit) == ["read.csv2"]
    assert missing_facts("Use `read.csv()` to read it.", unit) == []
    assert missing_facts("Use `as.numeric(levels(f))[f]`.", "as.numeric(as.character(f))") \
        == ["levels"]
    assert missing_facts("Call `read.csv2`.", unit, "What does `read.csv2` do?") == []
    assert not check_claim("Use `read.csv` or `read.csv2` [1].", [1], [unit], None).supported


def test_a_question_asking_for_a_verdict_lends_the_claim_none_of_its_words() -> None:
    # the 1.5B: "Lena Farrow is Canadian" over "a Scottish musician"; "Canadian"
    # was excused as a word of the question, which asked exactly that
    unit = "Lena Farrow (born 20 October 1958) is a Scottish musician."
    choice = "Which singer is Canadian, Lena Farrow or Dario Quist?"
    assert missing_facts("Lena Farrow is Canadian.", unit, choice) == ["Canadian"]
    assert missing_facts("No, Lena Farrow is not Canadian.", unit,
                         "Is Lena Farrow Canadian?") == ["Canadian"]
    # a question asking what: its words are given (the unit need not repeat them)
    assert missing_facts("The Scottish musician was born in 1958.", unit,
                         "In what year was the Scottish musician of Harrow Lane born?") == []


BRIDGE = "Which engineer designed the Korvath Bridge?"
ELSEWHERE = "Mira Tollan designed the harbour lighthouse of Dunmore in 1931."
ON_SUBJECT = "The Korvath Bridge was designed by Mira Tollan and opened in 1931."


def test_a_bare_answer_needs_the_year_the_question_names() -> None:
    # the rule in use: the passage holds the answer but not the year asked about
    question = "How many members did the Korvath Rowing Club count in 2019?"
    older = "The Korvath Rowing Club counted 412 members in 2015."
    assert unsaid_subjects("412", older, question) == ["2019"]
    off = check_claim("412 [1].", [1], [older], None, question=question)
    assert not off.supported and off.reason == "the cited passages do not state 2019"
    assert check_claim("412 [1].", [1], [older.replace("2015", "2019")], None,
                       question=question).supported
    # a sentence restating the subject is left to the other checks
    assert unsaid_subjects("The Korvath Rowing Club had 412 members.", older, question) == []


def test_with_subjects_a_bare_answer_needs_what_the_question_asks_about() -> None:
    # the passage holds the answer's words but names nothing the question is about
    assert unsaid_subjects("Mira Tollan.", ELSEWHERE, BRIDGE, "subjects") == [
        "Korvath Bridge (what the question asks about)"]
    assert missing_facts("Mira Tollan.", ELSEWHERE, BRIDGE, bare_answer="subjects")
    assert not missing_facts("Mira Tollan.", ON_SUBJECT, BRIDGE, bare_answer="subjects")
    # not in use: the answer stands on its words alone
    assert unsaid_subjects("Mira Tollan.", ELSEWHERE, BRIDGE) == []
    assert check_claim("Mira Tollan [1].", [1], [ELSEWHERE], None, question=BRIDGE).supported


def test_with_subjects_a_sentence_restating_the_subject_is_unaffected() -> None:
    claim = "Mira Tollan designed the Korvath Bridge."
    assert unsaid_subjects(claim, ELSEWHERE, BRIDGE, "subjects") == []
    assert missing_facts(claim, ELSEWHERE, BRIDGE, bare_answer="subjects") == \
        missing_facts(claim, ELSEWHERE, BRIDGE, bare_answer="off")
    # a question naming no subject, and a claim longer than a bare answer, are left alone
    assert unsaid_subjects("Mira Tollan.", ELSEWHERE, "who designed the lighthouse?",
                           "subjects") == []
    long = "The engineer who designed it trained in Dunmore and worked there for years."
    assert unsaid_subjects(long, ELSEWHERE, BRIDGE, "subjects") == []


def test_with_subjects_a_multi_hop_answer_takes_its_subject_from_any_unit_it_cites() -> None:
    # the bridge page holding the answer does not name the question's first subject
    question = "Who founded the company that built the Korvath Bridge?"
    units = ["The Korvath Bridge was built by Ostmark Steelworks.",
             "Ostmark Steelworks was founded by Per Alving."]
    assert missing_facts("Per Alving.", units[1], question, bare_answer="subjects")
    assert not missing_facts("Per Alving.", "\n".join(units), question, bare_answer="subjects")


def test_a_verification_reply_vetoes_only_when_it_says_no() -> None:
    from archivist.agent.checks.verifier import says_no
    assert says_no("No") and says_no("no.") and says_no("**No**, the passage") and says_no(" NO")
    assert not says_no("Yes") and not says_no("Nothing") and not says_no("") \
        and not says_no("Not sure")
