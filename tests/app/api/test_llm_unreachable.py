"""When the LLM cannot be reached: 503 naming the provider, or a labelled retrieval-only stream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.app.server_helpers import parse_sse, served

from archivist.app.api.app import create_app
from archivist.application import Application
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.settings import Settings


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder,
            corpus: dict[str, Path]) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("offline"),
        llm={
            "model": "ollama:qwen3:4b",
            "ollama_base_url": "http://127.0.0.1:9",
            "max_retries": 0,
            "timeout_s": 5,
        },
    )
    library = Application(settings, embedder=embedder)
    library.ingest.files([corpus["zephyr"]])
    with TestClient(create_app(library, ui=False), base_url="http://localhost",
                    raise_server_exceptions=False) as client:
        yield client
    library.close()


def test_json_turn_is_503_naming_the_provider(offline: TestClient) -> None:
    thread_id = offline.post("/v1/conversations").json()["thread_id"]
    response = offline.post(f"/v1/conversations/{thread_id}/messages",
                            json={"message": "How often is the Zephyr pump calibrated?"})
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["type"] == "llm_unavailable" and error["provider"] == "ollama"
    assert "127.0.0.1:9" in error["message"]
    fallback = response.json()["retrieval_only"]
    assert fallback["answer"].startswith("Retrieval-only answer")


def test_stream_is_a_labelled_retrieval_only_answer(offline: TestClient) -> None:
    thread_id = offline.post("/v1/conversations").json()["thread_id"]
    with offline.stream("POST", f"/v1/conversations/{thread_id}/stream",
                        json={"message": "How often is the Zephyr pump calibrated?"}) as r:
        assert r.status_code == 200
        frames = parse_sse("".join(r.iter_text()))
    names = [n for n, _ in frames]
    errors = [d["message"] for n, d in frames if n == "error"]
    assert errors and "ollama" in errors[0] and "127.0.0.1:9" in errors[0]
    assert names.index("error") < names.index("token")
    assert names[-1] == "done" and frames[-1][1]["status"] == "retrieval_only"
    text = "".join(d["text"] for n, d in frames if n == "token")
    assert text.startswith("Retrieval-only answer") and "90 days" in text


def test_openai_sdk_sees_503_or_labelled_stream(offline: TestClient) -> None:
    assert isinstance(offline.app, FastAPI)
    with served(offline.app) as url:
        sdk = openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0)
        check_sdk_sees_503_or_labelled_stream(sdk)


def check_sdk_sees_503_or_labelled_stream(sdk: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": "How often is the Zephyr pump calibrated?"}]
    with pytest.raises(openai.InternalServerError) as caught:
        sdk.chat.completions.create(model="archivist", messages=messages)  # type: ignore[arg-type]
    assert caught.value.status_code == 503
    chunks = sdk.chat.completions.create(model="archivist", messages=messages,  # type: ignore[arg-type]
                                         stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "cannot reach the LLM" in text and "Retrieval-only answer" in text
