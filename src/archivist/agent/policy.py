"""The agent's policy, as data: which checks by code apply, and the answer stage's steps.

The agent is grouped by stage: ``question/`` (a question read once, its analysis reviewed,
its depth), ``evidence/`` (the score gate, the units the writer reads), ``research/``
(searching, reading, writing), ``checks/`` (each sentence against what it cites, citations
mended, the verifier) and ``answer/`` (the named steps over one draft, then one decision).
:class:`Policy` says which checks apply and lists the answer steps. A ``small`` profile
(the ``local`` provider, models under 7B) gets them; a ``capable`` one (cloud models,
Ollama >= 7B) gets none of the small-model checks and a short answer-step list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile

#: Every answer step a policy may list (``answer/steps.py`` implements each).
ANSWER_STEPS = ("without_markup", "quote_pointed", "without_repeats", "attribute_uncited",
                "recite_unsupported", "prune_citations", "verify")
#: The answer steps every profile runs (``answer/steps.py``): tags and repeats out, then
#: citations mended (an uncited sentence given the unit that supports it, a wrong number
#: put right), which changes where a sentence points, never what it says.
CAPABLE_STEPS = ("without_markup", "without_repeats", "attribute_uncited", "recite_unsupported",
                 "prune_citations")
#: A small model's: also an answer of citations alone quoted.
SMALL_STEPS = ("without_markup", "quote_pointed", "without_repeats", "attribute_uncited",
               "recite_unsupported", "prune_citations")


@dataclass(frozen=True, kw_only=True)
class Budgets:
    """Token budgets of a profile's calls (``None``: the model's own cap)."""

    #: tokens of evidence units the writer reads: prompt evaluation dominates a small
    #: local model's latency, so it reads well under 1,000
    unit_tokens: int = 2500
    #: evidence units scoring under this share of the best unit's score are left out
    unit_floor: float = 0.5
    #: tokens of section text a whole-document question has the model summarise (0: all)
    document_read_tokens: int = 0
    #: tokens of section summaries the whole-document answer is written from (0: all)
    document_answer_tokens: int = 12000
    #: reply cap of the analysis call, every profile: an analysis with every field filled
    #: (three long sub-questions) is ~1,100 characters, ~310 tokens; a model looping inside
    #: the JSON stops there, and the fields it finished are used
    analysis_tokens: int = 400
    #: reply cap of a writing call: a model repeating a sentence stops there
    answer_tokens: int | None = None
    #: queries the model may write for one table question (``agent.sql_attempts``): a
    #: small model's second query after an error rescued as many table answers as it lost,
    #: at a call and ~450 prompt tokens each time (docs/decisions.md)
    sql_attempts: int = 2


@dataclass(frozen=True, kw_only=True)
class Policy:
    """Which checks by code the agent applies, and the answer stage's steps."""

    #: ``small`` or ``capable``, as the steps report it
    name: str = "capable"
    #: decide a fresh question's depth in code when its text settles it (no analysis call)
    plan_in_code: bool = False
    #: review the analysis call's output (splits, rewrites, routes, ask-backs) by code
    review_analysis: bool = False
    #: keep passages by search rank and the question's words instead of a grading call
    score_gate: bool = False
    #: read the passages once more when the answer abstains over relevant ones
    second_look: bool = False
    #: search again for the names the passages (or the answer) state, and write again when
    #: that finds a page no search had reached (``agent.max_hops`` times at most)
    bridge_hop: bool = False
    #: the writer is not offered "the documents do not contain ...": the decision abstains
    abstain_in_code: bool = False
    #: sub-answers are joined by code, not rewritten into one by the model
    compose_in_code: bool = False
    #: a whole-document answer is the section summaries themselves, each cited, figures first
    document_in_code: bool = False
    #: the answer stage, in order (names of ``answer.steps.STEPS``)
    answer_steps: tuple[str, ...] = CAPABLE_STEPS
    budgets: Budgets = Budgets()


#: Every small-model check.
SMALL = Policy(
    name="small", plan_in_code=True, review_analysis=True, score_gate=True, second_look=True,
    bridge_hop=True,
    abstain_in_code=True, compose_in_code=True, document_in_code=True,
    answer_steps=SMALL_STEPS,
    budgets=Budgets(unit_tokens=700, document_read_tokens=6000, document_answer_tokens=1500,
                    analysis_tokens=320, answer_tokens=384, sql_attempts=1),
)
#: No small-model check: a capable model's analysis, grades and answers are used as is.
CAPABLE = Policy()


def policy_for(profile: ModelProfile = DEFAULT_PROFILE, *, second_look: bool = True,
               verify_claims: bool = False, disabled: Iterable[str] = ()) -> Policy:
    """The policy for a model with ``profile``.

    ``second_look``, ``verify_claims`` and ``disabled`` are the settings of those names:
    the second look off; every supported sentence put to the model (the ``verify`` step)
    on; and the named checks and answer steps off, whatever the profile turns on.
    """
    policy = SMALL if profile.small else CAPABLE
    if profile.small and not second_look:
        policy = replace(policy, second_look=False)
    if verify_claims:
        policy = replace(policy, answer_steps=(*policy.answer_steps, "verify"))
    return without(policy, disabled)


def without(policy: Policy, names: Iterable[str]) -> Policy:
    """``policy`` with the named checks off and the named answer steps left out.

    Raises ``ValueError`` for a name that is neither a check nor an answer step.
    """
    names = set(names)
    checks = {f.name for f in fields(Policy) if f.type in (bool, "bool")}
    unknown = names - checks - set(ANSWER_STEPS)
    if unknown:
        raise ValueError(f"not a check or an answer step: {', '.join(sorted(unknown))}")
    for name in names & checks:
        policy = replace(policy, **{name: False})  # type: ignore[arg-type]
    return replace(policy, answer_steps=tuple(s for s in policy.answer_steps if s not in names))


__all__ = ["ANSWER_STEPS", "CAPABLE", "CAPABLE_STEPS", "SMALL", "SMALL_STEPS", "Budgets",
           "Policy", "policy_for", "without"]
