"""Evidence units chosen and claims checked with the real embedding model."""

from __future__ import annotations

from tests.unit.agent.test_claims import UNITS
from tests.unit.agent.test_units import SECTION, _evidence

from archivist.agent.checks.claims import check_answer, check_claim, support_score
from archivist.agent.evidence.units import MIN_SHARE, select_units
from archivist.agent.state import Evidence
from archivist.index.embeddings import SentenceTransformerEmbedder


def test_selection_puts_the_answering_sentence_first_within_the_budget(
    embedder: SentenceTransformerEmbedder,
) -> None:
    evidence = [_evidence(SECTION)]
    chosen = select_units("What happens to half-done work if the process is killed?", evidence,
                          embedder, budget_tokens=60)
    assert chosen.units[0].text.startswith("If the process is killed")
    assert chosen.tokens() <= 60 and chosen.considered == 8
    wide = select_units("What happens if it is killed?", evidence, embedder, budget_tokens=1000)
    best = wide.units[0].score
    assert all(best * MIN_SHARE <= u.score <= best for u in wide.units)
    assert not any(u.kind == "row" for u in wide.units)  # the settings table is far off


def test_a_leaning_sentence_keeps_its_previous_sentence_as_context(
    embedder: SentenceTransformerEmbedder,
) -> None:
    chosen = select_units("What keeps search free of partial documents?", [_evidence(SECTION)],
                          embedder, budget_tokens=1000)
    top = chosen.units[0]
    assert top.text.startswith("This keeps search free")
    assert top.context.startswith("If the process is killed")


def test_support_score_separates_a_paraphrase_from_an_unrelated_claim(
    embedder: SentenceTransformerEmbedder,
) -> None:
    near = support_score("Half-done work is purged when the library opens again.", [UNITS[1]],
                         embedder)
    far = support_score("Backups are uploaded to the cloud every night.", [UNITS[1]], embedder)
    assert near > 0.6 > 0.3 > far


def test_a_claim_fails_for_its_reason(embedder: SentenceTransformerEmbedder) -> None:
    ok = check_claim("Half-done documents are purged when the library is next opened [2].",
                     [2], UNITS, embedder)
    assert ok.supported and ok.reason == "" and ok.citations == [2]
    wrong_number = check_claim("There were 57,834 paid memberships at the end of 2017 [3].",
                               [3], UNITS, embedder)
    assert not wrong_number.supported and "57,834" in wrong_number.reason
    off = check_claim("Backups are uploaded to the cloud every night [1].", [1], UNITS, embedder)
    assert not off.supported and off.reason.startswith("the cited passages do not say this")


def test_an_answer_is_checked_claim_by_claim(embedder: SentenceTransformerEmbedder) -> None:
    checked = check_answer(
        "A document is written as pending first and marked ready last [1]. Backups are "
        "uploaded to the cloud every night [2].", UNITS, embedder)
    assert [c.supported for c in checked.claims] == [True, False]
    assert checked.any_supported and checked.cited() == [1, 2]
    assert [c.text for c in checked.unsupported] == [
        "Backups are uploaded to the cloud every night."]


def test_a_verifier_can_veto_a_supported_claim(embedder: SentenceTransformerEmbedder) -> None:
    from archivist.agent.answer import Checker, Draft, Tools, run_steps
    from archivist.agent.question import parse_question

    seen: list[tuple[str, str, list[str]]] = []

    def verify(question: str, claim: str, cited: list[Evidence]) -> bool:
        seen.append((question, claim, [c.get("text", "") for c in cited]))
        return False

    units = [Evidence(kind="hit", parent_id=f"p{n}", document_id="d", document_name="d.md",
                      pages="", page_start=None, page_end=None, sub_question=0, text=text)
             for n, text in enumerate(UNITS, 1)]
    draft = run_steps(Draft(parse_question("When are leftovers purged?"),
                            "Leftovers are purged when the library is next opened [2].", units),
                      ("verify",), Tools(Checker(embedder), verify))
    assert seen == [("When are leftovers purged?",
                     "Leftovers are purged when the library is next opened.", [UNITS[1]])]
    assert not draft.supported and "verifier" in draft.claims[0].reason
