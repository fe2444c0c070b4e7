"""One answer being shaped: its text, the units it cites, and its sentences, checked.

Each sentence is checked once against the units it cites (``claims.check_claim``); a step
that changes some sentences has only those checked again (:class:`Checker` remembers
every sentence it has judged, with its citations).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archivist.agent.checks.claims import SUPPORT_THRESHOLD, Claim, check_claim, split_claims
from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.question import ParsedQuestion
from archivist.agent.state import Evidence


@dataclass
class Draft:
    """The answer as the steps leave it, with its checked sentences."""

    question: ParsedQuestion
    text: str
    units: list[Evidence]
    claims: list[Claim] = field(default_factory=list)
    #: the passages and sections the units were cut from (what research kept)
    passages: list[Evidence] = field(default_factory=list)

    @property
    def unit_texts(self) -> list[str]:
        """The units' texts (unit ``n`` is ``unit_texts[n - 1]``)."""
        return [u.get("text", "") for u in self.units]

    @property
    def supported(self) -> list[Claim]:
        """The sentences their cited units support."""
        return [c for c in self.claims if c.supported]

    def cited(self) -> list[int]:
        """Every unit number a sentence cites, in order of first citation."""
        return list(dict.fromkeys(n for c in self.claims for n in c.citations))


class Checker:
    """Checks sentences against the units they cite, each (sentence, citations) once."""

    def __init__(self, embedder: QueryEmbedder | None,
                 threshold: float = SUPPORT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self._seen: dict[tuple[str, tuple[int, ...], int], Claim] = {}
        self.checks = 0  # sentences actually checked (not remembered)

    def check(self, draft: Draft) -> Draft:
        """``draft`` with its claims: remembered ones reused, new ones checked."""
        texts = draft.unit_texts
        claims = []
        for sentence, citations in split_claims(draft.text):
            key = (sentence, tuple(citations), id(draft.units))
            if key not in self._seen:
                self.checks += 1
                self._seen[key] = check_claim(sentence, citations, texts, self.embedder,
                                              question=draft.question.question,
                                              threshold=self.threshold)
            claims.append(self._seen[key])
        draft.claims = claims
        return draft
