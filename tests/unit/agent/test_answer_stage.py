"""The question read once, the answer stage's steps, and the one answer/abstain decision."""

from __future__ import annotations

from archivist.agent.answer import STRICTNESS, Checker, Draft, Tools, decide, run_steps
from archivist.agent.answer.shaping import quote_cited, without_markup, without_repeats
from archivist.agent.question import ParsedQuestion, parse_question, split_instructions
from archivist.agent.question.parsed import asks_for_a_kind, states_what_is_asked
from archivist.agent.state import Evidence


def _unit(text: str, document: str = "atlas.md", parent: str = "p1",
          headings: list[str] | None = None) -> Evidence:
    return Evidence(kind="hit", parent_id=parent, document_id="d1", document_name=document,
                    pages="", page_start=None, page_end=None, sub_question=0, text=text,
                    grade="relevant", heading_path=headings or [])


def _draft(question: str, text: str, units: list[Evidence]) -> Draft:
    return Checker(None).check(Draft(parse_question(question), text, units))


# --- the question, read once ----------------------------------------------------------
def test_instructions_are_set_apart_from_the_question() -> None:
    split = split_instructions(
        "What was Quillon Corp's FY2021 days sales outstanding? DSO is defined as: 365 * "
        "average receivables / revenue. Round your answer to one decimal place. Assume the "
        "standpoint of a credit analyst.")
    assert split.question == "What was Quillon Corp's FY2021 days sales outstanding?"
    assert split.definitions == ["DSO is defined as: 365 * average receivables / revenue."]
    assert split.output_format == ["Round your answer to one decimal place."]
    assert split.standpoint == ["Assume the standpoint of a credit analyst."]
    # an instruction first, and an abbreviation's full stop that ends no sentence
    first = split_instructions("Answer in USD millions. What did Marl Co. spend on research?")
    assert first.question == "What did Marl Co. spend on research?"
    assert first.instructions == ["Answer in USD millions."]
    # nothing that asks: the whole text is the question, nothing is lost
    assert split_instructions("Round to two decimals.").question == "Round to two decimals."
    assert split_instructions("How do I round to two decimals in R?").instructions == []
    # context a user gives is part of the question, not an instruction
    context = split_instructions("Context: we run Vellum 15. How do I upgrade it?")
    assert context.question == "Context: we run Vellum 15. How do I upgrade it?"
    assert split_instructions("What is Orrin's DIO? DIO = 365 * inventory / COGS.").definitions \
        == ["DIO = 365 * inventory / COGS."]


def test_a_question_is_parsed_once_into_plain_data() -> None:
    parsed = parse_question("Which lake is deeper, Lake Orrin or Vell Water?")
    assert parsed.kind == "verdict" and parsed.offered == ["Lake Orrin", "Vell Water"]
    assert "orrin" in parsed.subjects
    assert ParsedQuestion.from_dict(parsed.to_dict()) == parsed
    assert ParsedQuestion.from_dict({}, "In which year did the Orrin dam open?").kind == "year"
    assert parse_question("When did the Orrin dam open?").kind == "time"
    assert parse_question("How many bridges cross the Vell?").kind == "number"
    assert parse_question("In 1931, who designed the Orrin dam?").years == ["1931"]


def test_what_a_question_asks_for_is_a_year_a_number_or_anything() -> None:
    assert states_what_is_asked("When was the tower opened?", "It opened in 1932.")
    assert not states_what_is_asked("In which year was it opened?", "It opened in spring.")
    assert states_what_is_asked("How many people live there?", "About twelve thousand.")
    assert not states_what_is_asked("How much did it cost?", "It was expensive.")
    assert states_what_is_asked("Who opened it?", "The mayor did.")
    assert not asks_for_a_kind("What happens when the process is killed?")


# --- the steps -------------------------------------------------------------------------
def test_an_answer_of_citations_alone_becomes_the_cited_sentences() -> None:
    units = [_unit("Tomas Ridel is a painter.", parent="p1"),
             _unit("The Harl Gallery is in Vennick.\nIt first opened to visitors in 1911.",
                   parent="p2")]
    question = parse_question("In what year did the gallery showing Ridel open?")
    assert quote_cited(question, "[2]", units) == "It first opened to visitors in 1911. [2]"
    assert quote_cited(question, "The Harl Gallery [2].", units) == ""
    assert quote_cited(question, "[9]", units) == ""


