"""Evidence units: the sentences, list items and table rows a writer sees, chosen by code.

After search and parent reads, the retrieved sections are cut into units
(:func:`split_units`): sentences of a paragraph, list items, table rows (a Markdown
``| a | b |`` row, or a PDF line ending in two or more figures), each row carrying its
table's header as context. :func:`select_units` scores every unit against the question
with the embedding model and with BM25 computed over the retrieved units themselves,
keeps a sentence's previous neighbour when it opens with a pronoun or a connective ("It",
"This", "However": it means nothing alone), and fills a token budget best first. The
units are numbered [1]..[n] in that order; the writer cites those numbers, and code maps
each number back to its document, pages and section (:func:`unit_evidence`), so a model
never writes a file name or a page.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from archivist.agent.evidence.unit_split import split_headed_units
from archivist.agent.question.parsed import asks_for_a_kind, states_what_is_asked
from archivist.agent.state import Evidence
from archivist.index.sparse import BM25Encoder
from archivist.types import format_location, section_of

#: Rough characters per token for the budget (English text through a BPE tokenizer).
CHARS_PER_TOKEN = 4
#: Weight of the dense (embedding) score against BM25 in a unit's score.
DENSE_WEIGHT = 0.6
#: Bonus of a unit from the section the search ranked first (1/2 of it for the second...):
#: the search's ranking of the sections is evidence too.
SECTION_WEIGHT = 0.2
#: Units scoring under this share of the best unit's score are left out, unless a caller
#: sets its own floor (a profile's ``Budgets.unit_floor``).
MIN_SHARE = 0.5
#: Bonus of a unit that states the kind of thing the question asks for (a year for "in
#: what year"): the birth date "(15 June 1924 - ...)" scored under half the best unit, a
#: sentence on the election the question names.
KIND_WEIGHT = 0.1
#: At most this many units (a writer picks its sentence from a short list).
MAX_UNITS = 16
#: The best few sentences keep the sentence before them as context (a sentence read alone
#: often leaves out what it continues: "the next start finds the pending entry").
WITH_NEIGHBOUR = 3

#: Words that make a sentence lean on the one before it.
_LEANS_BACK = frozenset([
    "it", "its", "this", "that", "these", "those", "they", "their", "them", "he", "she",
    "his", "her", "such", "however", "also", "then", "there", "thus", "therefore", "so",
    "but", "both", "each", "which", "here", "otherwise", "instead", "afterwards", "moreover",
])


class QueryEmbedder(Protocol):
    """The part of the store's embedder units need."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors of texts (normalised)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of a query (normalised)."""
        ...


