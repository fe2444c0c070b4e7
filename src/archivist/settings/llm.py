"""``[llm]``: which language model answers, and how it is called."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from archivist.llm.models import OLLAMA_FALLBACK_LLM, default_llm


class LLMSettings(BaseModel):
    """The model, its options and its providers (``[llm]``, ``ARCHIVIST_LLM__*``)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(default_factory=default_llm, description='"provider:model", or '
                       f'"scripted". Unset: the fetched local model, else {OLLAMA_FALLBACK_LLM}.')
    fast_model: str | None = Field(default=None, description="Model for rewriting and grading.")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    timeout_s: float = Field(default=120.0, gt=0, description="Seconds an LLM call may take.")
    max_retries: int = Field(default=3, ge=0, le=20, description="Retries of a failed LLM call.")
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Cap on reply tokens (also sent as max_tokens to OpenAI-compatible servers).",
    )

    # --- providers -----------------------------------------------------------------
    ollama_base_url: str = Field(
        default="http://localhost:11434",
        description="Where Ollama listens (OLLAMA_HOST is read too).",
    )
    openai_base_url: str | None = Field(
        default=None, description="An OpenAI-compatible server instead of OpenAI "
        "(OPENAI_BASE_URL is read too).",
    )

    # --- the local model -----------------------------------------------------------
    local_parallel: int = Field(
        default=2, ge=1, le=8,
        description="Requests the local model serves at once (llama.cpp slots); more wait.",
    )
    local_context: int = Field(
        default=8192, ge=1024, description="Context tokens per slot of the local model."
    )
    local_threads: int | None = Field(
        default=None, ge=1, description="CPU threads of the local model (default: all cores)."
    )
    local_prompt_cache: bool = Field(
        default=True,
        description="Reuse the prompt prefix a slot already holds (faster). llama.cpp's "
        "replies may then differ with what the slot held before; off, they do not, for "
        "benchmarks that compare systems item by item.",
    )
    local_timeout_s: float | None = Field(
        default=None, gt=0,
        description="Seconds a local model call may take before it fails like any LLM failure "
        "(default: sized from the model's measured speed, at least 60 s).",
    )

    # --- tracing -------------------------------------------------------------------
    langfuse_public_key: str | None = Field(
        default=None, description="Langfuse tracing of LLM calls, with the secret key "
        "(LANGFUSE_PUBLIC_KEY is read too).",
    )
    langfuse_secret_key: str | None = Field(
        default=None, description="Langfuse's secret key (LANGFUSE_SECRET_KEY is read too).",
    )
    langfuse_host: str | None = Field(
        default=None, description="A self-hosted Langfuse (LANGFUSE_HOST is read too).",
    )
