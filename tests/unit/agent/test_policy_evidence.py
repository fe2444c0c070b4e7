"""The evidence and answer stages of the policy: subjects, the score gate, queries, years,
the second look (each case is what a real small model did)."""

from __future__ import annotations

from archivist.agent.answer_kind import asks_for_a_kind, states_what_is_asked
from archivist.agent.policy.answer import (
    cites_the_subject,
    leaps,
    needs_second_look,
    quote_cited,
    without_markup,
    without_repeats,
    years_not_covered,
)
from archivist.agent.policy.evidence import (
    answer_query,
    bridge_query,
    coverage,
    fully_on_subject,
    grounded_query,
    keyword_query,
    names_section,
    offered_sections,
    on_subject,
    restates,
    score_gate,
)
from archivist.agent.prompts import says_nothing
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


def test_a_subject_counts_as_named_by_a_word_one_short_ending_apart() -> None:
    # "Germany's" and a typed "Wendhalis" against a passage on a German choir in Wendhal
    question = ("This German choir first based in Wendhalis is sponsored by Germany's "
                "largest flour mill, which grinds how many tonnes a year?")
    choir = _evidence("Wendhal Voices is a German amateur choir based in Wendhal, sponsored "
                      "by the Falkmoor mill since 2004.")
    assert on_subject(question, [choir])
    assert fully_on_subject(question, [choir])
    # a stem shorter than five letters, or an ending longer than two, names nothing else
    assert not fully_on_subject("Who founded Iran's oldest bank?", [
        _evidence("Ira Gershwin founded nothing.")])
    assert not fully_on_subject("Who discovered Germanium?", [
        _evidence("A German chemist discovered it in 1886.")])


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


def test_queries_worth_running() -> None:
    # the 1.5B copied the grading prompt's example as the next hop of a company question
    assert grounded_query("Tamsin Orwell university", "Brightwave paying subscribers 2020") == ""
    assert grounded_query("Brightwave  subscribers 2019", "Brightwave paying subscribers") == (
        "Brightwave subscribers 2019")
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


def test_an_answer_must_cite_passages_that_name_what_was_asked() -> None:
    # asked which GPU Archivist needs, the 1.5B answered with the Python version
    python = [_evidence("Archivist requires Python 3.11 or newer.", document="guide.pdf")]
    assert not cites_the_subject("Which GPU does Archivist require for training?", python)
    assert cites_the_subject("Which Python does Archivist require?", python)
    # headings and document names count, as for passages kept
    killed = [_evidence("If the process is killed half way, the next start removes it.",
                        document="archivist-guide.pdf", headings=["How Archivist works"])]
    assert cites_the_subject("How does Archivist stay consistent if killed?", killed)
    # of more than two subjects, half will do
    quist = [_evidence("Dario Quist was born in 1970.")]
    assert cites_the_subject("Who is older, Lena Farrow or Dario Quist?", quist)


def test_a_passage_naming_the_cited_section_links_a_two_hop_answer_to_the_question() -> None:
    question = "In what year was the founder of the Zelmar Observatory born?"
    bridge = _evidence("Ilse Varga (born 1931) was an astronomer.", parent="p2",
                       headings=["Ilse Varga"])
    first_hop = _evidence("The Zelmar Observatory was founded by Ilse Varga in 1968.",
                          parent="p1", headings=["Zelmar Observatory"])
    assert not cites_the_subject(question, [bridge])
    assert cites_the_subject(question, [bridge], seen=[first_hop, bridge])
    # the link must name the cited section's title, whole and as written
    near = _evidence("The Zelmar Observatory was founded by Ilse Vargas.", parent="p1")
    assert not cites_the_subject(question, [bridge], seen=[near])
    # the cited section's own sentences link nothing (the GPU answer stays refused)
    python = _evidence("Archivist requires Python 3.11 or newer.", parent="p3",
                       document="guide.pdf", headings=["Requirements"])
    same = _evidence("Requirements for a GPU are listed below.", parent="p3",
                     document="guide.pdf", headings=["Requirements"])
    assert not cites_the_subject("Which GPU does Archivist require for training?", [python],
                                 seen=[python, same])


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


def test_a_cited_passage_naming_another_sections_title_is_linked_to_it() -> None:
    question = "Who wrote a song after a festival in the Korvath District?"
    song = _evidence("The song was written by Mara Quell after a festival in Tessendorf.",
                     parent="p1", headings=["Tessendorf Waltz"])
    town = _evidence("Tessendorf is a town in the Korvath District.", parent="p2",
                     headings=["Tessendorf, Lower Korvath"])  # the title without qualifier
    assert not cites_the_subject(question, [song])
    assert cites_the_subject(question, [song], seen=[song, town])


