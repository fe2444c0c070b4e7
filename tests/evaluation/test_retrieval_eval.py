"""Retrieval evaluation end to end on a hand-written BEIR folder (real index, real model)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from archivist.application import Application
from archivist.evaluation.beir import DatasetError, corpus_markdown, load_beir
from archivist.evaluation.retrieval import document_ranking, evaluate_retrieval
from archivist.types import SearchHit

# BM25 on the tiny set (see conftest): judged queries q1, q2, q3; q4 has only grade 0.
#   q1 ranking [d-volcano], qrels {d-volcano: 1}: every metric 1
#   q2 ranking [d-tide], qrels {d-tide: 1, d-moon: 2}:
#      nDCG@10 = (1/log2 2) / (2/log2 2 + 1/log2 3) = 1 / 2.63093 = 0.380094
#      Recall = 1/2, MRR = 1
#   q3 ranking [] -> every metric 0
# means over 3 queries: nDCG@10 = (1 + 0.380094 + 0) / 3, Recall = 1.5 / 3, MRR = 2 / 3
Q2_NDCG = 1 / (2 + 1 / math.log2(3))
BM25_EXPECTED = {
    "ndcg@10": (1 + Q2_NDCG) / 3,
    "recall@10": 0.5,
    "recall@100": 0.5,
    "mrr@10": 2 / 3,
}


def test_load_beir(tiny_beir: Path) -> None:
    ds = load_beir(tiny_beir)
    assert ds.name == "tiny" and len(ds.corpus) == 4 and len(ds.queries) == 5
    assert ds.qrels["q2"] == {"d-tide": 1, "d-moon": 2}
    assert [q.query_id for q in ds.judged_queries()] == ["q1", "q2", "q3", "q4"]
    assert corpus_markdown("A  title", "Body.") == "# A title\n\nBody."
    assert corpus_markdown("", "Body.") == "Body."


def test_answers_are_read_from_top_level_or_metadata(tmp_path: Path, tiny_beir: Path) -> None:
    rows = [
        {"_id": "q1", "text": "a?", "answers": ["x"]},
        {"_id": "q2", "text": "b?", "metadata": {"answer": "y"}},
    ]
    (tiny_beir / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ds = load_beir(tiny_beir)
    assert ds.queries["q1"].answers == ["x"] and ds.queries["q2"].answers == ["y"]


@pytest.mark.parametrize("missing", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_missing_file_names_the_file(tiny_beir: Path, missing: str) -> None:
    (tiny_beir / missing).unlink()
    with pytest.raises(DatasetError, match=missing.split("/")[-1]):
        load_beir(tiny_beir)


def test_malformed_line_is_reported_with_its_number(tiny_beir: Path) -> None:
    with (tiny_beir / "queries.jsonl").open("a") as handle:
        handle.write("{not json\n")
    with pytest.raises(DatasetError, match=r"queries.jsonl:6"):
        load_beir(tiny_beir)


def test_document_ranking_keeps_the_best_child_per_document() -> None:
    def hit(doc: str, score: float) -> SearchHit:
        return SearchHit("c", "p", "id", doc, "", [], None, None, score)

    hits = [hit("a", 0.9), hit("b", 0.8), hit("a", 0.7), hit("c", 0.6), hit("b", 0.5)]
    assert document_ranking(hits) == ["a", "b", "c"]
    assert document_ranking(hits, depth=2) == ["a", "b"]


def test_evaluate_retrieval_matches_hand_computed_bm25(
    library: Application, tiny_beir: Path
) -> None:
    report = evaluate_retrieval(library, tiny_beir, modes=("bm25", "dense", "hybrid"))
    assert report.collection == "beir_tiny" and report.query_count == 4
    assert report.ingest_counts["added"] == 4
    bm25 = report.modes["bm25"]
    for metric, expected in BM25_EXPECTED.items():
        assert bm25.aggregates[metric] == pytest.approx(expected), metric
    by_id = {q.query_id: q for q in bm25.queries}
    assert by_id["q2"].top == ["d-tide"] and by_id["q3"].top == []
    assert by_id["q4"].metrics["ndcg@10"] is None
    # dense and hybrid rank all four documents, so every relevant one is within 100
    for mode in ("dense", "hybrid"):
        assert report.modes[mode].aggregates["recall@100"] == pytest.approx(1.0)
        assert all(len(q.top) == 4 for q in report.modes[mode].queries)
    # a second run reuses the index
    again = evaluate_retrieval(library, tiny_beir, modes=("bm25",), limit_queries=2)
    assert again.ingest_counts["unchanged"] == 4 and again.query_count == 2


def test_cli_end_to_end(cli: typer.Typer, tiny_beir: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    args = [
        "eval",
        "retrieval",
        "--beir",
        str(tiny_beir),
        "--out",
        str(out),
        "--data-dir",
        str(tmp_path / "lib"),
        "--mode",
        "bm25",
        "--mode",
        "hybrid",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "ndcg@10" in result.output and "hybrid" in result.output
    assert {p.name for p in out.iterdir()} == {"retrieval.md", "retrieval.json", "retrieval.png"}
    data = json.loads((out / "retrieval.json").read_text())
    assert list(data["modes"]) == ["bm25", "hybrid"]
    assert data["modes"]["bm25"]["aggregates"]["ndcg@10"] == pytest.approx(BM25_EXPECTED["ndcg@10"])
    assert len(data["modes"]["bm25"]["queries"]) == 4
    assert "| ndcg@10 |" in (out / "retrieval.md").read_text()
    assert (out / "retrieval.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_bad_input_exits_2(cli: typer.Typer, tiny_beir: Path, tmp_path: Path) -> None:
    (tiny_beir / "qrels" / "test.tsv").unlink()
    result = CliRunner().invoke(
        cli, ["eval", "retrieval", "--beir", str(tiny_beir), "--data-dir", str(tmp_path / "lib")]
    )
    assert result.exit_code == 2
    assert "test.tsv" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(
        cli, ["eval", "retrieval", "--beir", str(tiny_beir), "--mode", "fuzzy"]
    )
    assert result.exit_code == 2 and "fuzzy" in result.output
