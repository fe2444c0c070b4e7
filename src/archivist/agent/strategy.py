"""Which research strategy runs: ``tools`` (the model drives) or ``pipeline`` (code drives).

``tools``: after the corrective first search, the model calls ``search_documents`` and
``read_parent`` as it sees fit, then replies ``DONE``. For capable models.

``pipeline``: the loop runs in code (search, grade, search again with a rewritten query,
web fallback, read the kept passages' sections); the model only analyses, grades and
writes. For small local models whose tool calling is unreliable. Clarification and fan-out
work the same in both.

The answer is written the same way in both: code selects the evidence units (sentences,
list items, table rows) that bear on the question from everything gathered, within the
policy's token budget; the writer sees only them and cites their numbers, and every
sentence is checked against the units it cites (``units.py``, ``claims.py``). In
``tools`` a draft answer the model writes instead of ``DONE`` is not used.

``auto`` picks ``pipeline`` for models without dependable tool calling
(:func:`archivist.llm.supports_tool_calling`) and reports its choice as a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from archivist.settings import Settings


@dataclass(frozen=True)
class StrategyChoice:
    """The chosen strategy and why."""

    name: str  # "tools" or "pipeline"
    reason: str

    @property
    def uses_tools(self) -> bool:
        """Whether the research sub-agent lets the model call tools."""
        return self.name == "tools"


def choose_strategy(settings: Settings) -> StrategyChoice:
    """The strategy the settings ask for; ``auto`` decides from the answering model."""
    configured = settings.agent.strategy
    if configured in ("tools", "pipeline"):
        return StrategyChoice(configured, f"set by strategy={configured}")
    from archivist.llm import describe_llm, supports_tool_calling

    model = describe_llm(settings)
    if supports_tool_calling(settings):
        return StrategyChoice("tools", f"auto: {model} calls tools dependably")
    return StrategyChoice("pipeline", f"auto: {model} has no dependable tool calling")


def profile_note(settings: Settings, policy_name: str) -> str:
    """The ``profile`` step's text: the policy in use and what decided it.

    A policy given to the graph directly, not the one the settings derive, says so.
    """
    from archivist.llm.capabilities import profile_for

    profile = profile_for(settings)
    if profile.size != policy_name:
        return f"{policy_name} (given to the agent directly)"
    return f"{policy_name} ({profile.size_from})"