def test_an_answer_of_citations_alone_becomes_the_cited_sentences() -> None:
    # the 1.5B replied "[3]" with the channel in unit 3 (after its context)
    units = [
        _evidence('Tobias "Toby" Renn is an American actor.', parent="p1"),
        _evidence("He played Owen Marsh in the series Harbor Lights.", parent="p1"),
        _evidence("Harbor Lights is an American television series created by Celia Dunmore.\n"
                  "The series was first aired by Falcon TV for six seasons.",
                  parent="p2"),
    ]
    question = "Toby Renn starred in a series that was first aired on what channel?"
    assert quote_cited(question, "[3]", units) == (
        "The series was first aired by Falcon TV for six seasons. [3]")
    # two units cited: a sentence from each, in the order cited; never past QUOTED_UNITS
    both = quote_cited(question, "[2][3] [1]", units)
    assert both.startswith("He played Owen Marsh in the series Harbor Lights. [2] The series")
    assert "[1]" not in both
    # an answer with words, a number past the units, or no citation: nothing to quote
    assert quote_cited(question, "Falcon TV [3].", units) == ""
    assert quote_cited(question, "[9]", units) == ""
    assert quote_cited(question, "", units) == ""


def test_a_quoted_sentence_states_the_kind_of_thing_asked() -> None:
    # "[1]" for the birth year, over a unit whose other sentence shares as many
    # of the question's words and holds no year
    unit = _evidence("Jonas Brell (4 May 1931 - 2 June 2009) was the fifth President of "
                     "Korvath.\nBefore the presidency, Brell resigned as commander of the Korvath "
                     "navy.")
    question = "What year was the man who resigned as president of Korvath born?"
    assert quote_cited(question, "[1]", [unit]).startswith("Jonas Brell (4 May 1931")
    assert quote_cited("Who commanded the navy before the presidency?", "[1]", [unit]) == (
        "Before the presidency, Brell resigned as commander of the Korvath navy. [1]")


def test_what_a_question_asks_for_is_a_year_a_number_or_anything() -> None:
    assert states_what_is_asked("When was the bridge opened?", "It opened in 1932.")
    assert not states_what_is_asked("In which year was it opened?", "It opened in spring.")
    assert states_what_is_asked("How many people live there?", "About twelve thousand.")
    assert not states_what_is_asked("How much did it cost?", "It was expensive.")
    assert states_what_is_asked("Who opened it?", "The mayor did.")
    assert states_what_is_asked("The plane was first developed when?", "In 1927.")
    assert not asks_for_a_kind("What happens when the process is killed?")


def test_a_quoted_sentence_keeps_no_citation_marker_of_its_own() -> None:
    # a paper's reference marker "[2]" quoted into the answer would cite unit 2
    units = [_evidence("Rye is baked for an hour."),
             _evidence("Sourdough starters ferment for twelve hours, as shown in [2].")]
    quoted = quote_cited("How long do sourdough starters ferment?", "[2]", units)
    assert quoted == "Sourdough starters ferment for twelve hours, as shown in (2). [2]"


def test_a_sentence_said_again_is_dropped() -> None:
    # curated run: the 1.5B wrote the CRAN sentence 36 times, until its reply cap
    cran = "The CRAN main site at WU in Austria can be found at the URL [2]."
    answer = f"Ada Brenn and Tomas Kell wrote the toolkit [1].\n\n{cran} {cran} {cran[:-4]}[3]."
    assert without_repeats(answer) == (
        f"Ada Brenn and Tomas Kell wrote the toolkit [1].\n\n{cran}")
    # a copy the reply cap cut off is a repeat too
    assert without_repeats(f"{cran} The CRAN main site at W") == cran
    assert without_repeats(f"A [1].\n\n{cran}\n\nThe CRAN main site") == f"A [1].\n\n{cran}"
    assert without_repeats(f"{cran}\nThe CRAN main site is in Vienna.").endswith("Vienna.")
    # a list item said again goes; other lines, short sentences and tables stay as written
    table = "| a | a |\n| a | a |\nYes. Yes."
    listed = f"- Install it with apt [1].\n  - Install it with apt [2].\n{table}"
    assert without_repeats(listed) == f"- Install it with apt [1].\n{table}"
    code = "Run it twice [1]:\n```r\nprint(x + y)\nprint(x + y)\n```\nprint x y again."
    assert without_repeats(code) == code


def test_the_prompts_tags_are_taken_out_of_an_answer() -> None:
    # the 1.5B opened an answer with the passage tag it had been shown
    echoed = ('<passage n="1" section="Harwick, South Dorran"> It is part of the Greywater '
              'Bay area.\nFilms were shot in Harwick. </passage>')
    assert without_markup(echoed) == ("It is part of the Greywater Bay area.\n"
                                      "Films were shot in Harwick.")
    composed = '<sub_answer question="q">\nIt is 5 [1].\n</sub_answer>\n\n```\n    x  = 1\n```'
    assert without_markup(composed) == "It is 5 [1].\n\n```\n    x  = 1\n```"
    plain = "Use `x < y` and <b>bold</b> [2]."
    assert without_markup(plain) == plain


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


def test_a_claim_leaps_when_its_passages_span_sections_or_miss_a_subject() -> None:
    question = "In what year was the founder of the Zelmar Observatory born?"
    founded = _evidence("The Zelmar Observatory was founded by Ilse Varga in 1968.", parent="p1")
    born = _evidence("Ilse Varga (born 1931) was an astronomer.", parent="p2")
    assert not leaps(question, [founded])  # one section, naming the subject
    assert leaps(question, [founded, born])  # two sections joined
    assert leaps(question, [born])  # the observatory is in none of them
    # the document's name counts as naming it, as for every subject check
    row = _evidence("| Subscription revenues | 9,412,300 |", document="brightwave-10k.pdf")
    assert not leaps("What were Brightwave's subscription revenues?", [row])


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