@dataclass(frozen=True)
class Unit:
    """One sentence, list item or table row, and where it came from."""

    text: str
    kind: str  # "sentence", "item", "row", "code"
    source: int  # index of the evidence item it was cut from
    position: int  # order inside that item
    context: str = ""  # a table row's header; a pronoun sentence's previous sentence
    score: float = 0.0
    heading: str = ""  # the heading the unit stands under (scored with it, not shown)

    def full_text(self) -> str:
        """The unit with its context, as the writer and the claim checker read it."""
        return f"{self.context}\n{self.text}" if self.context else self.text

    def tokens(self) -> int:
        """Approximate token count of the unit with its context."""
        return max(1, len(self.full_text()) // CHARS_PER_TOKEN)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%$.,]+", " ", text.lower()).split())


def cut(evidence: Sequence[Evidence]) -> list[Unit]:
    """Every unit of the evidence, each once (a hit inside a section read is not repeated).

    A search hit is a chunk of its section: cut at a size, it can end mid-sentence
    ("Another cover, recorded and"). When its section was read, only what the section's
    text does not hold is kept of it.
    """
    out: list[Unit] = []
    seen: set[str] = set()
    sections: dict[str, str] = {}  # the text of each section read, normalised
    order = sorted(range(len(evidence)), key=lambda i: evidence[i]["kind"] != "parent")
    for index in order:
        item = evidence[index]
        path = item.get("heading_path") or [""]
        read = sections.get(item["parent_id"], "") if item["kind"] != "parent" else ""
        if item["kind"] == "parent":
            sections[item["parent_id"]] = _norm(item.get("text", ""))
        for position, (kind, text, context, heading) in enumerate(
            split_headed_units(item.get("text", ""))
        ):
            key = _norm(text)
            if key in seen or len(key) < 3 or key in read:  # a chunk's cut-off edge too
                continue
            seen.add(key)
            out.append(Unit(text, kind, index, position, context, heading=heading or path[-1]))
    return out


def leans_back(text: str) -> bool:
    """Whether a sentence opens with a pronoun or connective that points to the one before."""
    first = re.match(r"[\W_]*([A-Za-z]+)", text)
    return bool(first) and first.group(1).lower() in _LEANS_BACK  # type: ignore[union-attr]


def bm25_scores(
    query: str, texts: Sequence[str], encoder: BM25Encoder | None = None
) -> list[float]:
    """BM25 of ``query`` against ``texts``, with IDF computed over ``texts`` themselves."""
    encoder = encoder or BM25Encoder()
    docs = [encoder.tokens(t) for t in texts]
    if not docs:
        return []
    avg = sum(len(d) for d in docs) / len(docs) or 1.0
    frequency = Counter(term for d in docs for term in set(d))
    terms = set(encoder.tokens(query))
    scores = []
    for doc in docs:
        counts = Counter(doc)
        total = 0.0
        for term in terms & counts.keys():
            idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = counts[term]
            norm = encoder.k1 * (1 - encoder.b + encoder.b * len(doc) / avg)
            total += idf * tf * (encoder.k1 + 1) / (tf + norm)
        scores.append(total)
    return scores


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product (the cosine of normalised vectors)."""
    return sum(x * y for x, y in zip(a, b, strict=False))


def section_prior(evidence: Sequence[Evidence]) -> dict[int, float]:
    """Each evidence item's bonus: SECTION_WEIGHT / (1 + its section's rank in ``evidence``).

    ``evidence`` is in the order the search ranked it (sections read come after the hits
    that led to them and take their hit's rank).
    """
    ranks: dict[str, int] = {}
    for item in evidence:
        ranks.setdefault(item["parent_id"], len(ranks))
    return {i: SECTION_WEIGHT / (1 + ranks[item["parent_id"]]) for i, item in enumerate(evidence)}


def score_units(
    question: str, units: list[Unit], embedder: QueryEmbedder | None,
    prior: dict[int, float] | None = None,
) -> list[Unit]:
    """The units with ``score``: DENSE_WEIGHT × cosine + the rest × BM25 in [0, 1] + prior.

    ``prior`` is their section's bonus (see :func:`section_prior`). Without an embedder,
    BM25 alone.
    """
    prior = prior or {}
    if not units:
        return []
    # a unit is scored under its heading, as the index scores a chunk with its heading
    # path: "If the process is killed half way ..." answers "stay consistent" because it
    # stands under "Staying consistent"
    texts = [f"{u.heading}\n{u.full_text()}" if u.heading else u.full_text() for u in units]
    weight = DENSE_WEIGHT if embedder is not None else 0.0
    dense = [0.0] * len(units)
    if embedder is not None:
        query = embedder.embed_query(question)
        dense = [dot(query, v) for v in embedder.embed_documents(texts)]
    sparse = bm25_scores(question, texts)
    top = max(sparse) or 1.0
    return [
        replace(u, score=weight * d + (1 - weight) * s / top + prior.get(u.source, 0.0))
        for u, d, s in zip(units, dense, sparse, strict=True)
    ]


@dataclass
class Selection:
    """The numbered units the writer sees (unit ``n`` is ``units[n - 1]``)."""

    units: list[Unit] = field(default_factory=list)
    considered: int = 0

    def tokens(self) -> int:
        """Approximate tokens of all selected units."""
        return sum(u.tokens() for u in self.units)


def select_units(
    question: str, evidence: Sequence[Evidence], embedder: QueryEmbedder | None, *,
    budget_tokens: int, max_units: int = MAX_UNITS, each_of: Collection[str] = (),
    floor: float = MIN_SHARE,
) -> Selection:
    """The units that bear on ``question``, best first, within ``budget_tokens``.

    A unit that states the kind of thing asked (a year, a number: ``question/parsed.py``)
    scores KIND_WEIGHT more. Units under ``floor`` of the best score are left out, except
    the best unit of a section of ``each_of`` (parent ids) none of whose units made it. A
    sentence that leans back (see :func:`leans_back`), and each of the best WITH_NEIGHBOUR
    sentences, takes its previous sentence as context. The best unit is always kept, even
    over the budget (cut to it). A sentence is shown once: one that is the context of a
    unit chosen before is not chosen again, and one whose context is a chosen unit joins
    it (its number stays).
    """
    units = score_units(question, cut(evidence), embedder, section_prior(evidence))
    if asks_for_a_kind(question):
        units = [replace(u, score=u.score + KIND_WEIGHT) if states_what_is_asked(question, u.text)
                 else u for u in units]
    by_place = {(u.source, u.position): u for u in units}
    chosen: list[Unit] = []
    shown: dict[tuple[int, int], int] = {}  # a unit's place -> the chosen unit showing it
    used = 0
    ranked = sorted(units, key=lambda u: -u.score)
    floor = ranked[0].score * floor if ranked and ranked[0].score > 0 else float("-inf")
    wanted = set(each_of)
    for unit in ranked:
        if len(chosen) >= max_units or (unit.score < floor and not wanted):
            break
        section = evidence[unit.source]["parent_id"]
        if unit.score < floor and section not in wanted:
            continue
        wanted.discard(section)  # its best unit, or already shown
        place, previous = (unit.source, unit.position), (unit.source, unit.position - 1)
        if place in shown:  # already the context of a unit chosen before
            continue
        if unit.kind == "sentence" and (leans_back(unit.text) or len(chosen) < WITH_NEIGHBOUR):
            before = by_place.get(previous)
            if before is not None and before.kind == "sentence":
                unit = replace(unit, context=before.text)
        if unit.kind == "sentence" and unit.context and previous in shown:  # one unit
            index = shown[previous]
            merged = replace(unit, context=chosen[index].full_text())
            cost = merged.tokens() - chosen[index].tokens()
            if used + cost <= budget_tokens:
                chosen[index], shown[place] = merged, index
                used += cost
            continue
        cost = unit.tokens()
        if chosen and used + cost > budget_tokens:
            continue
        if not chosen and cost > budget_tokens:
            unit = replace(unit, text=unit.text[: budget_tokens * CHARS_PER_TOKEN])
            cost = unit.tokens()
        chosen.append(unit)
        shown[place] = len(chosen) - 1
        if unit.context and unit.kind == "sentence":
            shown[previous] = len(chosen) - 1
        used += cost
    return Selection(chosen, len(units))


def render_units(selection: Selection, evidence: Sequence[Evidence]) -> str:
    """The numbered units as ``<passage n="3" section="...">`` blocks for the writer.

    A block names its section (the heading path), never a file name or a page.
    """
    from archivist.agent.tools import numbered_block

    return "\n".join(numbered_block(n, unit_evidence(selection, evidence, n))
                     for n in range(1, len(selection.units) + 1))


def unit_evidence(selection: Selection, evidence: Sequence[Evidence], n: int) -> Evidence:
    """Unit ``n``'s location as an evidence record whose text is the unit itself.

    Its pages are the narrowest known: a search hit of the same section holding the
    unit's text gives its own pages, else the section's. Its section is the deepest
    heading above the unit (see ``section_of``), named in place of the chunk's first.
    """
    unit = selection.units[n - 1]
    item = evidence[unit.source]
    wanted = _norm(unit.text)
    for other in evidence:
        if (other["kind"] == "hit" and other["parent_id"] == item["parent_id"]
                and wanted in _norm(other.get("text", ""))):
            item = other
            break
    out = item.copy()
    out["text"] = unit.full_text()
    path = section_of(item.get("sections"), unit.heading)
    if path:
        out["heading_path"] = path
        out["pages"] = out["pages"] if out["page_start"] is not None else \
            format_location(None, None, path)
    return out
