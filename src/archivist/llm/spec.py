"""``"provider:model"`` strings: parse them, and pick the one a role uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.settings import Settings

SUPPORTED_PROVIDERS = ("ollama", "openai", "anthropic", "google_genai", "local", "scripted")

#: Providers whose model part may be left out: ``scripted``, and ``local`` (default model).
_MODEL_OPTIONAL = ("scripted", "local")


def parse_llm_spec(spec: str) -> tuple[str, str]:
    """Split ``"provider:model"``; the model may contain ``:`` itself.

    >>> parse_llm_spec("ollama:qwen3:4b-instruct-2507-q4_K_M")
    ('ollama', 'qwen3:4b-instruct-2507-q4_K_M')
    >>> parse_llm_spec("scripted")
    ('scripted', '')
    >>> parse_llm_spec("local")
    ('local', '')
    """
    provider, _, model = spec.strip().partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if provider not in SUPPORTED_PROVIDERS:
        raise ArchivistError(
            f"unknown LLM provider {provider!r} in {spec!r}; "
            f'use one of: {", ".join(SUPPORTED_PROVIDERS)} (as "provider:model")'
        )
    if provider not in _MODEL_OPTIONAL and not model:
        raise ArchivistError(f'the LLM setting {spec!r} names no model; write "{provider}:MODEL"')
    return provider, model


def llm_is_set(settings: Settings) -> bool:
    """Whether the user chose the LLM (flag, environment, toml), not the default one."""
    return "model" in settings.llm.model_fields_set


def llm_spec_for(settings: Settings, role: str = "answer") -> str:
    """Return the spec a role uses: ``fast`` (rewriting, grading) prefers ``llm.fast_model``."""
    if role == "fast" and settings.llm.fast_model:
        return settings.llm.fast_model
    return settings.llm.model
