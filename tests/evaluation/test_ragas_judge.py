"""RAGAS judge: real RAGAS metrics driven by a scripted judge whose replies are hand-computable.

The scripted judge recognises each RAGAS request by the structured schema it asks for and
answers from the request's input JSON (the text after RAGAS's examples):

- statements of an answer: one true fact about the question's subject and one invented
  fact; a statement is supported when it is a substring of the context -> faithfulness 1/2;
- a question for an answer: the dataset question the answer is about (cosine 1 with the
  original), or an unrelated one, or flagged noncommittal;
- context precision: a passage is useful when it holds a key word ("Sicily", "yeast") of
  the answer it is judged against (the reference, or the agent's answer without one);
- context recall: two reference statements, each attributed when its key word is in the
  contexts.
"""

from __future__ import annotations

import builtins
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from langchain_core.messages import BaseMessage
from pydantic import BaseModel
from tests.evaluation.conftest import DOCS
from typer.testing import CliRunner

from archivist.evaluation import ragas_judge
from archivist.evaluation.qa_datasets import QAItem
from archivist.evaluation.ragas_judge import make_ragas_judge, passages_read
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings
from archivist.testing import CallInfo, ScriptedChatModel
from archivist.types import ArchivistError

VOLCANO, BREAD = (text for _, text in DOCS)  # each document is one passage
ETNA_Q = "Where is Mount Etna?"
BREAD_Q = "What makes sourdough bread rise?"
FACTS = {"Etna": "Mount Etna is an active volcano", "sourdough": "Sourdough bread rises"}
INVENTED = "The Moon is made of cheese"
KEY_WORDS = ("Sicily", "yeast")


def _request(messages: list[BaseMessage]) -> dict[str, Any]:
    """The input JSON of a RAGAS prompt (after its examples, before "Output:")."""
    text = str(messages[-1].content).rsplit("Now perform the same with the following input", 1)[1]
    return json.loads(text.split("input:", 1)[1].rsplit("Output:", 1)[0])  # type: ignore[no-any-return]


def ragas_rules(
    relevancy: str = "same", broken: str | None = None
) -> Callable[[list[BaseMessage], CallInfo], BaseModel | str | None]:
    """The scripted judge. ``relevancy``: "same", "unrelated" or "noncommittal" question;
    ``broken``: a schema name answered with text that is not JSON."""

    def statements(data: dict[str, Any]) -> dict[str, Any]:
        subject = next(k for k in FACTS if k.lower() in data["question"].lower())
        return {"statements": [FACTS[subject], INVENTED]}

    def verdicts(data: dict[str, Any]) -> dict[str, Any]:
        return {
            "statements": [
                {"statement": s, "reason": "r", "verdict": int(s in data["context"])}
                for s in data["statements"]
            ]
        }

    def question(data: dict[str, Any]) -> dict[str, Any]:
        same = ETNA_Q if "Etna" in data["response"] else BREAD_Q
        asked = "How do bees make honey?" if relevancy == "unrelated" else same
        return {"question": asked, "noncommittal": int(relevancy == "noncommittal")}

    def useful(data: dict[str, Any]) -> dict[str, Any]:
        keys = [k for k in KEY_WORDS if k in data["answer"]]
        return {"reason": "r", "verdict": int(any(k in data["context"] for k in keys))}

    def attributed(data: dict[str, Any]) -> dict[str, Any]:
        claims = [("Mount Etna is in Sicily.", "Sicily"), ("Mount Etna is a volcano.", "volcano")]
        return {
            "classifications": [
                {"statement": s, "reason": "r", "attributed": int(k in data["context"])}
                for s, k in claims
            ]
        }

    replies: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "StatementGeneratorOutput": statements,
        "NLIStatementOutput": verdicts,
        "AnswerRelevanceOutput": question,
        "ContextPrecisionOutput": useful,
        "ContextRecallOutput": attributed,
    }

    def rule(messages: list[BaseMessage], info: CallInfo) -> BaseModel | str | None:
        if info.schema is None or info.schema.__name__ not in replies:
            return None
        if info.schema.__name__ == broken:
            return "I think the answer is fine."
        return info.schema.model_validate(replies[info.schema.__name__](_request(messages)))

    return rule


@pytest.fixture
def ragas_installed() -> None:
    pytest.importorskip("ragas.metrics.collections")


def _record(answer: str, passages: list[str]) -> dict[str, Any]:
    evidence = [{"text": p} for p in passages]
    return {"answer": answer, "contexts": [{"tool": "search_documents", "evidence": evidence}]}


