"""The answer stage's steps, by name: each takes the draft and returns it shaped.

A profile's answer stage is a list of these names (``Policy.answer_steps``), run in order
by :func:`run_steps`. A step that changes the text has only its changed sentences checked
again. The citation steps change where a sentence points, never what it says; the text
steps only remove what the model copied or repeated, or quote what it pointed at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from archivist.agent.answer.draft import Checker, Draft
from archivist.agent.answer.shaping import quote_cited, without_markup, without_repeats
from archivist.agent.checks.citations import attribute_uncited, prune_citations, recite_unsupported
from archivist.agent.checks.claims import Claim
from archivist.agent.state import Evidence

#: ``verify(question, sentence, cited units)``: False when a model finds they do not state it.
Verify = Callable[[str, str, list[Evidence]], bool]


@dataclass
class Tools:
    """What the steps may use: the sentence checker and, when one is set, a verifier."""

    checker: Checker
    verify: Verify | None = None


#: A step: the draft and the tools in, the draft and what it did (``""``: nothing) out.
Step = Callable[[Draft, Tools], tuple[Draft, str]]


def _text(draft: Draft, text: str, tools: Tools) -> Draft:
    return tools.checker.check(replace(draft, text=text)) if text != draft.text else draft


def _markup(draft: Draft, tools: Tools) -> tuple[Draft, str]:
    out = _text(draft, without_markup(draft.text), tools)
    return out, "" if out is draft else "the prompt's tags taken out of the answer"


def _repeats(draft: Draft, tools: Tools) -> tuple[Draft, str]:
    out = _text(draft, without_repeats(draft.text), tools)
    return out, "" if out is draft else "sentences the answer said again were dropped"


def _quote_pointed(draft: Draft, tools: Tools) -> tuple[Draft, str]:
    quoted = quote_cited(draft.question, draft.text, draft.units)
    if not quoted:
        return draft, ""
    return _text(draft, quoted, tools), ("the answer gave only citations: the sentences of the "
                                         "passages it cites are quoted")


def _mend(mend: Callable[..., tuple[str, int]], said: str, *,
          only_unsupported: bool = False) -> Step:
    def step(draft: Draft, tools: Tools) -> tuple[Draft, str]:
        if only_unsupported and all(c.supported for c in draft.claims):
            return draft, ""
        text, changed = mend(draft.text, draft.unit_texts, tools.checker.embedder,
                             question=draft.question.question)
        return _text(draft, text, tools), said.format(changed) if changed else ""
    return step


def _verify(draft: Draft, tools: Tools) -> tuple[Draft, str]:
    if tools.verify is None:
        return draft, ""
    vetoed = 0
    claims: list[Claim] = []
    for claim in draft.claims:
        cited = [draft.units[n - 1] for n in claim.citations if 1 <= n <= len(draft.units)]
        if claim.supported and not tools.verify(draft.question.question, claim.text, cited):
            claim = replace(claim, supported=False,
                            reason="the verifier found the cited passages do not say this")
            vetoed += 1
        claims.append(claim)
    draft = replace(draft, claims=claims)
    return draft, f"{vetoed} sentences the model found their passages do not state" \
        if vetoed else ""


STEPS: dict[str, Step] = {
    "without_markup": _markup,
    "quote_pointed": _quote_pointed,
    "without_repeats": _repeats,
    "attribute_uncited": _mend(attribute_uncited, "{} uncited sentences given the passage "
                               "that supports them"),
    "recite_unsupported": _mend(recite_unsupported, "{} sentences given the passages that "
                                "support them, in place of the ones they cited",
                                only_unsupported=True),
    "prune_citations": _mend(prune_citations, "{} citations dropped: their passages add "
                             "nothing to the sentence another cited passage states"),
    "verify": _verify,
}


def run_steps(draft: Draft, names: tuple[str, ...], tools: Tools,
              report: Callable[[str, str], None] = lambda name, said: None) -> Draft:
    """``draft`` checked, then shaped by each named step in order; ``report`` hears each change."""
    draft = tools.checker.check(draft)
    for name in names:
        draft, said = STEPS[name](draft, tools)
        if said:
            report(name, said)
    return draft
