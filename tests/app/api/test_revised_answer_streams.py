"""A revised answer over HTTP: the SSE stream carries ``replace``; the OpenAI stream says so.

The streamed first answer abstains although a passage was graded relevant; the second look
answers. Clients must end up showing the kept answer (issue 10).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient
from langchain_core.messages import BaseMessage
from tests.app.conftest import open_library
from tests.app.server_helpers import parse_sse, served

from archivist.app.api.app import create_app
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.testing import CallInfo, ScriptedChatModel

QUESTION = "When are Honeycrisp trees pruned?"
STREAMED = "The documents do not contain when Honeycrisp trees are pruned."
KEPT = "Honeycrisp trees are pruned in late February [orchard.md]."


def _abstain_first(messages: list[BaseMessage], info: CallInfo) -> str | None:
    if info.schema is not None or info.tools:
        return None
    return KEPT if "judged relevant" in str(messages[0].content) else STREAMED


@pytest.fixture(scope="module")
def revising_client(
    tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
    corpus: dict[str, Path],
) -> Iterator[TestClient]:
    library = open_library(tmp_path_factory, embedder, "revising-lib",
                           llm=ScriptedChatModel(rules=[_abstain_first]), strategy="pipeline")
    library.ingest.files([corpus["orchard"]])
    with TestClient(create_app(library, ui=False), base_url="http://localhost") as client:
        yield client
    library.close()


def test_sse_sends_the_kept_answer_after_the_streamed_one(revising_client: TestClient) -> None:
    thread_id = revising_client.post("/v1/conversations").json()["thread_id"]
    with revising_client.stream("POST", f"/v1/conversations/{thread_id}/stream",
                                json={"message": QUESTION}) as response:
        frames = parse_sse("".join(response.iter_text()))
    names = [name for name, _ in frames]
    assert "".join(d["text"] for n, d in frames if n == "token").strip() == STREAMED
    assert names[-4:] == ["replace", "sources", "stats", "done"]
    assert frames[-4][1]["text"] == frames[-1][1]["answer"] == KEPT
    history = revising_client.get(f"/v1/conversations/{thread_id}").json()["messages"]
    assert history[-1]["content"].startswith(KEPT)


def test_the_openai_stream_shows_the_revision(revising_client: TestClient) -> None:
    with served(revising_client.app) as url:  # type: ignore[arg-type]
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        stream = sdk.chat.completions.create(
            model="archivist", stream=True, messages=[{"role": "user", "content": QUESTION}])
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
    assert text.index(STREAMED) < text.index("Revised answer") < text.index(KEPT)
