"""The question stage of the policy: pure checks on a question's text, and the review of
a small model's analysis (each case is what a real 1.5B or 0.5B model did)."""

from __future__ import annotations

from archivist.agent.question.analysis import (
    Asked,
    asks_to_judge,
    clause_parts,
    dangling_reference,
    elliptical,
    first_question,
    is_small_talk,
    keep_subjects,
    keeps_the_question,
    looks_compound,
    may_be_ambiguous,
    review,
    subject_terms,
)
from archivist.agent.state import QuestionAnalysis


def _kinds(plan) -> list[str]:
    return [kind for kind, _detail, _extra in plan.steps]


def test_subjects_and_compound_questions() -> None:
    assert subject_terms("What is the capital of Veldoria?") == {"veldoria"}
    assert subject_terms("How do I save a data frame as a CSV file in R?") == {"csv", "r"}
    assert subject_terms("How can I keep my session for later?") == set()
    assert not looks_compound("How do I save a data frame as a CSV file in R?")
    assert looks_compound("What were the revenues and the net income in 2017?")
    assert looks_compound("What is JavaScript? What is Python?")
    assert may_be_ambiguous("Tell me about that thing") and may_be_ambiguous("Update it?")
    assert not may_be_ambiguous("How many paying subscribers did Brightwave have in 2017?")
    assert not may_be_ambiguous("What were Brightwave's sales and its operating profit?")


def test_small_talk() -> None:
    for small_talk in ("Hello!", "How are you today, my friend?", "Who are you?",
                       "Thanks, that was helpful"):
        assert is_small_talk(small_talk), small_talk
    assert not is_small_talk("How hot should the water be for green tea?")


def test_rewrite_and_dangling_reference_checks() -> None:
    assert keeps_the_question("Update postgres?", "How do I update PostgreSQL?")
    assert not keeps_the_question(
        "How many paying domestic subscribers did Brightwave count at the close of 2020?",
        "What is Brightwave?")
    assert not keeps_the_question("And in 2016?", "How many subscribers had Brightwave in 2017?")
    assert keeps_the_question("And in 2016?", "How many subscribers had Brightwave in 2016?")
    assert dangling_reference("How much did it grow in 2017?")
    assert dangling_reference("Where is that thing?")
    assert not dangling_reference("Is it possible to search scanned documents?")
    assert not dangling_reference("How many paid memberships were there at the end of 2017?")
    assert not dangling_reference("How does Archivist recover if it is killed?")


def test_clause_parts_follow_ups_and_subjects() -> None:
    assert clause_parts("What is JavaScript? What is Python?") == [
        "What is JavaScript?", "What is Python?"]
    assert clause_parts(
        "How many members in 2017, and how do I save a data frame as a CSV file in R?") == [
        "How many members in 2017?", "How do I save a data frame as a CSV file in R?"]
    assert clause_parts("What were the revenues and the net income?") == [
        "What were the revenues and the net income?"]
    assert elliptical("And in 2016?") and elliptical("What about R?")
    assert not elliptical("How many paying subscribers did Brightwave have in 2017?")
    assert keep_subjects("How many shares did Halvard buy back, and at what total cost?",
                         "What was the total cost?") == "What was the total cost? (Halvard)"


def test_no_profile_splits_a_one_part_question_and_a_capable_split_of_two_asks_stands() -> None:
    question = "How do I save a data frame as a CSV file in R?"
    split = QuestionAnalysis(sub_questions=["What is a CSV file?", "What is R?", "How to read?"])
    for checks in (True, False):
        plan = review(Asked(question=question), split, checks=checks)
        assert plan.sub_questions == [question] and "no_split" in _kinds(plan), checks
    two = "How do I save a data frame as a CSV file, and how do I read it back?"
    capable = review(Asked(question=two), split, checks=False)
    assert capable.sub_questions == split.sub_questions and "no_split" not in _kinds(capable)


