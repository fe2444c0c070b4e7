"""The OpenAI-compatible endpoint through the real ``openai`` SDK, streaming and not."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.app.server_helpers import served


@pytest.fixture(scope="module")
def sdk(open_app: FastAPI) -> Iterator[openai.OpenAI]:
    """The real SDK over real HTTP to the app served by uvicorn."""
    with served(open_app) as url:
        yield openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)


def test_models(sdk: openai.OpenAI) -> None:
    ids = [m.id for m in sdk.models.list()]
    assert ids[0] == "archivist"
    assert "archivist/default" in ids


def test_non_streaming_with_continuity_from_messages(sdk: openai.OpenAI) -> None:
    question = "How often must the Zephyr pump be calibrated?"
    first = sdk.chat.completions.create(
        model="archivist", messages=[{"role": "user", "content": question}])
    content = first.choices[0].message.content or ""
    assert "90 days" in content and "zephyr-manual.pdf, p. 2" in content
    assert first.choices[0].finish_reason == "stop"
    assert first.usage is not None and first.usage.total_tokens > 0
    thread_id = (first.model_extra or {})["thread_id"]
    second = sdk.chat.completions.create(model="archivist", messages=[
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": question},
        {"role": "assistant", "content": content},
        {"role": "user", "content": "How long does the Zephyr warranty last?"},
    ])
    assert (second.model_extra or {})["thread_id"] == thread_id
    assert "five" in (second.choices[0].message.content or "")


def test_streaming_with_a_thread_id(sdk: openai.OpenAI, client: TestClient) -> None:
    thread_id = "my-client-thread-0001"
    stream = sdk.chat.completions.create(
        model="archivist", stream=True, extra_body={"thread_id": thread_id},
        messages=[{"role": "user", "content": "When are Honeycrisp trees pruned?"}])
    content, reasoning, finish, threads = [], [], None, set()
    for chunk in stream:
        threads.add((chunk.model_extra or {}).get("thread_id"))
        delta = chunk.choices[0].delta
        content.append(delta.content or "")
        reasoning.append((delta.model_extra or {}).get("reasoning_content") or "")
        finish = chunk.choices[0].finish_reason or finish
    text = "".join(content)
    assert "February" in text and "orchard.md" in text
    assert "search:" in "".join(reasoning)
    assert finish == "stop" and threads == {thread_id}
    history = client.get(f"/v1/conversations/{thread_id}").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"]


def test_unknown_history_starts_a_thread_with_context(sdk: openai.OpenAI) -> None:
    reply = sdk.chat.completions.create(model="archivist", messages=[
        {"role": "user", "content": "Tell me about the orchard."},
        {"role": "assistant", "content": "It grows apples (an answer this server never gave)."},
        {"role": "user", "content": "When are Honeycrisp apples harvested?"},
    ])
    assert "September" in (reply.choices[0].message.content or "")


def test_sdk_errors(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.UnprocessableEntityError):
        sdk.chat.completions.create(model="archivist", messages=[
            {"role": "assistant", "content": "no user message"}])
