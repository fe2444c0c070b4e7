"""The evidence and answer stages of the policy: subjects, the score gate, queries, years,
the second look (each case is what a real small model did)."""

from __future__ import annotations

from archivist.agent.evidence.gate import (
    answer_query,
    bridge_query,
    coverage,
    keyword_query,
    names_section,
    offered_sections,
    on_subject,
    restates,
    score_gate,
)
from archivist.agent.prompts import says_nothing
from archivist.agent.research.answer_checks import needs_second_look, years_not_covered
from archivist.agent.state import Evidence


def _evidence(text: str, document: str = "atlas.md", parent: str = "p1",
              grade: str = "relevant", headings: list[str] | None = None) -> Evidence:
    return Evidence(kind="hit", parent_id=parent, document_id="d1", document_name=document,
                    pages="", page_start=None, page_end=None, sub_question=0, text=text,
                    grade=grade, heading_path=headings or [])


def test_passages_must_name_the_questions_subjects() -> None:
    footnote = _evidence("the Northern Capital District is one of six districts")
    assert not on_subject("What is the capital of Veldoria?", [footnote])
    # a document's name counts: a table chunk of a 10-K need not repeat the company name
    table = _evidence("Paying subscribers at end of period 41,275", "BRIGHTWAVE_2020_10K.pdf")
    assert on_subject("How many paying subscribers did Brightwave have?", [table])
    assert on_subject("How can I keep my session for later?", [footnote])  # no named subject
    # five named subjects: a passage naming two of them is on the subject (HotpotQA)
    quist = _evidence("Dario Quist is the lead vocalist of the rock band Harrow Lane.")
    assert on_subject("Which singer is Canadian, Lena Farrow or Dario Quist?", [quist])
    assert not on_subject("Which singer is Canadian, Lena Farrow or Dario Quist?", [footnote])


def test_the_score_gate_keeps_on_topic_passages_in_rank_order() -> None:
    question = "How does Archivist stay consistent if it is killed during an ingest?"
    answer = _evidence("A document is pending until its vectors are written; on start, "
                       "Archivist repairs pending documents.", "03-how-it-works.md",
                       headings=["How it works", "Staying consistent"])
    other = _evidence("Espresso is brewed at nine bars of pressure.", "espresso.md")
    kept, dropped = score_gate(question, [other, answer])
    assert kept == [answer] and dropped == [other]
    assert coverage(question, "archivist stays consistent when killed during ingest") == 6 / 7
    assert coverage(question, "archivist ingest") == 2 / 7
    # at most `keep` passages, the best ranked first
    many = [_evidence(f"Archivist stays consistent during ingest {n}") for n in range(6)]
    assert score_gate(question, many, keep=2)[0] == many[:2]
    # nothing when the best passage holds too little of the question; else the passages
    # within `ratio` of the best one's coverage
    weak = _evidence("Archivist has a web UI.")
    assert score_gate(question, [weak], min_coverage=0.25)[0] == []
    assert score_gate(question, [many[0], weak], min_coverage=0.1, ratio=0.5)[0] == [many[0]]
    assert score_gate(question, [many[0], weak], min_coverage=0.1, ratio=0.0)[0] == [
        many[0], weak]


def test_the_search_s_first_hits_are_kept_once_any_hit_is_on_subject() -> None:
    question = "Who founded the studio that published Lanternfall?"
    studio = _evidence("Lanternfall was published by Copperwick Games in 2011.", parent="p1")
    founder = _evidence("Copperwick Games was founded by Idris Vane in Leeds.", parent="p2")
    tea = _evidence("Espresso is brewed at nine bars of pressure.", parent="p3")
    assert score_gate(question, [studio, founder, tea])[0] == [studio]
    # the next hop's page, ranked high by the search, is kept in rank order
    assert score_gate(question, [founder, studio, tea], top_hits=1)[0] == [founder, studio]
    assert score_gate(question, [studio, founder, tea], top_hits=2)[0] == [studio, founder]
    # a search that found nothing on the subject keeps nothing, whatever its ranking
    assert score_gate(question, [founder, tea], top_hits=2)[0] == []


def test_queries_worth_running() -> None:
    question = "What were Halvard's net sales in fiscal 2022?"
    assert restates("What were Halvard's net sales in fiscal 2022? (March quarter)", question, [])
    assert restates("halvard sales", question, ["Halvard sales"])
    assert not restates("Halvard annual report 2021", question, [])
    assert keyword_query("How do I install PostgreSQL on Debian?") == "install postgresql debian"


