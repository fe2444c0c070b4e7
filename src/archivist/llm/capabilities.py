"""What a configured chat model can do: the capability profile the provider factory returns.

The agent never inspects a model's class to decide how to talk to it; it reads the
:class:`ModelProfile` that :func:`archivist.llm.build_chat_model` hands back with the model
(or :func:`profile_for`, which derives the same profile from the settings alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from archivist.llm.server_report import reported_size, stated_billions
from archivist.llm.spec import llm_spec_for, parse_llm_spec

if TYPE_CHECKING:
    from archivist.settings import Settings

StructuredMethod = Literal["native", "prompted"]
#: ``small``: a model that needs the small-model checks of the agent's policy (the
#: ``local`` provider's 0.5B/1.5B, served models under 7B); ``capable``: one that does not.
SizeClass = Literal["small", "capable"]
#: The smallest model (billions of parameters) treated as capable.
CAPABLE_BILLIONS = 7.0

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


@dataclass(frozen=True, kw_only=True)
class ModelProfile:
    """How to use one chat model.

    ``structured``: ``"native"`` asks the provider for schema-constrained output
    (``with_structured_output``); ``"prompted"`` describes the schema in the prompt and
    parses the reply's first JSON object (OpenAI-compatible servers such as llama.cpp,
    vLLM or LM Studio, which reject or crawl through ``response_format: json_schema``).
    ``tool_calling``: whether the model is trusted with native tool calling.
    ``parallel_slots``: how many requests it serves at once (``None``: no known limit,
    as for cloud APIs; local servers default to 1).
    ``size``: which checks the agent's policy applies (see ``archivist.agent.policy``);
    ``size_from``: what decided it, as shown in the agent's steps.
    """

    structured: StructuredMethod = "native"
    tool_calling: bool = True
    parallel_slots: int | None = None
    size: SizeClass = "capable"
    size_from: str = field(default="", compare=False)

    @property
    def small(self) -> bool:
        """Whether the small-model checks apply."""
        return self.size == "small"


#: How the ``local`` provider (llama.cpp in-process) gets structured output: measured on
#: Qwen2.5-Coder 0.5B/1.5B, see docs/results.md.
LOCAL_STRUCTURED: StructuredMethod = "native"

#: The profile of a model nothing is known about: a capable cloud API.
DEFAULT_PROFILE = ModelProfile()


def profile_for(settings: Settings, role: str = "answer") -> ModelProfile:
    """The capability profile of the model ``role`` uses.

    The size class comes from, in order: the ``policy`` setting (``small`` / ``capable``);
    the size an ``openai`` (custom server) or ``ollama`` server reports for the model
    (:mod:`archivist.llm.server_report`); the size the model's name states.
    """
    forced = settings.agent.policy
    if forced in ("small", "capable"):
        profile = _derived_profile(settings, role, ask_server=False)
        return replace(profile, size=forced, size_from=f"set by policy={forced}")
    return _derived_profile(settings, role, ask_server=True)


def describe_profile(settings: Settings, role: str = "answer") -> str:
    """One line on the profile ``role``'s model gets and why: ``"small (...)"``."""
    profile = profile_for(settings, role)
    return f"{profile.size} ({profile.size_from})"


def _derived_profile(settings: Settings, role: str, *, ask_server: bool) -> ModelProfile:
    provider, model = parse_llm_spec(llm_spec_for(settings, role))
    if provider == "scripted":
        return ModelProfile(size_from="the scripted test model")
    if provider in ("anthropic", "google_genai"):
        return ModelProfile(size_from=f"a hosted {provider} model")
    if provider == "local":
        return ModelProfile(
            structured=LOCAL_STRUCTURED, tool_calling=False,
            parallel_slots=settings.llm.local_parallel, size="small",
            size_from="the local provider runs small models",
        )
    if provider == "openai":
        base = settings.llm.openai_base_url or ""
        if not base:
            return ModelProfile(size_from="OpenAI's API")
        if "api.openai.com" in base:  # named explicitly: whether tools work is not assumed
            return ModelProfile(tool_calling=False, size_from="OpenAI's API")
        size, size_from = _served_size(provider, model, base, size_class(model, "capable"),
                                       ask_server=ask_server)
        return ModelProfile(structured="prompted", tool_calling=False, parallel_slots=1,
                            size=size, size_from=size_from)
    size, size_from = _served_size(provider, model, settings.llm.ollama_base_url,
                                   ollama_size_class(model), ask_server=ask_server)
    return ModelProfile(tool_calling=ollama_calls_tools(model), parallel_slots=1,
                        size=size, size_from=size_from)


def _served_size(
    provider: str, model: str, base_url: str, by_name: SizeClass, *, ask_server: bool
) -> tuple[SizeClass, str]:
    """The size class the server reports for ``model``, else ``by_name``; and its source."""
    reported = reported_size(provider, model, base_url) if ask_server else None
    if reported is not None:
        size: SizeClass = "small" if reported.billions < CAPABLE_BILLIONS else "capable"
        return size, reported.describe()
    stated = stated_billions(model.partition(":")[2] if provider == "ollama" else model)
    if stated is None:
        return by_name, "no size reported by the server or stated in the name"
    return by_name, f"the name states {stated:g}B"


def size_class(model: str, default: SizeClass) -> SizeClass:
    """``small`` when the model name states a size under 7B, else ``default``."""
    billions = stated_billions(model)
    if billions is None:
        return default
    return "small" if billions < CAPABLE_BILLIONS else "capable"


def ollama_size_class(model: str) -> SizeClass:
    """An Ollama tag's size class: its stated size, else its family's default model.

    ``qwen2.5:1.5b`` and ``qwen3:4b-instruct`` are small, ``qwen2.5:14b`` capable; a tag
    without a size is capable when its family is one known to call tools well.
    """
    name = model.lower().rsplit("/", 1)[-1]
    family, _, tag = name.partition(":")
    known = family in _OLLAMA_TOOL_FAMILIES
    return size_class(tag, default="capable" if known else "small")


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
    return profile_for(settings, role).tool_calling


def ollama_calls_tools(model: str) -> bool:
    """Whether an Ollama model tag belongs to a family (and size) known to call tools."""
    name = model.lower().rsplit("/", 1)[-1]
    family, _, tag = name.partition(":")
    minimum = _OLLAMA_TOOL_FAMILIES.get(family)
    if minimum is None:
        return False
    billions = stated_billions(tag)
    return billions is None or billions >= minimum
