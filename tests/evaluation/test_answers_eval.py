"""``eval answers`` end to end with the scripted model: scores, resume, regression gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from archivist.evaluation.answers import load_finished
from archivist.evaluation.beir import DatasetError
from archivist.evaluation.qa_datasets import load_qa_dataset
from archivist.evaluation.qa_metrics import (
    document_recall,
    exact_match,
    normalize_answer,
    page_recall,
    phrase_recall,
    token_f1,
)

ITEMS = [
    {
        "id": "etna",
        "question": "Where is Mount Etna?",
        "reference": "Sicily",
        "context_phrases": ["active volcano in Sicily", "not in any document"],
        "source": "volcano.md",
    },
    {
        "id": "sourdough",
        "question": "What makes sourdough bread rise?",
        "reference": "wild yeast",
        "context_phrases": ["wild yeast"],
        "source": "bread.md",
    },
    {
        "id": "lava",
        "question": "How fast are Etna lava flows?",
        "reference": "slow",
        "context_phrases": [],
        "source": ["volcano.md"],
    },
]


def test_squad_normalisation_and_scores() -> None:
    assert normalize_answer("The  Cat, sat!") == "cat sat"
    assert exact_match("the cat", ["Cat", "dog"]) == 1.0
    assert exact_match("a dog", []) is None
    # prediction "cat sat on mat" vs "the cat sat": common = cat, sat -> P 2/4, R 2/2, F1 2/3
    assert token_f1("cat sat on mat", ["the cat sat"]) == pytest.approx(2 / 3)
    assert token_f1("x", ["y", "x"]) == 1.0
    assert phrase_recall(["Wild  Yeast", "rye"], ["uses wild yeast"]) == 0.5
    assert phrase_recall([], ["x"]) is None
    assert document_recall(["10K", "b.pdf"], ["10K.pdf"]) == 0.5
    # gold page 5 of 10K inside pp. 4-6 of 10K.pdf; page 9 not covered
    assert page_recall([("10K", 5), ("10K", 9)], [("10K.pdf", 4, 6)]) == 0.5


def test_dataset_formats(tmp_path: Path) -> None:
    curated = tmp_path / "c.json"
    curated.write_text(json.dumps(ITEMS))
    items = load_qa_dataset(curated)
    assert [i.item_id for i in items] == ["etna", "sourdough", "lava"]
    assert items[0].gold_documents == ["volcano.md"] and items[2].gold_documents == ["volcano.md"]
    fb = tmp_path / "fb.jsonl"
    row = {
        "financebench_id": "fb1",
        "question": "Capex?",
        "answer": "$1",
        "doc_name": "NFLX_10K",
        "evidence": [{"doc_name": "NFLX_10K", "evidence_page_num": 0, "evidence_text": "t"}],
    }
    fb.write_text(json.dumps(row) + "\n")
    (item,) = load_qa_dataset(fb)
    assert item.gold_pages == [("NFLX_10K", 1)] and item.references == ["$1"]
    with pytest.raises(DatasetError, match="missing file"):
        load_qa_dataset(tmp_path / "nope.json")
    (tmp_path / "bad.jsonl").write_text('{"question": "a"}\n{oops\n')
    with pytest.raises(DatasetError, match="bad.jsonl:2"):
        load_qa_dataset(tmp_path / "bad.jsonl")


def test_beir_folder_with_answers(tiny_beir: Path) -> None:
    rows = [{"_id": "q1", "text": "What erupts?", "answers": ["magma"]}]
    (tiny_beir / "queries.jsonl").write_text(json.dumps(rows[0]) + "\n")
    (item,) = load_qa_dataset(tiny_beir)
    assert item.references == ["magma"] and item.gold_documents == ["d-volcano"]
    assert item.supporting_passages
    # answerable from its corpus; correct when the answer states the short reference
    assert item.answerable is True and item.key_facts == ["magma"]
    from archivist.evaluation.answers import score_item

    assert score_item(item, "Magma erupts [volcano.md].", [], [])["correct"] == 1.0
    assert score_item(item, "Lava.", [], [])["correct"] == 0.0
    refusal = score_item(item, "The documents do not contain it.", [], [])
    assert refusal["abstention_accuracy"] == 0.0


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_answers_end_to_end_with_resume_and_gate(
    cli: typer.Typer, scripted_library: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "qa.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    out = tmp_path / "out"
    base = ["eval", "answers", str(dataset), "--out", str(out), "--data-dir", str(scripted_library)]
    runner = CliRunner()

    first = runner.invoke(cli, [*base, "--limit", "1"])  # an "interrupted" run
    assert first.exit_code == 0, first.output
    (done,) = _lines(out / "answers.jsonl")
    assert done["item_id"] == "etna" and "Sicily" in done["answer"]
    assert done["contexts"] and done["contexts"][0]["tool"] == "search_documents"
    assert done["scores"]["gold_doc_recall_retrieved"] == 1.0
    assert done["scores"]["context_phrase_recall"] == 0.5  # one of two phrases was read
    assert done["stats"]["llm_calls"] >= 1

    # a torn last line (killed mid-write) is dropped and its item redone
    with (out / "answers.jsonl").open("a") as handle:
        handle.write('{"item_id": "sourdough", "answ')
    second = runner.invoke(cli, base)
    assert second.exit_code == 0, second.output
    records = _lines(out / "answers.jsonl")
    assert [r["item_id"] for r in records] == ["etna", "sourdough", "lava"]
    assert records[0] == done  # not asked again
    assert set(load_finished(out / "answers.jsonl")) == {"etna", "sourdough", "lava"}
    report = json.loads((out / "answers_report.json").read_text())
    summary = report["summary"]
    assert summary["items"] == 3 and summary["errors"] == 0
    assert summary["metrics"]["gold_doc_recall_retrieved"] == 1.0
    # phrase recall: etna 1/2, sourdough 1/1, lava has none -> mean over 2 items = 0.75
    assert summary["metrics"]["context_phrase_recall"] == pytest.approx(0.75)
    assert summary["counts"]["context_phrase_recall"] == 2
    assert (out / "answers.md").read_text().startswith("# Answer evaluation")

    # regression gate: a better baseline fails the run, a wide tolerance passes it
    better = tmp_path / "baseline.json"
    better_summary = {**summary, "metrics": {**summary["metrics"], "context_phrase_recall": 0.9}}
    better.write_text(json.dumps({"summary": better_summary}))
    gated = runner.invoke(cli, [*base, "--baseline", str(better), "--tolerance", "0.1"])
    assert gated.exit_code == 1 and "context_phrase_recall" in gated.output
    passed = runner.invoke(cli, [*base, "--baseline", str(better), "--tolerance", "0.2"])
    assert passed.exit_code == 0, passed.output
    assert len(_lines(out / "answers.jsonl")) == 3  # reruns asked nothing again


def test_answers_bad_input(cli: typer.Typer, scripted_library: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(
        cli, ["eval", "answers", str(tmp_path / "none.json"), "--data-dir", str(scripted_library)]
    )
    assert missing.exit_code == 2 and "none.json" in missing.output
    dataset = tmp_path / "qa.json"
    dataset.write_text(json.dumps(ITEMS[:1]))
    empty = runner.invoke(
        cli, ["eval", "answers", str(dataset), "-c", "empty", "--data-dir", str(scripted_library)]
    )
    assert empty.exit_code == 2 and "'empty' has no documents" in empty.output
    assert "\\[" not in empty.output  # markup is escaped once, by fail()
