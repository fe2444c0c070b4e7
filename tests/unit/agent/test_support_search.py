"""A claim that names what its cited passages do not is searched for, in code."""

from __future__ import annotations

from archivist.agent.checks.claims import check_answer
from archivist.agent.research.support import search_support
from archivist.agent.state import Evidence


def _evidence(text: str, parent: str, title: str) -> Evidence:
    return Evidence(kind="hit", parent_id=parent, document_id=parent, document_name="wiki.md",
                    pages="", page_start=None, page_end=None, sub_question=0, text=text,
                    grade="relevant", heading_path=[title])


HALL = _evidence("Wren House is a residential hall of the Korvath National University.",
                 "p1", "Wren House")
UNIVERSITY = _evidence("The Korvath National University is a research university located "
                       "in Tessendorf.", "p2", "Korvath National University")
ELSEWHERE = _evidence("Mirel College is a university located in Tessendorf.", "p3",
                      "Mirel College")
QUESTION = "Wren House is a hall of residence at a university in which city?"


def _search(found: list[Evidence]):
    queries: list[str] = []

    def search(query: str) -> list[Evidence]:
        queries.append(query)
        return found

    search.queries = queries  # type: ignore[attr-defined]
    return search


def test_a_claim_is_backed_by_a_passage_linked_to_the_one_it_cites() -> None:
    answer = "Wren House is in a university located in Tessendorf [1]."
    assert not check_answer(answer, [HALL["text"]], None, question=QUESTION).any_supported
    search = _search([UNIVERSITY])
    backed, found = search_support(QUESTION, answer, [HALL], search, None)
    assert search.queries == ["Wren House is in a university located in Tessendorf."]
    assert [f["parent_id"] for f in found] == ["p2"]
    texts = [HALL["text"], found[0]["text"]]
    claim = check_answer(backed, texts, None, question=QUESTION).claims[0]
    assert claim.supported and 2 in claim.citations, backed


def test_a_passage_that_names_nothing_the_cited_one_does_backs_nothing() -> None:
    # "a university in Tessendorf", but not the one the hall belongs to
    answer = "Wren House is in a university located in Tessendorf [1]."
    assert search_support(QUESTION, answer, [HALL], _search([ELSEWHERE]), None) == (answer, [])


def test_a_fact_no_found_passage_states_stays_unbacked() -> None:
    answer = "Wren House is in a university located in Marsden [1]."
    assert search_support(QUESTION, answer, [HALL], _search([UNIVERSITY]), None) == (answer, [])


def test_a_supported_claim_is_not_searched_for() -> None:
    search = _search([UNIVERSITY])
    answer = "Wren House is a residential hall of the Korvath National University [1]."
    assert search_support(QUESTION, answer, [HALL], search, None) == (answer, [])
    assert search.queries == []