def _judge(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, **rules: Any
) -> tuple[Callable[[QAItem, dict[str, Any]], dict[str, float | None]], ScriptedChatModel]:
    chat = ScriptedChatModel(rules=[ragas_rules(**rules)], use_default=False)
    settings = Settings(data_dir=tmp_path / "lib")
    return make_ragas_judge(settings, "scripted", embedder, chat=chat), chat


ETNA_ANSWER = 'According to volcano.md: "Mount Etna is an active volcano in Sicily." [volcano.md]'


def test_all_four_metrics_by_hand(
    ragas_installed: None, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    judge, chat = _judge(tmp_path, embedder)
    item = QAItem("etna", ETNA_Q, references=["Sicily"])
    # the useful passage ranked second: verdicts [0, 1] -> precision (0 + 1/2 * 1) / 1 = 0.5
    record = _record(ETNA_ANSWER, [BREAD, VOLCANO])
    scores = judge(item, record)
    assert scores["faithfulness"] == 0.5  # 1 of 2 statements in the contexts
    assert scores["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)  # same question
    assert scores["context_precision"] == pytest.approx(0.5)
    assert scores["context_recall"] == 1.0  # "Sicily" and "volcano" both in the contexts
    assert "judge_warnings" not in record
    # 2 faithfulness calls, 3 generated questions, 1 precision call per passage, 1 recall
    assert [c.schema for c in chat.calls].count("AnswerRelevanceOutput") == 3
    assert len(chat.calls) == 2 + 3 + 2 + 1

    # no reference: precision judged against the answer, under its own name; no recall
    free = judge(QAItem("etna", ETNA_Q), _record(ETNA_ANSWER, [VOLCANO, BREAD]))
    assert set(free) == {"faithfulness", "answer_relevancy", "context_precision_no_reference"}
    assert free["context_precision_no_reference"] == pytest.approx(1.0)  # verdicts [1, 0]


def test_answer_relevancy_follows_the_generated_question(
    ragas_installed: None, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    item = QAItem("etna", ETNA_Q, references=["Sicily"])
    values: dict[str, float] = {}
    for kind in ("same", "unrelated", "noncommittal"):
        judge, _ = _judge(tmp_path, embedder, relevancy=kind)
        value = judge(item, _record(ETNA_ANSWER, [VOLCANO]))["answer_relevancy"]
        assert value is not None
        values[kind] = value
    assert values["same"] == pytest.approx(1.0, abs=1e-5)  # cosine of a text with itself
    # MiniLM: "How do bees make honey?" vs the Etna question, cosine about -0.08
    assert values["unrelated"] < 0.2 < values["same"]
    assert values["noncommittal"] == 0.0  # any similarity, zeroed by the flag


def test_one_failing_metric_is_none_with_a_warning(
    ragas_installed: None, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    judge, _ = _judge(tmp_path, embedder, broken="NLIStatementOutput")
    record = _record(ETNA_ANSWER, [VOLCANO, BREAD])
    scores = judge(QAItem("etna", ETNA_Q, references=["Sicily"]), record)
    assert scores["faithfulness"] is None
    assert scores["context_recall"] == 1.0 and scores["context_precision"] == pytest.approx(1.0)
    (warning,) = record["judge_warnings"]
    assert warning.startswith("faithfulness: JudgeOutputError: unparseable judge output")
    assert "NLIStatementOutput" in warning and "I think the answer is fine." in warning

    # nothing read: only answer relevancy can be scored
    empty = {"answer": ETNA_ANSWER, "contexts": []}
    scores = judge(QAItem("etna", ETNA_Q, references=["Sicily"]), empty)
    assert scores["context_recall"] is None and scores["faithfulness"] is None
    assert scores["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)
    assert "read no passages" in empty["judge_warnings"][0]


def test_unreachable_judge_stops_the_run(
    ragas_installed: None, tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    def refuse(messages: list[BaseMessage], info: CallInfo) -> None:
        raise ConnectionRefusedError("connection refused")

    chat = ScriptedChatModel(rules=[refuse], use_default=False)
    judge = make_ragas_judge(Settings(data_dir=tmp_path / "l"), "scripted", embedder, chat=chat)
    with pytest.raises(ArchivistError, match="cannot reach the judge"):
        judge(QAItem("etna", ETNA_Q), _record(ETNA_ANSWER, [VOLCANO]))


def test_passages_read_in_order_once() -> None:
    record = {
        "contexts": [
            {"text": "block", "evidence": [{"text": "a"}, {"text": "b"}]},
            {"text": "whole tool text", "evidence": []},
            {"text": "again", "evidence": [{"text": "b"}, {"text": "c"}]},
        ]
    }
    assert passages_read(record) == ["a", "b", "whole tool text", "c"]


def test_eval_answers_with_scripted_ragas_judge(
    ragas_installed: None,
    cli: typer.Typer,
    scripted_library: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judges: list[ScriptedChatModel] = []

    def scripted_judge(settings: Settings, role: str = "answer") -> ScriptedChatModel:
        assert settings.llm.model == "scripted" and settings.llm.fast_model is None
        judges.append(ScriptedChatModel(rules=[ragas_rules()], use_default=False))
        return judges[-1]

    monkeypatch.setattr(ragas_judge, "make_chat_model", scripted_judge)
    items = [
        {"id": "etna", "question": ETNA_Q, "reference": "Sicily"},
        {"id": "sourdough", "question": BREAD_Q},  # no reference
    ]
    dataset = tmp_path / "qa.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in items))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        ["eval", "answers", str(dataset), "--judge", "scripted", "--out", str(out),
         "--data-dir", str(scripted_library)],
    )
    assert result.exit_code == 0, result.output
    etna, bread = (json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines())
    # the premise of the figures: both documents were read, the asked-about one first
    assert passages_read(etna) == [VOLCANO, BREAD]
    assert passages_read(bread) == [BREAD, VOLCANO]
    assert etna["judge"] == {
        "faithfulness": 0.5,
        "answer_relevancy": pytest.approx(1.0, abs=1e-5),
        "context_precision": pytest.approx(1.0),  # verdicts [1, 0]
        "context_recall": 1.0,
    }
    assert bread["judge"] == {
        "faithfulness": 0.5,
        "answer_relevancy": pytest.approx(1.0, abs=1e-5),
        "context_precision_no_reference": pytest.approx(1.0),  # "yeast": verdicts [1, 0]
    }
    assert "judge_warnings" not in etna and "judge_warnings" not in bread
    # the judge saw what the agent read: the NLI call of the first item holds both passages
    (judge_model,) = judges
    nli = next(c for c in judge_model.calls if c.schema == "NLIStatementOutput")
    assert "active volcano in Sicily" in nli.text and "wild yeast" in nli.text

    summary = json.loads((out / "answers_report.json").read_text())["summary"]
    assert summary["judge"]["faithfulness"] == 0.5
    assert summary["judge"]["context_recall"] == 1.0
    assert summary["judge"]["context_precision"] == pytest.approx(1.0)
    assert summary["judge"]["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)
    markdown = (out / "answers.md").read_text()
    for name in ("faithfulness", "answer_relevancy", "context_precision", "context_recall"):
        assert name in markdown and name in result.output


def _hide_ragas(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if RAGAS were not installed: every ragas module, loaded or not, is unimportable."""
    for name in [n for n in sys.modules if n == "ragas" or n.startswith("ragas.")] + ["ragas"]:
        monkeypatch.setitem(sys.modules, name, None)


def test_ragas_not_installed(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    embedder: SentenceTransformerEmbedder,
    cli: typer.Typer,
    scripted_library: Path,
) -> None:
    _hide_ragas(monkeypatch)
    settings = Settings(data_dir=tmp_path / "l")
    with pytest.raises(ArchivistError, match=r"not installed: pip install 'archivist\[ragas\]'"):
        make_ragas_judge(settings, "scripted", embedder)
    dataset = tmp_path / "qa.json"
    dataset.write_text(json.dumps([{"id": "etna", "question": ETNA_Q}]))
    result = CliRunner().invoke(
        cli,
        ["eval", "answers", str(dataset), "--judge", "scripted", "--out", str(tmp_path / "o"),
         "--data-dir", str(scripted_library)],
    )
    assert result.exit_code == 1
    assert "pip install 'archivist[ragas]'" in result.output  # escaped once, not twice
    assert not (tmp_path / "o" / "answers.jsonl").exists()  # nothing was asked


def test_ragas_installed_but_broken(
    ragas_installed: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    embedder: SentenceTransformerEmbedder,
) -> None:
    real_import = builtins.__import__
    gone = "langchain_community.chat_models.vertexai"

    def failing_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ragas.metrics.collections":
            raise ModuleNotFoundError(f"No module named {gone!r}", name=gone)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing_import)
    with pytest.raises(ArchivistError) as caught:
        make_ragas_judge(Settings(data_dir=tmp_path / "l"), "scripted", embedder)
    message = str(caught.value)
    assert "installed but cannot be imported" in message and repr(gone) in message
    assert "not installed" not in message