def test_years_no_passage_names() -> None:
    table = _evidence("Revenues [2017: $9,412,300; 2016: $7,905,118; 2015: $6,120,447]")
    assert years_not_covered("What were the revenues in 2019?", [table]) == (
        ["2019"], ["2015", "2016", "2017"])
    assert years_not_covered("What were the revenues in 2017?", [table]) == ([], [])
    assert years_not_covered("What were the revenues?", [table]) == ([], [])
    assert years_not_covered("Revenues in 2019?", [_evidence("no year here")]) == ([], [])


def test_a_second_look_only_when_the_answer_found_nothing_over_relevant_passages() -> None:
    relevant = [_evidence("Net sales of $8,412 million")]
    assert says_nothing("[BRIGHTWAVE_2020_10K.pdf, p. 23]") and says_nothing(" [a.md]. [b.md]")
    assert not says_nothing("41,275 thousand [BRIGHTWAVE_2020_10K.pdf, p. 23]")
    assert needs_second_look("The documents do not contain the net sales.", relevant)
    assert needs_second_look("[report.pdf, p. 4]", relevant)
    assert not needs_second_look("Net sales were $8,412 million [report.pdf].", relevant)
    context = [_evidence("Net sales of $8,412 million", grade="context")]
    assert not needs_second_look("The documents do not contain the net sales.", context)
    assert not needs_second_look("", relevant)


def test_the_bridge_query_names_what_the_pointed_passage_adds_to_the_question() -> None:
    question = "At the 2011 census, what was the population of the town where Ilse Varga was born?"
    pointed = [_evidence("Ilse Varga (born 2 June 1931 in Tessendorf, Lower Korvath) is a "
                         "retired astronomer.")]
    query = bridge_query(question, pointed)
    names, asked = query.split()[:3], query.split()[3:]
    assert names == ["Tessendorf", "Lower", "Korvath"]  # not "Ilse Varga", not "June"
    assert asked[:4] == ["2011", "census", "population", "town"] and "varga" not in asked
    assert bridge_query(question, [_evidence("Ilse Varga was an astronomer.")]) == ""
    # a name the question states as a possessive is the question's, not the passage's news
    possessive = "Where was Ilse Varga's first telescope built?"
    assert bridge_query(possessive, [_evidence("Varga built it in Tessendorf.")]) == (
        "Tessendorf first telescope built")


def test_a_hop_names_the_section_of_the_bridge_it_searched_for() -> None:
    query = "K Lorne Pale Rider Sessions Ada winter third studio album state"
    assert names_section(query, _evidence("...", headings=["K. Lorne"]))
    assert names_section("Harwick South Dorran 2011 census",
                         _evidence("...", headings=["Harwick, South Dorran"]))
    # another album's page, a page without a title, a title the names only half cover
    assert not names_section(query, _evidence("...", headings=["Morning (Elin Vast album)"]))
    assert not names_section(query, _evidence("..."))
    assert not names_section(query, _evidence("...", headings=["Ada Quint"]))


def test_the_answer_query_names_what_the_answer_adds_to_the_question() -> None:
    question = ("The Jade Lantern Caper is a 2003 comedy film with an actress who later "
                "starred in which series for six seasons?")
    query = answer_query(question, "Mira Tolven starred in The Jade Lantern Caper [1][2].")
    assert query.split()[:2] == ["Mira", "Tolven"] and "Jade" not in query
    assert "starred" in query.split() and "[1]" not in query
    assert answer_query(question, "The Jade Lantern Caper is a comedy [1].") == ""


def test_each_subject_a_question_offers_keeps_its_best_passage() -> None:
    question = "Which band was formed first, The Marrows or Velvet Orchard?"
    orchard = _evidence("Velvet Orchard is an American rock band, formed in early 2009 by Colm "
                        "Avery. The band was formed first as a side project.", parent="p1",
                        headings=["Velvet Orchard"])
    marrows = _evidence("The Marrows were an American rock band from Portland, formed in 1998.",
                        parent="p2", headings=["The Marrows"])
    other = _evidence("Fenwick is an American rock band.", parent="p3", headings=["Fenwick"])
    kept, dropped = score_gate(question, [orchard, other, marrows])
    assert marrows in kept and orchard in kept and other in dropped
    assert offered_sections(question, [orchard, other, marrows]) == {"p1", "p2"}
    # a question that offers nothing keeps by its words alone
    assert offered_sections("Which band was formed in 2009?", [orchard, marrows]) == set()