def test_a_sentence_said_again_and_the_prompts_tags_are_dropped() -> None:
    line = "The ferry to Osk leaves at nine from the north pier [2]."
    assert without_repeats(f"Tickets cost five marks [1].\n\n{line} {line} {line[:-6]}") == (
        f"Tickets cost five marks [1].\n\n{line}")
    table = "| a | a |\n| a | a |"
    assert without_repeats(table) == table
    assert without_markup('<passage n="1" section="Osk"> The ferry leaves at nine. </passage>') \
        == "The ferry leaves at nine."


def test_steps_run_in_the_order_named_and_recheck_only_changed_sentences() -> None:
    units = [_unit("The Osk ferry leaves at nine from the north pier."),
             _unit("Tickets for the Osk ferry cost five marks.")]
    checker = Checker(None)
    said: list[str] = []
    draft = run_steps(
        Draft(parse_question("When does the Osk ferry leave, and what does it cost?"),
              "The Osk ferry leaves at nine from the north pier [2]. Tickets cost five "
              "marks [2].", units),
        ("recite_unsupported", "prune_citations"), Tools(checker),
        report=lambda name, what: said.append(name))
    assert said == ["recite_unsupported"]  # the first sentence now cites unit 1
    assert "north pier [1]" in draft.text and all(c.supported for c in draft.claims)
    # two sentences checked first, then only the one whose citation changed
    assert checker.checks == 3


# --- the decision ----------------------------------------------------------------------
def test_a_supported_answer_on_the_question_is_shown() -> None:
    units = [_unit("The Osk ferry leaves at nine from the north pier.")]
    draft = _draft("When does the Osk ferry leave?", "It leaves at nine [1].", units)
    decision = decide(draft, STRICTNESS["balanced"])
    assert decision.outcome == "answer" and decision.score == 1.0


def test_a_supported_answer_about_something_else_abstains() -> None:
    # a true, well-cited sentence on "capital" in a filing does not answer a question on a
    # country's capital: the units name none of the question's subjects
    units = [_unit("We may seek additional capital through debt offerings.", "filing.pdf")]
    draft = _draft("What is the capital of Velmora?",
                   "The company may seek additional capital through debt offerings [1].", units)
    assert draft.claims[0].supported
    decision = decide(draft, STRICTNESS["lenient"])
    assert decision.outcome == "abstain" and decision.addressing == 0.0


def test_an_answer_without_the_kind_asked_is_weaker() -> None:
    units = [_unit("The Harl Gallery in Vennick opened to visitors after a long restoration.")]
    draft = _draft("In what year did the Harl Gallery open?",
                   "The Harl Gallery opened to visitors after a long restoration [1].", units)
    decision = decide(draft, STRICTNESS["balanced"])
    assert decision.addressing == 0.5 and decision.outcome == "answer"
    assert decide(draft, STRICTNESS["strict"]).outcome == "abstain"


def test_an_answer_whose_sentences_are_mostly_unsupported_abstains() -> None:
    units = [_unit("The Osk ferry leaves at nine.")]
    draft = _draft("When does the Osk ferry leave?",
                   "The Osk ferry leaves at nine [1]. It is run by Brannock Lines [1]. "
                   "The crossing takes four hours [1].", units)
    assert [c.supported for c in draft.claims] == [True, False, False]
    assert decide(draft, STRICTNESS["balanced"]).outcome == "abstain"
    assert decide(draft, STRICTNESS["lenient"]).outcome == "answer"  # one in three: 0.33
    assert decide(_draft("When?", "", units), 0.0).outcome == "abstain"  # nothing stated


