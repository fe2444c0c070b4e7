"""``eval answers --system``: the naive-RAG and closed-book baselines, and the answer scores
they share with the agent (correctness, citation accuracy, abstention accuracy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from archivist.evaluation.beir import DatasetError
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.evaluation.qa_metrics import (
    abstained,
    abstention_correct,
    citation_correct,
    facts_found,
    without_citations,
)

ITEMS = [
    {
        "id": "etna",
        "question": "Where is Mount Etna?",
        "reference": "in Sicily",
        "key_facts": ["Sicily"],
        "source": "volcano.md",
        "answerable": True,
    },
    {"id": "triptych", "question": "Who painted the Veldoria triptych?", "answerable": False},
]


def test_facts_found_matches_numbers_code_and_alternatives() -> None:
    # thousands separators and spacing do not matter; "a|b" accepts either
    assert facts_found("Revenues were $9412300 thousand.", ["9,412,300|9.4 billion"]) == 1.0
    assert facts_found("About 9.4 Billion dollars", ["9,412,300|9.4 billion"]) == 1.0
    # every fact is needed
    assert facts_found("Ada Brenn wrote it", ["Brenn", "Kell"]) == 0.0
    # whole tokens only: 67 is not inside 1967, read.csv is not read.csv2
    assert facts_found("founded in 1967", ["67"]) == 0.0
    assert facts_found("use read.csv2()", ["read.csv"]) == 0.0
    assert facts_found("Use read.csv(file).", ["read.csv"]) == 1.0
    assert facts_found("Quit with q() at the prompt", ["q()"]) == 1.0
    assert facts_found("anything", []) is None
    # a decimal figure is stated by a more precise one that rounds to it, never the reverse
    assert facts_found("the margin fell to 21.46% from 22.8%", ["21.5%|21.5", "22.8%"]) == 1.0
    assert facts_found("the margin fell to 21.44%", ["21.5%"]) == 0.0
    assert facts_found("the margin fell to 21%", ["21.5%"]) == 0.0
    assert facts_found("the lowest ratio was 2012.6", ["2013"]) == 0.0


def test_abstention_and_citation_scores() -> None:
    assert abstained("The documents do not contain the painter of the Veldoria triptych.")
    assert abstained("I don't know.")
    assert abstained("The passages do not contain an answer.")
    assert not abstained("Ilse Varga painted it.")
    # unanswerable: abstaining is right; answerable: abstaining is wrong
    assert abstention_correct(False, "The documents do not contain it.") == 1.0
    assert abstention_correct(False, "Ilse Varga.") == 0.0
    assert abstention_correct(True, "The documents do not contain it.") == 0.0
    assert abstention_correct(None, "x") is None
    # a bare citation is no answer, and no honest abstention either
    assert abstention_correct(True, "[read.fwf.pdf, p. 15]") == 0.0
    assert abstention_correct(False, " [a.md]. ") == 0.0
    assert abstention_correct(True, "read.fwf [read.fwf.pdf, p. 15]") == 1.0
    gold = [("10K.pdf", 21)]
    assert citation_correct(gold, [("10K.pdf", 20, 22)], "It was 9.43 [10K.pdf, p. 21]") == 1.0
    assert citation_correct(gold, [("10K.pdf", 30, 30)], "It was 9.43 [10K.pdf, p. 30]") == 0.0
    assert citation_correct(gold, [], "It was 9.43.") == 0.0  # uncited answer
    assert citation_correct(gold, [], "The documents do not contain it.") is None
    assert citation_correct([], [("10K.pdf", 21, 21)], "9.43") is None
    # an abstention naming the key fact is not a correct answer (the 1.5B wrote one)
    from archivist.evaluation.answers import score_item
    from archivist.evaluation.qa_datasets import QAItem

    item = QAItem("csv", "How can I load a comma-separated file into R?", key_facts=["read.csv"],
                  answerable=True)
    refusal = "The documents do not contain how to use the `read.csv()` function in R."
    assert score_item(item, refusal, [], [])["correct"] == 0.0
    assert score_item(item, "Use read.csv().", [], [])["correct"] == 1.0
    # what the answer states is scored without its citations: a made-up citation naming
    # the key fact is not an answer (the 1.5B wrote "[read.fwf.pdf, p. 15]" and nothing else)
    fwf = QAItem("fwf", "What reads files laid out in fixed-width columns?", key_facts=["read.fwf"],
                 references=["read.fwf"], answerable=True)
    bare = score_item(fwf, "[read.fwf.pdf, p. 15]", [], [])
    assert bare["correct"] == 0.0 and bare["f1"] == 0.0
    cited = score_item(fwf, "read.fwf [R-data.pdf, p. 15]", [], [])
    assert cited["correct"] == 1.0 and cited["exact_match"] == 1.0
    assert without_citations("Use q() [R-intro.pdf, pp. 9-10] or x[1] [notes.md].") == (
        "Use q() or x[1] .")


def test_curated_pages_and_answerable(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    rows = [{**ITEMS[0], "pages": [1, 2]}, ITEMS[1]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    etna, triptych = load_qa_dataset(path)
    assert etna.gold_pages == [("volcano.md", 1), ("volcano.md", 2)]
    assert etna.key_facts == ["Sicily"] and etna.answerable is True
    assert triptych.answerable is False and triptych.gold_pages == []
    path.write_text(json.dumps({**ITEMS[0], "pages": ["one"]}) + "\n")
    with pytest.raises(DatasetError, match="item 1: 'pages'"):
        load_qa_dataset(path)
    path.write_text(json.dumps({**ITEMS[0], "answerable": "yes"}) + "\n")
    with pytest.raises(DatasetError, match="'answerable' must be true or false"):
        load_qa_dataset(path)


def _records(out: Path) -> dict[str, dict]:
    lines = (out / "answers.jsonl").read_text().splitlines()
    return {r["item_id"]: r for r in map(json.loads, lines)}


def test_naive_and_closed_book_baselines(
    cli: typer.Typer, scripted_library: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "qa.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    runner = CliRunner()
    base = ["eval", "answers", str(dataset), "--data-dir", str(scripted_library)]

    naive_out = tmp_path / "naive"
    naive = runner.invoke(cli, [*base, "--system", "naive", "--out", str(naive_out)])
    assert naive.exit_code == 0, naive.output
    records = _records(naive_out)
    etna, triptych = records["etna"], records["triptych"]
    # one search, one model call; the passages it read are the contexts
    assert etna["stats"]["llm_calls"] == 1 and triptych["stats"]["llm_calls"] == 1
    assert [c["tool"] for c in etna["contexts"]] == ["search_documents"]
    assert "Sicily" in etna["answer"] and etna["sources"][0]["document_name"] == "volcano.md"
    assert etna["scores"]["correct"] == 1.0 and etna["scores"]["abstention_accuracy"] == 1.0
    # no passage shares a word with the Veldoria triptych: the writer abstains, which is right here
    assert triptych["abstained"] and triptych["scores"]["abstention_accuracy"] == 1.0
    assert triptych["scores"]["correct"] is None  # nothing to be correct about
    summary = json.loads((naive_out / "answers_report.json").read_text())["summary"]
    assert summary["metrics"]["abstention_accuracy"] == 1.0
    assert summary["counts"]["correct"] == 1

    closed_out = tmp_path / "closed"
    closed = runner.invoke(cli, [*base, "--system", "closed-book", "--out", str(closed_out)])
    assert closed.exit_code == 0, closed.output
    records = _records(closed_out)
    assert all(r["contexts"] == [] and r["sources"] == [] for r in records.values())
    assert all(r["stats"]["llm_calls"] == 1 for r in records.values())
    # the question alone reaches the model: no passage block, no document name
    assert "Sicily" not in records["etna"]["answer"]
    assert records["etna"]["scores"]["correct"] == 0.0
    assert records["etna"]["scores"]["citation_accuracy"] is None  # cannot cite by design


def test_unknown_system_or_strategy_is_a_usage_error(
    cli: typer.Typer, scripted_library: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "qa.jsonl"
    dataset.write_text(json.dumps(ITEMS[0]) + "\n")
    runner = CliRunner()
    base = ["eval", "answers", str(dataset), "--data-dir", str(scripted_library)]
    bad_system = runner.invoke(cli, [*base, "--system", "oracle"])
    assert bad_system.exit_code == 2 and "unknown system 'oracle'" in bad_system.output
    bad_strategy = runner.invoke(cli, [*base, "--strategy", "magic"])
    assert bad_strategy.exit_code == 2 and "unknown strategy 'magic'" in bad_strategy.output
    agent_out = tmp_path / "agent"
    piped = runner.invoke(cli, [*base, "--strategy", "pipeline", "--out", str(agent_out)])
    assert piped.exit_code == 0, piped.output
    (record,) = _records(agent_out).values()
    assert any(s.get("kind") == "strategy" and "pipeline" in str(s.get("detail"))
               for s in record["steps"])


def test_a_clarification_is_its_own_outcome_and_the_strategy_service_is_closed(
    scripted_library: Path, embedder, tmp_path: Path
) -> None:
    """The agent asking back is counted apart from the answers; the second agent service
    an ``--strategy`` override makes is closed with the application."""
    import sqlite3

    from archivist.agent.state import QuestionAnalysis
    from archivist.application import Application
    from archivist.evaluation.answers import run_answers, summarize
    from archivist.evaluation.baselines import make_asker
    from archivist.settings import Settings
    from archivist.testing import ScriptedChatModel

    def ask_back_on_that(messages, info):
        if info.schema is QuestionAnalysis and "that thing" in info.question:
            return QuestionAnalysis(is_clear=False, clarification_question="Which thing?")
        return None

    items = load_qa_dataset(_dataset(tmp_path, [
        *ITEMS, {"id": "vague", "question": "Where is that thing?", "answerable": False},
    ]))
    llm = ScriptedChatModel(rules=[ask_back_on_that])
    settings = Settings(data_dir=scripted_library, agent={"strategy": "tools"})
    with Application(settings, embedder=embedder, llm=llm) as app:
        asker = make_asker(app, "agent", strategy="pipeline")
        records = {r["item_id"]: r for r in run_answers(app, items, tmp_path / "out",
                                                         asker=asker)}
        other = app.agent_with(agent={"strategy": "pipeline"})
        assert other is not app.agent and app.agent_with(agent={"strategy": "tools"}) is app.agent
    vague = records["vague"]
    assert vague["status"] == "clarification" and not vague["abstained"]
    assert vague["scores"]["abstention_accuracy"] == 0.0  # asking back is not abstaining
    summary = summarize("qa", "default", list(records.values()))
    assert (summary.answered, summary.clarifications, summary.errors) == (2, 1, 0)
    with pytest.raises(sqlite3.ProgrammingError):  # closed with the application
        asker(items[0])


def _dataset(tmp_path: Path, items: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    return path
