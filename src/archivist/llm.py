"""Chat models from ``"provider:model"`` strings.

``ollama:qwen3:4b-instruct-2507-q4_K_M`` (the default), ``openai:gpt-4o-mini`` (also any
OpenAI-compatible server through ``openai_base_url``: llama.cpp, vLLM, LM Studio),
``anthropic:claude-...``, ``google_genai:gemini-...``, or ``scripted`` for tests. Every real
provider's model is wrapped in :class:`archivist.resilience.RetryingChatModel`; the provider
SDK's own retries are turned off so that there is one retry policy.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from archivist.resilience import exception_chain, with_backoff
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from archivist.settings import Settings

SUPPORTED_PROVIDERS = ("ollama", "openai", "anthropic", "google_genai", "scripted")

#: The optional extra that brings each provider's LangChain package (ollama is core).
_EXTRAS = {"openai": "openai", "anthropic": "anthropic", "google_genai": "google"}

#: Ollama model families that call tools reliably, with the smallest size (billions of
#: parameters) we trust. A tag without a size is the family's default, which qualifies.
_OLLAMA_TOOL_FAMILIES: dict[str, float] = {
    "qwen3": 4.0,
    "qwen2.5": 7.0,
    "llama3.1": 8.0,
    "llama3.3": 8.0,
    "mistral-nemo": 0.0,
    "gpt-oss": 0.0,
}

_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z])", re.IGNORECASE)


def parse_llm_spec(spec: str) -> tuple[str, str]:
    """Split ``"provider:model"``; the model may contain ``:`` itself.

    >>> parse_llm_spec("ollama:qwen3:4b-instruct-2507-q4_K_M")
    ('ollama', 'qwen3:4b-instruct-2507-q4_K_M')
    >>> parse_llm_spec("scripted")
    ('scripted', '')
    """
    provider, _, model = spec.strip().partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if provider not in SUPPORTED_PROVIDERS:
        raise ArchivistError(
            f"unknown LLM provider {provider!r} in {spec!r}; "
            f'use one of: {", ".join(SUPPORTED_PROVIDERS)} (as "provider:model")'
        )
    if provider != "scripted" and not model:
        raise ArchivistError(f'the LLM setting {spec!r} names no model; write "{provider}:MODEL"')
    return provider, model


def llm_spec_for(settings: Settings, role: str = "answer") -> str:
    """Return the spec a role uses: ``fast`` (rewriting, grading) prefers ``llm_fast``."""
    if role == "fast" and settings.llm_fast:
        return settings.llm_fast
    return settings.llm


def make_chat_model(settings: Settings, role: str = "answer") -> BaseChatModel:
    """Build the chat model for ``role`` ("answer" or "fast") from the settings.

    Temperature and timeout go to the model's constructor; real providers are wrapped with
    retries (``settings.llm_max_retries``). The scripted test model is returned bare.
    Building a model does not contact the provider.
    """
    provider, model = parse_llm_spec(llm_spec_for(settings, role))
    if provider == "scripted":
        from archivist.testing import ScriptedChatModel

        return ScriptedChatModel()
    chat = _BUILDERS[provider](settings, model)
    return with_backoff(chat, settings)


def _max_tokens(settings: Settings) -> int | None:
    """The reply-length cap (None: the provider's default)."""
    return settings.llm_max_tokens


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
        base_url=settings.ollama_base_url,
        temperature=settings.temperature,
        num_predict=_max_tokens(settings),
        client_kwargs={"timeout": settings.llm_timeout_s},
    )


def _build_openai(settings: Settings, model: str) -> BaseChatModel:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise _missing_extra("openai", exc) from exc
    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key:
        if not settings.openai_base_url:
            raise ArchivistError(
                "the 'openai' provider needs OPENAI_API_KEY, or openai_base_url "
                "pointing at an OpenAI-compatible server"
            )
        api_key = "not-needed"
    kwargs: dict[str, Any] = {
        "model": model,
        "api_key": api_key,
        "temperature": settings.temperature,
        "timeout": settings.llm_timeout_s,
        "max_retries": 0,
    }
    max_tokens = _max_tokens(settings)
    if max_tokens:
        kwargs["max_tokens"] = max_tokens  # sent as "max_completion_tokens"
    if settings.openai_base_url:
        kwargs["base_url"] = settings.openai_base_url
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
        temperature=settings.temperature,
        timeout=settings.llm_timeout_s,
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
        temperature=settings.temperature,
        timeout=settings.llm_timeout_s,
        max_retries=0,
        max_output_tokens=_max_tokens(settings),
    )
    return chat


_BUILDERS = {
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
        return f"ollama model {model} at {settings.ollama_base_url}"
    if provider == "openai":
        where = settings.openai_base_url or "https://api.openai.com/v1"
        return f"openai model {model} at {where}"
    if provider == "anthropic":
        return f"anthropic model {model} (Anthropic API)"
    return f"google_genai model {model} (Google Gemini API)"


def supports_tool_calling(settings: Settings, role: str = "answer") -> bool:
    """Whether ``strategy = "auto"`` should trust this model with native tool calling.

    A conservative heuristic, used only to pick the agent's strategy:

    - ``scripted``, ``anthropic``, ``google_genai`` and ``openai`` on OpenAI's own API: yes.
    - ``openai`` with a custom ``openai_base_url`` (llama.cpp, LM Studio, vLLM, ...): no,
      since whether tools work depends on the server and the model behind it.
    - ``ollama``: yes only for families known to call tools well, at or above a size:
      qwen3 >= 4b, qwen2.5 >= 7b, llama3.1 / llama3.3 >= 8b, mistral-nemo, gpt-oss.
      A tag without a size (``qwen3:latest``) is the family default and qualifies; any
      other or smaller model gets the pipeline strategy.

    Set ``strategy`` explicitly to override it.
    """
    provider, model = parse_llm_spec(llm_spec_for(settings, role))
    if provider in ("scripted", "anthropic", "google_genai"):
        return True
    if provider == "openai":
        return not settings.openai_base_url
    return _ollama_calls_tools(model)


def _ollama_calls_tools(model: str) -> bool:
    name = model.lower().rsplit("/", 1)[-1]
    family, _, tag = name.partition(":")
    minimum = _OLLAMA_TOOL_FAMILIES.get(family)
    if minimum is None:
        return False
    size = _SIZE.search(tag)
    return size is None or float(size.group(1)) >= minimum


def is_connection_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or anything in its cause chain) means "could not reach the LLM".

    Connection refused / unreachable and connect timeouts count; a slow answer (read
    timeout) or an HTTP error status does not.
    """
    for error in exception_chain(exc):
        if isinstance(error, ConnectionError):  # incl. ConnectionRefusedError, ollama's
            return True
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & {"ConnectError", "ConnectTimeout"}:  # httpx, httpx2
            return True
        if "APIConnectionError" in names and "APITimeoutError" not in names:
            return True  # openai / anthropic: could not connect
        if "failed to connect" in str(error).lower():
            return True
    return False
