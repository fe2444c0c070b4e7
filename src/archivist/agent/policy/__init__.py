"""The agent's policy: which checks by code apply, chosen by the model's profile.

The checks are pure functions grouped by stage:

* ``question.py``: what a question is made of (parts, references, small talk), and a
  review of a small model's question analysis (no split of a one-part question, no
  rewrite that loses the question, ...);
* ``depth.py``: how deep a question goes (a direct reply, one step, several steps), and
  whether it needs an analysis call at all;
* ``subjects.py``: the subjects a question offers to judge between, for the gate, the
  unit selection and the claim check (``verdicts.py``);
* ``evidence.py``: which passages count as evidence (named subjects, the search-score
  gate that replaces relevance grading on small models, queries worth running);
* ``answer.py``: what is checked before an answer is shown (a second look at an
  abstention, years no passage names).

:class:`Policy` says which of them apply. A ``small`` profile (the ``local`` provider,
Ollama tags under 7B) gets them all; a ``capable`` one (cloud models, Ollama >= 7B) gets
none of the small-model checks: its analysis and grades are used as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from archivist.llm.capabilities import DEFAULT_PROFILE, ModelProfile


@dataclass(frozen=True, kw_only=True)
class Policy:
    """Which checks by code the agent applies."""

    #: ``small`` or ``capable``, as the steps report it
    name: str = "capable"
    #: decide the depth of a fresh, one-part question in code, with no analysis call
    plan_in_code: bool = False
    #: review the analysis call's output (splits, rewrites, routes, ask-backs)
    review_analysis: bool = False
    #: gate passages by search score and named subjects instead of a grading call
    score_gate: bool = False
    #: drop graded passages that name none of the question's subjects
    subject_filter: bool = False
    #: keep only rewritten and next-hop queries that name something already named
    ground_queries: bool = False
    #: read the passages again when the answer abstains over relevant ones
    second_look: bool = False
    #: when the answer says nothing over relevant passages, search once more with the
    #: names the passages it pointed at state (``bridge_query``) and write again: the
    #: second hop of a two-hop question is often in no passage the question finds
    bridge_hop: bool = False
    #: when an answer names what the question does not and a search finds the page of
    #: that name, which no search had reached, write again with it (``answer_query``,
    #: ``names_section``): the 1.5B answered a two-hop question with its first hop
    answer_hop: bool = False
    #: a bare answer naming what a two-hop question describes ("Ilse Tarrow" for "a
    #: sculptor famed for her studies of what?") becomes the sentence of its own page
    #: that states what is asked, quoted (``answer.past_the_bridge``)
    past_the_bridge: bool = False
    #: an answer of citations alone ("[3]") becomes the cited units' sentences, quoted
    quote_pointed: bool = False
    #: refuse an answer for a year no passage names, before any writing call
    year_check: bool = False
    #: high confidence needs every named subject of the question in the evidence
    subject_confidence: bool = False
    #: the writer is not offered "the documents do not contain ..." and the claim check
    #: abstains for it (a small model took that way out over the sentence that answered)
    abstain_in_code: bool = False
    #: an answer whose cited passages do not name the question's subjects is not kept
    answer_on_subject: bool = False
    #: sub-answers are joined by code, not rewritten into one by the model
    compose_in_code: bool = False
    #: a sentence that cites no unit is given the unit that supports it (by the claim check)
    attribute_uncited: bool = False
    #: a sentence its citations do not support is given the unit, or the two units, that
    #: do (by the same test). It never changes what an answer says, only where it points,
    #: so every profile has it: any model can cite a wrong number.
    recite_unsupported: bool = True
    #: a sentence cites only the units it rests on: a cited unit that adds nothing to
    #: what another cited unit states is dropped. Like ``recite_unsupported`` it changes
    #: only where an answer points, so every profile has it.
    prune_citations: bool = True
    #: a sentence whose cited passages leave a subject of the question unnamed also cites
    #: the passages that link them to it (``answer.bridge_citations``): a two-hop answer
    #: shows both hops. It too changes only where an answer points: every profile.
    bridge_citations: bool = True
    #: a sentence that names what its cited passages do not is searched for (one query, no
    #: model call); a passage found, linked to a cited one, that backs it is cited too
    #: (``research/support.py``). It checks a claim, never writes one: every profile.
    search_support: bool = True
    #: each sentence the claim check passed is put to the model as a yes/no question,
    #: which may veto it (``verifier.py``): one short call per sentence, off unless the
    #: ``verify_claims`` setting turns it on
    verify_claims: bool = False
    #: only the sentences that join facts across sections, or whose passages leave a
    #: subject of the question unnamed (``answer.leaps``), are put to that call: where the
    #: code checks are blind, and not on a plain question's one-section answer; a verdict
    #: code read subject by subject (``verdicts.judged_by_code``) is not
    verify_leaps: bool = False
    #: an answer that is one bare name ("Old Norse [1]") no cited sentence links to the question
    #: (``bare.answer_unlinked``) is put to that call as the answer to the question: its
    #: words are in its unit by construction, so the word checks cannot judge it
    verify_bare_answers: bool = False
    #: tokens of evidence units (sentences, items, rows) the writer reads: prompt
    #: evaluation dominates a small local model's latency, so it reads well under 1,000
    unit_tokens: int = 2500
    #: tokens of section text a whole-document question has the model summarise (0: all);
    #: sections past it stand in with their opening sentences (``research/document.py``)
    document_read_tokens: int = 0
    #: a section's summary comes after the sentences that state its figures (by code): a
    #: small model's summary says what a section covers and drops its figures
    summary_figures: bool = False
    #: tokens of section summaries the whole-document answer is written from (0: all)
    document_answer_tokens: int = 12000
    #: a whole-document answer is the section summaries themselves, each under its heading
    #: and cited, with no writing call: the 1.5B model's rewrite of them dropped their
    #: figures, and for a 10-K kept no sentence the claim check could back
    document_in_code: bool = False
    #: reply cap of the analysis call (which rewrites the question); None: the model's own
    #: cap. Measured with the Qwen2.5 tokenizer, an analysis is 29-52 tokens, and 237-256
    #: with every field filled (three 31-word sub-questions, a clarification, a 40-word
    #: reply). A small model looping inside the JSON stops there, not after the 1,024 tokens
    #: of its whole reply cap (about 40 s at 26 tokens/s).
    analysis_tokens: int | None = None
    #: reply cap of a writing call (None: the model's own cap). The 1.5B's answers from at
    #: most 700 tokens of units were at most 298 tokens long in the curated and HotpotQA
    #: runs of 2026-12-03, but once it wrote one sentence 36 times: 1,051 tokens, about
    #: 40 s of generation, dropped afterwards as repeats
    answer_tokens: int | None = None


#: Every small-model check.
SMALL = Policy(
    name="small", plan_in_code=True, review_analysis=True, score_gate=True, subject_filter=True,
    ground_queries=True, second_look=True, bridge_hop=True, answer_hop=True, past_the_bridge=True,
    quote_pointed=True, year_check=True, verify_leaps=True, verify_bare_answers=True,
    subject_confidence=True, attribute_uncited=True, abstain_in_code=True,
    answer_on_subject=True, compose_in_code=True, summary_figures=True, document_in_code=True,
    unit_tokens=700, document_read_tokens=6000, document_answer_tokens=1500,
    analysis_tokens=320, answer_tokens=384,
)
#: No small-model check: a capable model's analysis, grades and answers are used as is.
CAPABLE = Policy()


def policy_for(profile: ModelProfile = DEFAULT_PROFILE, *, second_look: bool = True,
               verify_claims: bool = False) -> Policy:
    """The policy for a model with ``profile``.

    ``second_look`` and ``verify_claims`` are the settings of those names, on or off.
    """
    policy = SMALL if profile.small else CAPABLE
    if profile.small and not second_look:
        policy = replace(policy, second_look=False)
    return replace(policy, verify_claims=True) if verify_claims else policy


__all__ = ["CAPABLE", "SMALL", "Policy", "policy_for"]
