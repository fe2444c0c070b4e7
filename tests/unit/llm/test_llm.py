"""The chat-model factory: specs, constructor arguments, capability heuristic, errors."""

from __future__ import annotations

import socket
import sys

import httpx
import openai
import pytest
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI

from archivist.llm import (
    SUPPORTED_PROVIDERS,
    describe_llm,
    is_connection_error,
    make_chat_model,
    parse_llm_spec,
    supports_tool_calling,
)
from archivist.llm.resilience import RetryingChatModel
from archivist.settings import Settings
from archivist.types import ArchivistError


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"):
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ollama:qwen3:4b-instruct-2507-q4_K_M", ("ollama", "qwen3:4b-instruct-2507-q4_K_M")),
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("google_genai:gemini-2.5-flash", ("google_genai", "gemini-2.5-flash")),
        ("scripted", ("scripted", "")),
        (" OLLAMA:llama3.1:8b ", ("ollama", "llama3.1:8b")),
    ],
)
def test_parse_llm_spec(spec: str, expected: tuple[str, str]) -> None:
    assert parse_llm_spec(spec) == expected


def test_unknown_provider_lists_the_supported_ones() -> None:
    with pytest.raises(ArchivistError) as caught:
        parse_llm_spec("mistral:large")
    for provider in SUPPORTED_PROVIDERS:
        assert provider in str(caught.value)


def test_spec_without_model_is_an_error() -> None:
    with pytest.raises(ArchivistError, match="names no model"):
        parse_llm_spec("ollama")


def test_ollama_model_gets_settings_in_its_constructor() -> None:
    settings = Settings(
        llm={
            "model": "ollama:qwen3:4b-instruct-2507-q4_K_M",
            "ollama_base_url": "http://127.0.0.1:9999",
            "temperature": 0.3,
            "timeout_s": 42.0,
            "max_retries": 5,
        },
    )
    model = make_chat_model(settings)
    assert isinstance(model, RetryingChatModel)
    assert model.retries == 5
    assert isinstance(model, ChatOllama)
    inner = model
    assert inner.model == "qwen3:4b-instruct-2507-q4_K_M"
    assert inner.base_url == "http://127.0.0.1:9999"
    assert inner.temperature == 0.3
    assert inner.client_kwargs == {"timeout": 42.0}


def test_fast_role_uses_llm_fast_when_set() -> None:
    settings = Settings(llm={"model": "ollama:qwen3:8b", "fast_model": "ollama:qwen3:1.7b"})
    assert make_chat_model(settings, role="fast").model == "qwen3:1.7b"  # type: ignore[attr-defined]
    assert make_chat_model(settings).model == "qwen3:8b"  # type: ignore[attr-defined]
    plain = Settings(llm={"model": "ollama:qwen3:8b"})
    assert make_chat_model(plain, role="fast").model == "qwen3:8b"  # type: ignore[attr-defined]


def test_openai_compatible_server_needs_no_key() -> None:
    settings = Settings(
        llm={
            "model": "openai:gemma3-270m",
            "openai_base_url": "http://127.0.0.1:8080/v1",
            "temperature": 0.1,
            "timeout_s": 30.0,
        },
    )
    inner = make_chat_model(settings)
    assert isinstance(inner, ChatOpenAI)
    assert inner.model_name == "gemma3-270m"
    assert inner.openai_api_base == "http://127.0.0.1:8080/v1"
    assert inner.openai_api_key is not None
    assert inner.openai_api_key.get_secret_value() == "not-needed"
    assert inner.temperature == 0.1
    assert inner.request_timeout == 30.0
    assert inner.max_retries == 0


def test_openai_base_url_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8081/v1")
    inner = make_chat_model(Settings(llm={"model": "openai:local"}))
    assert inner.openai_api_base == "http://127.0.0.1:8081/v1"


def test_openai_without_key_or_base_url_is_a_clear_error() -> None:
    with pytest.raises(ArchivistError, match="OPENAI_API_KEY"):
        make_chat_model(Settings(llm={"model": "openai:gpt-4o-mini"}))


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("openai:gpt-4o-mini", "langchain_openai", "openai"),
        ("anthropic:claude-sonnet-4-5", "langchain_anthropic", "anthropic"),
        ("google_genai:gemini-2.5-flash", "langchain_google_genai", "google"),
    ],
)
def test_missing_provider_package_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, spec: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes the import fail
    with pytest.raises(ArchivistError) as caught:
        make_chat_model(Settings(llm={"model": spec}))
    assert f"pip install 'archivist[{extra}]'" in str(caught.value)


