"""Chat models from ``"provider:model"`` strings.

``ollama:qwen3:4b-instruct-2507-q4_K_M`` (the default), ``openai:gpt-4o-mini`` (also any
OpenAI-compatible server through ``openai_base_url``: llama.cpp, vLLM, LM Studio),
``anthropic:claude-...``, ``google_genai:gemini-...``, ``local`` (a GGUF run in this process:
``local``, ``local:0.5b`` or ``local:/path/model.gguf``), or ``scripted`` for tests. Every real
provider's model is wrapped in :class:`archivist.llm.resilience.RetryingChatModel`; the provider
SDK's own retries are turned off so that there is one retry policy.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from archivist.llm.capabilities import ModelProfile, profile_for
from archivist.llm.spec import llm_spec_for, parse_llm_spec
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from archivist.settings import Settings

#: The optional extra that brings each provider's LangChain package (ollama is core).
_EXTRAS = {"openai": "openai", "anthropic": "anthropic", "google_genai": "google"}


class ChatModel(NamedTuple):
    """A built chat model and what it can do."""

    model: BaseChatModel
    profile: ModelProfile


def build_chat_model(settings: Settings, role: str = "answer") -> ChatModel:
    """Build the chat model for ``role`` ("answer" or "fast") with its capability profile.

    Temperature and timeout go to the model's constructor; real providers are wrapped with
    retries (``settings.llm.max_retries``). The scripted test model is returned bare.
    Building a model does not contact the provider.
    """
    provider, model = parse_llm_spec(llm_spec_for(settings, role))
    profile = profile_for(settings, role)
    if provider == "scripted":
        from archivist.testing import ScriptedChatModel

        return ChatModel(ScriptedChatModel(), profile)
    from archivist.llm.resilience import with_backoff

    chat = _BUILDERS[provider](settings, model)
    return ChatModel(with_backoff(chat, settings, slots=_slots(settings, provider, profile)),
                     profile)


def _slots(settings: Settings, provider: str, profile: ModelProfile) -> tuple[str, int] | None:
    """The request slots calls must wait for: a local server's, keyed by its address.

    The ``local`` model queues requests inside its own server (no timeout ticks there);
    cloud APIs have no known limit.
    """
    if profile.parallel_slots is None or provider == "local":
        return None
    where = settings.llm.ollama_base_url if provider == "ollama" else settings.llm.openai_base_url
    return f"{provider}:{where}", profile.parallel_slots


def make_chat_model(settings: Settings, role: str = "answer") -> BaseChatModel:
    """The chat model of :func:`build_chat_model`, without its profile."""
    return build_chat_model(settings, role).model


def _max_tokens(settings: Settings) -> int | None:
    """The reply-length cap (None: the provider's default)."""
    return settings.llm.max_tokens


def _missing_extra(provider: str, exc: ImportError) -> ArchivistError:
    extra = _EXTRAS[provider]
    error = ArchivistError(
        f"the {provider!r} provider needs the optional extra: pip install 'archivist[{extra}]'"
    )
    error.__cause__ = exc
    return error


def _build_ollama(settings: Settings, model: str) -> BaseChatModel:
    from langchain_ollama import ChatOllama

    return ChatOllama(
        model=model,
        base_url=settings.llm.ollama_base_url,
        temperature=settings.llm.temperature,
        num_predict=_max_tokens(settings),
        client_kwargs={"timeout": settings.llm.timeout_s},
    )


def _build_openai(settings: Settings, model: str) -> BaseChatModel:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise _missing_extra("openai", exc) from exc
    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not settings.llm.openai_base_url:
            raise ArchivistError(
                "the 'openai' provider needs OPENAI_API_KEY, or openai_base_url "
                "pointing at an OpenAI-compatible server"
            )
        api_key = "not-needed"
    kwargs: dict[str, Any] = {
        "model": model,
        "api_key": api_key,
        "temperature": settings.llm.temperature,
        "timeout": settings.llm.timeout_s,
        "max_retries": 0,
        # ask for token usage in the stream's last chunk (stream_options.include_usage):
        # without it a streamed answer counts 0 tokens on OpenAI-compatible servers
        "stream_usage": True,
    }
    max_tokens = _max_tokens(settings)
    if max_tokens:
        kwargs["max_tokens"] = max_tokens  # sent as "max_completion_tokens"
    if settings.llm.openai_base_url:
        kwargs["base_url"] = settings.llm.openai_base_url
        if max_tokens:
            # llama-cpp-python's server (and other older OpenAI-compatible servers) only
            # read the legacy "max_tokens" and would otherwise generate until n_ctx.
            kwargs["extra_body"] = {"max_tokens": max_tokens}
    return ChatOpenAI(**kwargs)


def _build_anthropic(settings: Settings, model: str) -> BaseChatModel:
    try:
        from langchain_anthropic import ChatAnthropic
    except ImportError as exc:
        raise _missing_extra("anthropic", exc) from exc
    extra: dict[str, Any] = {}
    if _max_tokens(settings):
        extra["max_tokens"] = _max_tokens(settings)
    chat: BaseChatModel = ChatAnthropic(  # type: ignore[call-arg]
        model=model,
        temperature=settings.llm.temperature,
        timeout=settings.llm.timeout_s,
        max_retries=0,
        **extra,
    )
    return chat


def _build_google(settings: Settings, model: str) -> BaseChatModel:
    try:
        from langchain_google_genai import ChatGoogleGenerativeAI
    except ImportError as exc:
        raise _missing_extra("google_genai", exc) from exc
    chat: BaseChatModel = ChatGoogleGenerativeAI(
        model=model,
        temperature=settings.llm.temperature,
        timeout=settings.llm.timeout_s,
        max_retries=0,
        max_output_tokens=_max_tokens(settings),
    )
    return chat


def _build_local(settings: Settings, model: str) -> BaseChatModel:
    from archivist.llm.local import DEFAULT_REPLY_TOKENS, LocalChatModel
    from archivist.llm.models import resolve_model_path

    return LocalChatModel(
        model_path=resolve_model_path(model),
        model_name=f"local:{model}" if model else "local",
        temperature=settings.llm.temperature,
        max_tokens=_max_tokens(settings) or DEFAULT_REPLY_TOKENS,
        context_per_slot=settings.llm.local_context,
        parallel=settings.llm.local_parallel, prompt_cache=settings.llm.local_prompt_cache,
        threads=settings.llm.local_threads,
        timeout_s=settings.llm.local_timeout_s,
    )


_BUILDERS = {
    "local": _build_local,
    "ollama": _build_ollama,
    "openai": _build_openai,
    "anthropic": _build_anthropic,
    "google_genai": _build_google,
}


def describe_llm(settings: Settings, role: str = "answer") -> str:
    """Which model a role talks to, and where, for messages such as "cannot reach ..."."""
    provider, model = parse_llm_spec(llm_spec_for(settings, role))
    if provider == "scripted":
        return "the scripted test model"
    if provider == "ollama":
        return f"ollama model {model} at {settings.llm.ollama_base_url}"
    if provider == "openai":
        where = settings.llm.openai_base_url or "https://api.openai.com/v1"
        return f"openai model {model} at {where}"
    if provider == "local":
        from archivist.llm.models import DEFAULT_LOCAL_MODEL

        return f"local model {model or DEFAULT_LOCAL_MODEL} (in this process)"
    if provider == "anthropic":
        return f"anthropic model {model} (Anthropic API)"
    return f"google_genai model {model} (Google Gemini API)"
