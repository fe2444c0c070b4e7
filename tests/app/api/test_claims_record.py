"""A past turn keeps its checked sentences: the turns list and the exports carry the claims."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.app.conftest import open_library
from tests.app.server_helpers import OVERCLAIM, overclaim

from archivist.app.api.app import create_app
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import ScriptedChatModel

QUESTION = "How long does the Zephyr warranty last?"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
           corpus: dict[str, Path]) -> Iterator[TestClient]:
    """The Zephyr manual, and a model that adds a sentence no passage supports."""
    library = open_library(tmp_path_factory, embedder, "overclaim-lib", strategy="pipeline",
                           llm=ScriptedChatModel(rules=[overclaim]))
    library.ingest.files([corpus["zephyr"]])
    with TestClient(create_app(library, ui=False), base_url="http://localhost") as test_client:
        yield test_client
    library.close()


def test_a_past_turn_carries_its_claims(client: TestClient) -> None:
    thread = client.post("/v1/conversations").json()["thread_id"]
    live = client.post(f"/v1/conversations/{thread}/messages", json={"message": QUESTION})
    assert live.status_code == 200, live.text
    claims = live.json()["claims"]
    assert [c["supported"] for c in claims] == [True, False]
    assert claims[1]["text"].startswith(OVERCLAIM) and "900" in claims[1]["reason"]

    (turn,) = client.get(f"/v1/conversations/{thread}/turns").json()["turns"]
    assert turn["claims"] == claims
    exported = client.get(f"/v1/conversations/{thread}/export", params={"format": "json"})
    assert exported.json()["turns"][0]["claims"] == claims
    markdown = client.get(f"/v1/conversations/{thread}/export").text
    assert f"⚠ {claims[1]['text']} ({claims[1]['reason']})" in markdown