def test_scripted_model_is_returned_bare() -> None:
    from archivist.testing import ScriptedChatModel

    model = make_chat_model(Settings(llm={"model": "scripted"}))
    assert isinstance(model, ScriptedChatModel)


def test_describe_llm() -> None:
    assert (
        describe_llm(Settings(llm={"model": "ollama:qwen3:4b-instruct-2507-q4_K_M"}))
        == "ollama model qwen3:4b-instruct-2507-q4_K_M at http://localhost:11434"
    )
    local = Settings(llm={"model": "openai:gemma", "openai_base_url": "http://127.0.0.1:8080/v1"})
    assert describe_llm(local) == "openai model gemma at http://127.0.0.1:8080/v1"
    assert "scripted" in describe_llm(Settings(llm={"model": "scripted"}))
    fast = Settings(llm={"model": "ollama:qwen3:8b", "fast_model": "ollama:qwen3:1.7b"})
    assert "qwen3:1.7b" in describe_llm(fast, role="fast")


@pytest.mark.parametrize(
    ("spec", "base_url", "expected"),
    [
        ("scripted", None, True),
        ("openai:gpt-4o-mini", None, True),
        ("openai:gemma3-270m", "http://127.0.0.1:8080/v1", False),
        ("anthropic:claude-sonnet-4-5", None, True),
        ("google_genai:gemini-2.5-flash", None, True),
        ("ollama:qwen3:4b-instruct-2507-q4_K_M", None, True),
        ("ollama:qwen3", None, True),
        ("ollama:qwen3:1.7b", None, False),
        ("ollama:qwen3:0.6b", None, False),
        ("ollama:qwen2.5:7b-instruct", None, True),
        ("ollama:qwen2.5:3b", None, False),
        ("ollama:llama3.1:8b", None, True),
        ("ollama:llama3.2:3b", None, False),
        ("ollama:mistral-nemo:12b", None, True),
        ("ollama:gpt-oss:20b", None, True),
        ("ollama:gemma3:270m", None, False),
        ("ollama:phi3:mini", None, False),
    ],
)
def test_supports_tool_calling(spec: str, base_url: str | None, expected: bool) -> None:
    settings = Settings(llm={"model": spec, "openai_base_url": base_url})
    assert supports_tool_calling(settings) is expected


def test_is_connection_error_walks_the_cause_chain() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    assert is_connection_error(ConnectionRefusedError())
    assert is_connection_error(httpx.ConnectError("refused", request=request))
    assert is_connection_error(httpx.ConnectTimeout("slow connect", request=request))
    wrapper = RuntimeError("graph node failed")
    wrapper.__cause__ = httpx.ConnectError("refused", request=request)
    assert is_connection_error(wrapper)
    assert is_connection_error(
        ConnectionError("Failed to connect to Ollama. Please check that Ollama is running.")
    )
    assert is_connection_error(openai.APIConnectionError(request=request))  # type: ignore[arg-type]
    assert not is_connection_error(openai.APITimeoutError(request=request))  # type: ignore[arg-type]
    assert not is_connection_error(httpx.ReadTimeout("slow answer", request=request))
    assert not is_connection_error(ValueError("bad output"))


def test_unreachable_ollama_is_retried_then_reported_as_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(llm={"model": "ollama:qwen3:0.6b", "ollama_base_url": f"http://127.0.0.1:{port}"})
    delays: list[float] = []
    model = make_chat_model(settings)
    model = model.model_copy(update={"retry_sleep": delays.append})
    with pytest.raises(Exception) as caught:
        model.invoke("hi")
    assert is_connection_error(caught.value)
    assert len(delays) == settings.llm.max_retries


class CappedSettings(Settings):
    llm_max_tokens: int | None = None


def test_reply_cap_reaches_the_constructor_and_legacy_servers() -> None:
    local = CappedSettings(
        llm="openai:gemma3-270m", openai_base_url="http://127.0.0.1:8080/v1", llm_max_tokens=64
    )
    inner = make_chat_model(local)
    assert inner.max_tokens == 64
    assert inner.extra_body == {"max_tokens": 64}
    ollama = make_chat_model(CappedSettings(llm="ollama:qwen3:4b", llm_max_tokens=32))
    assert ollama.num_predict == 32  # type: ignore[attr-defined]
    assert make_chat_model(CappedSettings(llm="ollama:qwen3:4b")).num_predict is None  # type: ignore[attr-defined]
