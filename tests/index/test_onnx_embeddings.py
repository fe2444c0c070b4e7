"""The ONNX backend gives the sentence-transformers vectors (fp32) or close ones (int8)."""

from __future__ import annotations

import numpy as np
import pytest

from archivist.index.embeddings import SentenceTransformerEmbedder, make_embedder
from archivist.index.onnx_embeddings import OnnxEmbedder
from archivist.settings import Settings

TEXTS = [
    "How do I load a CSV file as a data frame?",
    "Netflix reported 117 million streaming memberships in over 190 countries.",
    "Espresso is brewed by forcing hot water through finely ground coffee. " * 12,
    "short",
    "The function read.table reads a file in table format and creates a data frame from it, "
    "with cases corresponding to lines and variables to fields in the file.",
]


@pytest.fixture(scope="module")
def fp32() -> OnnxEmbedder:
    return OnnxEmbedder("all-MiniLM-L6-v2", quantized=False)


def test_onnx_fp32_matches_sentence_transformers(
    fp32: OnnxEmbedder, embedder: SentenceTransformerEmbedder
) -> None:
    ours = np.array(fp32.embed_documents(TEXTS))
    theirs = np.array(embedder.embed_documents(TEXTS))
    assert ours.shape == theirs.shape == (len(TEXTS), fp32.dimension)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert (ours * theirs).sum(axis=1).min() > 0.9999
    assert np.allclose(fp32.embed_query(TEXTS[3]), theirs[3], atol=1e-4)


def test_batching_by_tokens_changes_no_vector(fp32: OnnxEmbedder) -> None:
    # a row of figures has more tokens than prose of more characters: both orders meet
    figures = "| 2017 | 11,692,713 | 8,830,669 | 6,779,511 | 1,246,505 |"
    texts = [t[: 20 + 37 * i] for i, t in enumerate(TEXTS * 4)] + [figures] * 3
    alone = np.array([fp32.embed_query(t) for t in texts])
    together = np.array(fp32.embed_documents(texts))
    assert (alone * together).sum(axis=1).min() > 0.99999
    lengths = [len(fp32._tokenizer(t)["input_ids"]) for t in texts]
    assert lengths[-1] > lengths[2] and len(texts[-1]) < len(texts[2])


@pytest.mark.slow
def test_onnx_int8_stays_close_and_ranks_alike(embedder: SentenceTransformerEmbedder) -> None:
    int8 = OnnxEmbedder("all-MiniLM-L6-v2", quantized=True)
    ours = np.array(int8.embed_documents(TEXTS))
    theirs = np.array(embedder.embed_documents(TEXTS))
    assert (ours * theirs).sum(axis=1).min() > 0.9
    query = np.array(int8.embed_query("read a csv file"))
    assert int((ours @ query).argmax()) == int((theirs @ np.array(embedder.embed_query(
        "read a csv file"))).argmax())


def test_settings_pick_the_backend(tmp_path) -> None:
    assert isinstance(make_embedder(Settings(data_dir=tmp_path)), OnnxEmbedder)
    torch_backend = make_embedder(Settings(data_dir=tmp_path, index={"embedding_backend": "torch"}))
    assert isinstance(torch_backend, SentenceTransformerEmbedder)