def test_a_term_the_librarys_titles_name_is_not_asked_back() -> None:
    from archivist.agent.question.analysis import Asked, defined_by, review
    from archivist.agent.state import QuestionAnalysis

    titles = ["Q Language FAQ q-faq.pdf", "Harbour timetable timetable.md"]
    assert defined_by("What is Q?", titles)
    assert not defined_by("What is Zorblax?", titles)
    unclear = QuestionAnalysis(is_clear=False, clarification_question="Which Q do you mean?",
                               sub_questions=["What is Q?"])
    # a capable model's ask-back is kept when the library cannot resolve the term ...
    assert review(Asked(question="What is Q?"), unclear, checks=False).clarification
    # ... and dropped when a title names it
    plan = review(Asked(question="What is Q?", defined=True), unclear, checks=False)
    assert not plan.clarification and plan.sub_questions == ["What is Q?"]


def test_a_question_naming_a_one_letter_subject_is_not_small_talk() -> None:
    from archivist.agent.question.analysis import is_small_talk

    assert not is_small_talk("What is Q?") and not is_small_talk("What is C?")
    assert is_small_talk("Hi Archivist!") and is_small_talk("Thanks, that was helpful")


def test_a_question_naming_nothing_is_not_defined_by_a_title() -> None:
    from archivist.agent.question.analysis import defined_by

    assert not defined_by("How much did it grow in 2017?", ["Annual report 2017 grow.pdf"])


def test_a_subject_named_only_by_the_section_read_counts() -> None:
    # the unit's own text and headings miss "Osk"; the section it was cut from names it
    units = [_unit("Boarding closes ten minutes before departure.", headings=["Ferries"])]
    section = _unit("## Osk ferry\nBoarding closes ten minutes before departure.",
                    headings=["Ferries"])
    draft = _draft("When does boarding for the Osk ferry close?",
                   "Boarding closes ten minutes before departure [1].", units)
    assert decide(draft, STRICTNESS["balanced"]).outcome == "abstain"
    draft.passages = [section]
    assert decide(draft, STRICTNESS["balanced"]).outcome == "answer"


def test_every_profile_cites_a_sentence_its_writer_left_uncited() -> None:
    # a mid-size model behind a server of unknown size gets the capable profile, and may
    # state a unit's fact without the [n] it was asked for
    from archivist.agent.policy import CAPABLE, SMALL

    units = [_unit("The Osk ferry leaves at nine from the north pier."),
             _unit("Tickets for the Osk ferry cost five marks.")]
    for policy in (CAPABLE, SMALL):
        draft = run_steps(_draft("When does the Osk ferry leave?",
                                 "The Osk ferry leaves at nine from the north pier.", units),
                          policy.answer_steps, Tools(Checker(None)))
        assert draft.text.endswith("north pier [1]."), (policy.name, draft.text)
        assert decide(draft, STRICTNESS["balanced"]).outcome == "answer", policy.name


def test_where_to_look_and_what_to_say_if_not_useful_are_instructions() -> None:
    """An analyst's pointers to the statements are instructions, as is a conditional "say so"."""
    for text, question in (
            ("What is Quillon Corp's FY2022 net PP&E? Calculate what was asked by utilizing the "
             "line items clearly shown in the balance sheet.", "What is Quillon Corp's FY2022 "
             "net PP&E?"),
            ("What is Quillon's FY2023 ROA? Give a response to the question by relying on the "
             "details shown in the balance sheet and the P&L statement.",
             "What is Quillon's FY2023 ROA?"),
            ("What is Quillon's FY2022 quick ratio? Address the question by adopting the "
             "perspective of a credit analyst.", "What is Quillon's FY2022 quick ratio?"),
            ("Has Quillon's inventory turnover risen in FY2022? If turnover means little for "
             "a firm of its kind, say so and give the reason.",
             "Has Quillon's inventory turnover risen in FY2022?")):
        split = split_instructions(text)
        assert split.question == question and len(split.instructions) == 1, text
    leading = split_instructions("Using only the information within the P&L statement, what "
                                 "is Quillon's FY2021 interest expense?")
    assert leading.question == "What is Quillon's FY2021 interest expense?"
    assert leading.standpoint == ["Using only the information within the P&L statement."]
    # a user's own context and conditions stay in the question
    for text in ("Use the data frame. How do I sort it?", "Using R, how do I read a CSV file?",
                 "If the build fails, what should I check?"):
        assert split_instructions(text).question == text
