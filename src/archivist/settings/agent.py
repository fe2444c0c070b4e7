"""``[agent]``: how the agent researches and answers, and what it may spend."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

StrategySetting = Literal["auto", "tools", "pipeline"]
#: What ``disabled_checks`` may name: a check of the policy (``agent/policy.py``) or a step
#: of the answer stage (``agent/answer/steps.py``).
CheckName = Literal[
    "plan_in_code", "review_analysis", "score_gate", "second_look", "bridge_hop",
    "abstain_in_code", "compose_in_code", "document_in_code",
    "without_markup", "quote_pointed", "without_repeats", "attribute_uncited",
    "recite_unsupported", "prune_citations", "verify",
]


class AgentSettings(BaseModel):
    """Strategy, policy, budgets, tables and web search (``[agent]``, ``ARCHIVIST_AGENT__*``)."""

    model_config = ConfigDict(extra="forbid")

    strategy: StrategySetting = Field(default="auto",
        description="tools, pipeline, or auto (by model).",
    )
    policy: Literal["auto", "small", "capable"] = Field(
        default="auto", description="Small-model checks (small) or none (capable); auto: "
        "small for the local provider and models under 7B (the size their server reports, "
        "else the one their name states).")

    # --- budgets -------------------------------------------------------------------
    max_tool_calls: int = Field(default=8, ge=1, description="Tool calls per sub-question.")
    max_iterations: int = Field(default=6, ge=1, description="Model turns per sub-question.")
    max_sub_questions: int = Field(default=3, ge=1, le=3,
        description="Parts of a compound question.",
    )
    compression_tokens: int = Field(default=6000, ge=200,
        description="Working memory compressed past it.",
    )
    memory_turns: int = Field(default=4, ge=1, description="Turns kept verbatim.")
    memory_summary_tokens: int = Field(default=2000, ge=100,
        description="Size of the turns' summary.",
    )
    tool_result_hits: int = Field(default=6, ge=1, le=20,
        description="Passages a search shows the model.",
    )
    hits_per_section: int = Field(default=0, ge=0, le=20,
        description="Passages of one section a search shows at most (1: each section once, "
        "more sections shown; 0: no limit, the first chunks as ranked).",
    )
    sql_attempts: int | None = Field(default=None, ge=0, le=3,
        description="Queries the model may write for one table question: 1 sends a query "
        "that fails or returns nothing straight to the text path; 2 first asks again with "
        "the error; 0 writes none (figures come from the metric path and the passages). "
        "Unset: the profile's (1 for a small model, 2 otherwise).",
    )
    search_mode: Literal["auto", "hybrid", "bm25", "dense", "multihop", "graph"] = Field(
        default="auto",
        description="The search mode of the agent's searches. auto: graph when the library "
        "builds the entity graph (index.entity_graph), else index.search_mode.",
    )
    pipeline_read_chars: int = Field(
        default=4000, ge=0,
        description="pipeline strategy: characters of whole parent sections read for the "
        "answer, best passage's section first (0: answer from the passages only).",
    )
    evidence_tokens: int | None = Field(
        default=None, ge=100, le=20_000,
        description="Tokens of evidence sentences the answer is written from (default: the "
        "model profile's, 700 for a small model and 2,500 for a capable one).",
    )
    evidence_floor: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Evidence sentences scoring under this share of the best one's score are "
        "left out (0: the best fill evidence_tokens; default: the model profile's).",
    )
    search_hits_kept: int = Field(
        default=4, ge=0, le=10,
        description="A small model's evidence: the first hits of each search kept even when "
        "they do not name the question's subjects, once any hit does (0: only hits that "
        "name them).",
    )
    max_hops: int = Field(
        default=1, ge=0, le=4,
        description="Bridge hops a small model's research may take: a search for the names "
        "its passages or its answer state, then the answer written again (0: none).",
    )
    max_clarifications: int = Field(default=2, ge=0, description="Ask-back rounds per question.")
    second_look: bool = Field(
        default=True,
        description="When an answer abstains although passages were graded relevant, read "
        "them once more with a find-the-row prompt (one more LLM call).",
    )
    strictness: Literal["lenient", "balanced", "strict"] = Field(
        default="balanced",
        description="How sure an answer must be to be shown rather than abstained on: its "
        "share of supported sentences times how well it addresses the question must reach "
        "0.25 (lenient), 0.5 (balanced) or 0.75 (strict).",
    )
    disabled_checks: list[CheckName] = Field(
        default_factory=list,
        description="Checks of the profile's policy or steps of its answer stage turned off, "
        "by name (e.g. [\"bridge_hop\", \"prune_citations\"]): to measure what each one "
        "does, with and without, in one run.",
    )
    verify_claims: bool = Field(
        default=False,
        description="Put each answer sentence the claim check passed to the model as a yes/no "
        "question; a no marks it unsupported (one short LLM call per sentence).",
    )

    document_questions: bool = Field(
        default=True,
        description="A question about a whole named document (\"Summarize X\", \"List the "
        "sections of X\") is answered from all its sections, summarised once and cached, "
        "instead of from the top passages of a search.",
    )

    # --- tables --------------------------------------------------------------------
    table_queries: bool = Field(default=True, description="Computations over the documents' "
                                "tables: a filing's metrics in code, others by one read-only "
                                "SQL query the model writes.")
    sql_row_limit: int = Field(default=200, ge=1, le=10_000, description="Rows a query returns.")
    sql_seconds: float = Field(default=2.0, gt=0, le=60, description="Time a query may take.")

    # --- web search ----------------------------------------------------------------
    web_search: Literal["off", "wikipedia", "duckduckgo"] = Field(default="off",
        description="Web search.",
    )
    web_search_url: str | None = Field(default=None,
        description="The web provider's URL (a mirror).",
    )
    web_timeout_s: float = Field(default=8.0, description="Seconds a web search may take.")
    web_results: int = Field(default=3, ge=1, le=10, description="Web results per web search.")

    # --- tracing -------------------------------------------------------------------
    otlp_endpoint: str | None = Field(
        default=None, description="OpenTelemetry collector for the agent's spans "
        "(OTEL_EXPORTER_OTLP_ENDPOINT is read too).",
    )

    @field_validator("disabled_checks", mode="before")
    @classmethod
    def _names_in_text(cls, value: object) -> object:
        """``"bridge_hop+prune_citations"`` (or commas, spaces) is a list of names."""
        if isinstance(value, str):
            return [name for name in value.replace("+", " ").replace(",", " ").split() if name]
        return value
