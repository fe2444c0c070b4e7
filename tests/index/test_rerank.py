"""Optional reranking (``rerank_model``): listwise by the LLM, or a sentence-transformers
CrossEncoder by name or folder; off by default."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.app.cli.main import app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.model_files import bundled_model_path
from archivist.index.rerank import CrossEncoderReranker, PassageRanking
from archivist.settings import Settings
from archivist.testing import ScriptedChatModel

TEXTS = [
    ("kettle", "# Kettles\n\nA kettle boils water for tea in a few minutes."),
    ("teapot", "# Teapots\n\nA teapot keeps tea warm while it steeps."),
    ("leaves", "# Tea leaves\n\nGreen tea leaves steep for three minutes in hot water."),
    ("glacier", "# Glaciers\n\nA glacier carved the valley over many centuries."),
]


def open_library(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, llm: ScriptedChatModel | None = None,
    **settings: object,
) -> Application:
    library = Application(
        Settings(data_dir=tmp_path / "lib", **settings),  # type: ignore[arg-type]
        embedder=embedder,
        llm=llm,
    )
    library.ingest.texts(TEXTS)
    return library


@pytest.fixture
def plain(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Application]:
    library = open_library(tmp_path, embedder)
    yield library
    library.close()


def test_reranking_is_off_by_default(plain: Application) -> None:
    assert plain.settings.index.rerank_model == ""
    assert plain.searcher.reranker is None


def test_llm_reranks_the_head_listwise_with_one_call(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with open_library(tmp_path / "plain", embedder) as plain:
        before = plain.searcher.search("how long does tea steep", k=4)
    assert len(before) == 4
    llm = ScriptedChatModel(script=[PassageRanking(order=[4, 3])])
    with open_library(tmp_path, embedder, llm, rerank_model="llm", rerank_depth=4) as library:
        after = library.searcher.search("how long does tea steep", k=3)
    # the model's two first, then the rest in the search's own order, cut to k
    assert [h.child_id for h in after] == [
        before[3].child_id, before[2].child_id, before[0].child_id
    ]
    (call,) = llm.calls
    assert call.schema == "PassageRanking"
    prompt = call.text
    assert "Question: how long does tea steep" in prompt
    for n, hit in enumerate(before, start=1):
        assert f"[{n}] " in prompt and " ".join(hit.text.split())[:40] in prompt


def test_an_unreadable_ranking_keeps_the_search_order(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with open_library(tmp_path / "plain", embedder) as plain:
        before = [h.child_id for h in plain.searcher.search("tea", k=3)]
    llm = ScriptedChatModel(rules=[lambda _m, info: "not a ranking" if info.schema else None])
    with open_library(tmp_path, embedder, llm, rerank_model="llm") as library:
        assert [h.child_id for h in library.searcher.search("tea", k=3)] == before
    assert len(llm.calls) == 2  # asked once more with the parse error, then gave up


def tiny_cross_encoder(folder: Path) -> Path:
    """A one-layer BERT cross-encoder with random weights and MiniLM's vocabulary."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    source = bundled_model_path("all-MiniLM-L6-v2")
    assert source is not None
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=64, num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def test_a_cross_encoder_folder_reorders_the_head_by_its_scores(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    folder = tiny_cross_encoder(tmp_path / "ce")
    with open_library(tmp_path / "plain", embedder) as plain:
        before = plain.searcher.search("tea", k=4)
    with open_library(tmp_path, embedder, rerank_model=str(folder), rerank_depth=3) as library:
        after = library.searcher.search("tea", k=4)
        reranker = library.searcher.reranker.get()  # type: ignore[union-attr]
    assert isinstance(reranker, CrossEncoderReranker)
    from sentence_transformers import CrossEncoder

    scores = CrossEncoder(str(folder), device="cpu").predict(
        [("tea", f"{' > '.join(h.heading_path)}\n{h.text}") for h in before[:3]]
    )
    expected = [before[i].child_id for i in sorted(range(3), key=lambda i: -float(scores[i]))]
    assert [h.child_id for h in after[:3]] == expected
    assert after[3].child_id == before[3].child_id  # below the depth: untouched
    assert [h.score for h in after[:3]] == sorted((float(s) for s in scores), reverse=True)


def test_a_bad_rerank_model_is_one_line_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(Exception) as caught:
        CrossEncoderReranker(str(tmp_path / "no-such-model"))
    message = str(caught.value)
    assert message.startswith(f"rerank_model '{tmp_path / 'no-such-model'}': cannot load")
    assert "\n" not in message


def test_the_cli_reports_a_bad_rerank_model_in_one_line(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_library(tmp_path, embedder).close()
    monkeypatch.setenv("ARCHIVIST_INDEX__RERANK_MODEL", "no-such-org/no-such-reranker")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(app, ["search", "tea", "--data-dir", str(tmp_path / "lib")])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "rerank_model 'no-such-org/no-such-reranker': cannot load" in lines[0]
    assert "Traceback" not in result.output