def test_a_real_question_routed_direct_is_searched_on_a_small_model() -> None:
    tea = "How hot should the water be for green tea?"
    direct = QuestionAnalysis(route="direct", direct_reply="About 100°F.")
    small = review(Asked(question=tea), direct, checks=True)
    assert small.route == "documents" and small.sub_questions == [tea]
    assert [s[1] for s in small.steps if s[0] == "route"] == ["documents"]
    assert review(Asked(question=tea), direct, checks=False).route == "direct"
    hello = review(Asked(question="Hi there!"), direct, checks=True)
    assert hello.route == "direct" and hello.direct_reply == "About 100°F."


def test_clarification_by_code() -> None:
    unclear = QuestionAnalysis(is_clear=False, clarification_question="What is PostgreSQL?")
    named = review(Asked(question="How do I install PostgreSQL?"), unclear, checks=True)
    assert not named.clarification and "clear" in _kinds(named)
    vague = review(Asked(question="How do I install it?"), unclear, checks=True)
    assert vague.clarification == "What is PostgreSQL?"
    dangling = review(Asked(question="How much did it grow?"), QuestionAnalysis(), checks=True)
    assert '"it"' in dangling.clarification
    # not asked back once the user has been asked enough
    assert not review(Asked(question="How much did it grow?", may_ask=False),
                      QuestionAnalysis(), checks=True).clarification


def test_rewrites_losing_the_question_and_follow_ups() -> None:
    question = "How do I update a PostgreSQL cluster to a new major version?"
    lost = review(Asked(question=question),
                  QuestionAnalysis(sub_questions=["What is PostgreSQL?"]), checks=True)
    assert lost.sub_questions == [question] and "rewrite_dropped" in _kinds(lost)
    follow = review(Asked(question="And in 2016?", fresh=False, history=True,
                          previous="How many members in 2017?"),
                    QuestionAnalysis(sub_questions=["And in 2016?"]), checks=True)
    assert follow.sub_questions == ["And in 2016? (follow-up to: How many members in 2017?)"]


def test_a_web_route_is_kept_only_with_web_search_on() -> None:
    web = QuestionAnalysis(route="web", sub_questions=["Who won today?"])
    assert review(Asked(question="Who won today?"), web, checks=False).route == "documents"
    on = review(Asked(question="Who won today?", web_enabled=True), web, checks=False)
    assert on.route == "web"


def test_a_small_model_reads_a_follow_up_with_the_conversation_instead_of_asking_back() -> None:
    # the 0.5B model asked "What is the expected profit? What is the expected revenue? ..."
    # back about "they" after a question on apple trees, until its token cap
    looping = QuestionAnalysis(
        is_clear=False, clarification_question="What is the expected profit? " * 40)
    asked = Asked(question="And when are they harvested?", fresh=False, history=True,
                  previous="When are the apple trees pruned?")
    plan = review(asked, looping, checks=True)
    assert not plan.clarification and "clear" in _kinds(plan)
    assert plan.sub_questions == [
        "And when are they harvested? (follow-up to: When are the apple trees pruned?)"]
    pronoun = review(Asked(question="How do I update it?", fresh=False, history=True,
                           previous="How do I install PostgreSQL?"),
                     QuestionAnalysis(), checks=True)
    assert pronoun.sub_questions == [
        "How do I update it? (follow-up to: How do I install PostgreSQL?)"]
    # a capable model's question back is kept, cut to its first question
    capable = review(asked, looping, checks=False)
    assert capable.clarification == "What is the expected profit?"


def test_a_question_asked_back_is_one_bounded_question() -> None:
    assert first_question("Which cluster?  Which version?") == "Which cluster?"
    long = first_question("word " * 100)
    assert len(long) <= 202 and long.endswith("…")


def test_yes_no_and_choice_questions_ask_for_a_verdict() -> None:
    assert asks_to_judge("Are both magazines, the Harbour Review and Tin Lantern, British?")
    assert asks_to_judge("Which singer is Canadian, Lena Farrow or Dario Quist?")
    assert asks_to_judge("Which band was formed first The Marrows or Velvet Orchard ?")
    assert not asks_to_judge("What were Brightwave's sales in 2017?")
    assert not asks_to_judge("Which files does R read or write at startup?")  # no names
