"""Multi-hop retrieval in code, without an LLM (search mode ``multihop``).

Hop 1 is the hybrid search for the question. The top passages of hop 1 name the things
the question is about indirectly: the film whose director is asked for, the band a singer
was in. Those *bridge* candidates (the passages' titles, capitalised names, quoted titles
and other salient phrases that the question does not already contain) each seed a hop-2
search for ``question + bridge``. The lists are fused with weighted reciprocal-rank fusion,
hop 1 weighted highest, so a passage the question finds directly keeps its place and the
second-hop passage, which often shares no word with the question, moves up beside it.

The hop-2 searches may be of another kind than hop 1: the library runs them as BM25
searches. A bridge is a name, which words match exactly, and the question's meaning is
already in hop 1's dense search; BM25 also needs no embedding, the main cost of a search.

The number of searches per question is capped (``multihop_searches``: hop 1 plus at most
``multihop_searches - 1`` bridges), so the cost is fixed and known.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from archivist.stopwords import TITLE_STOP_WORDS
from archivist.types import SearchHit

SearchFn = Callable[[str, int], list[SearchHit]]
"""``search(query, k)``: one hybrid search, best first."""

BatchSearchFn = Callable[[list[str], int], list[list[SearchHit]]]
"""``search_many(queries, k)``: several hybrid searches at once, one list per query."""

RRF_K = 60
HOP1_WEIGHT = 1.0
HOP2_WEIGHT = 0.5
SINGLE_WORD_WEIGHT = 0.5
"""One-word names ("Germany", "English") are more often background than the bridge."""
BRIDGE_PASSAGES = 3
"""How many top hop-1 passages the bridges come from."""
LINK_CANDIDATES = 10
"""Hop 1's pages that may be linked from its best passage (besides hop 2's best five)."""
LINKED_PAGES = 2
"""Linked pages moved to the head of the ranking."""
LINK_MIN_CHARS = 4
"""Shorter titles ("US") are no links: they match too much running text."""
HOP2_DEPTH = 20
"""Hits per hop-2 search: the chain's head reads their best five, and fusion weighs deeper
ranks little (HotpotQA-100: the same Recall@2 and @5 as 100 deep, at a fifth of the hits)."""

_CONNECTORS = {"of", "the", "de", "da", "di", "von", "van", "du", "la", "le", "del", "&"}
_WORD = re.compile(r"[\w][\w'’.\-]*", re.UNICODE)
_QUOTED = re.compile(r"[\"“]([^\"”]{3,80})[\"”]")
_PLAIN_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n+)$")


@dataclass
class Bridge:
    """A phrase read in a hop-1 passage that may name the second hop's subject."""

    phrase: str
    score: float


def _tokens(text: str) -> set[str]:
    return {w.lower().strip(".'’-") for w in _WORD.findall(text)}


def _title_of(hit: SearchHit) -> str:
    return hit.heading_path[0] if hit.heading_path else ""


def capitalised_phrases(text: str) -> list[str]:
    """Runs of capitalised words (``Dragon Dice``, ``University of Oxford``) and quoted titles.

    A single capitalised word at the start of a sentence is skipped: it is capitalised by
    position, not because it names something.
    """
    found = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    run: list[str] = []
    run_start = 0

    def close() -> None:
        while run and run[-1].lower() in _CONNECTORS:
            run.pop()
        if run:
            leading = _SENTENCE_START.search(text[:run_start]) is not None
            if len(run) > 1 or not leading:
                found.append(" ".join(run))
        run.clear()

    previous_end = 0
    for match in _WORD.finditer(text):
        word = match.group(0).rstrip(".")
        if run and text[previous_end : match.start()].strip(" -"):
            close()  # punctuation between two words ends a name: "Irvine, Schumacher"
        previous_end = match.end()
        if word[:1].isupper():
            if not run:
                run_start = match.start()
            run.append(word)
        elif run and word.lower() in _CONNECTORS:
            run.append(word)
        else:
            close()
        if match.group(0).endswith(".") and len(word) > 1:
            close()  # "... in Oxford. The" ends the run at the full stop
    close()
    return found


def bridge_candidates(
    question: str, passages: Sequence[tuple[str, str]], limit: int
) -> list[Bridge]:
    """The ``limit`` best bridges in ``(title, text)`` passages, best passage first.

    A phrase scores by the rank of the passages it appears in (``1 / (rank + 1)`` each) and
    counts only when some of its words are absent from the question. The passages' own
    titles are no bridges: hop 1 has found those pages already.
    """
    asked = _tokens(question)
    found = {title.lower() for title, _ in passages if title}
    scores: dict[str, float] = {}
    shown: dict[str, str] = {}
    for rank, (_title, text) in enumerate(passages):
        weight = 1.0 / (rank + 1)
        for phrase in dict.fromkeys(capitalised_phrases(text)):
            if phrase.lower() in found:
                continue
            words = _tokens(phrase) - TITLE_STOP_WORDS
            if not words or all(len(w) < 3 for w in words):
                continue
            if words <= asked:
                continue  # the question already says it
            key = phrase.lower()
            shown.setdefault(key, phrase)
            size = SINGLE_WORD_WEIGHT if len(words) == 1 else 1.0 + 0.25 * (len(words) - 2)
            scores[key] = scores.get(key, 0.0) + weight * size
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Bridge(shown[key], score) for key, score in ranked[:limit]]


def top_passages(hits: Sequence[SearchHit], count: int = BRIDGE_PASSAGES) -> list[tuple[str, str]]:
    """``(title, text)`` of the first hit of each of the ``count`` best parents."""
    out: dict[str, tuple[str, str]] = {}
    for hit in hits:
        if hit.parent_id not in out:
            out[hit.parent_id] = (_title_of(hit), hit.text)
            if len(out) >= count:
                break
    return list(out.values())


def fuse(lists: Sequence[tuple[float, Sequence[SearchHit]]], k: int) -> list[SearchHit]:
    """Weighted reciprocal-rank fusion of ``(weight, hits)`` lists; best ``k`` hits first."""
    scores: dict[str, float] = {}
    first: dict[str, SearchHit] = {}
    for weight, hits in lists:
        for rank, hit in enumerate(hits):
            scores[hit.child_id] = scores.get(hit.child_id, 0.0) + weight / (RRF_K + rank + 1)
            first.setdefault(hit.child_id, hit)
    order = sorted(scores, key=lambda cid: -scores[cid])[:k]
    fused = []
    for cid in order:
        hit = first[cid]
        fused.append(
            SearchHit(
                child_id=hit.child_id,
                parent_id=hit.parent_id,
                document_id=hit.document_id,
                document_name=hit.document_name,
                text=hit.text,
                heading_path=list(hit.heading_path),
                page_start=hit.page_start,
                page_end=hit.page_end,
                score=scores[cid],
                sections=hit.sections,
            )
        )
    return fused


def _named_in(question_words: set[str], title: str) -> bool:
    """Whether the question names a page: every content word of its title is in it."""
    words = _tokens(re.sub(r"\(.*?\)", " ", title)) - TITLE_STOP_WORDS
    return bool(words) and words <= question_words


def _plain(text: str) -> str:
    """Lower-case words separated by single spaces (``"K. Lorne"`` -> ``"k lorne"``)."""
    return " ".join(_PLAIN_WORD.findall(text.lower()))


def _name_of(title: str) -> str:
    """A page title as it is written in running text: without its ``(disambiguation)``."""
    return _plain(re.sub(r"\(.*?\)", " ", title))


def _linked(
    question: str, source: str, pages: Sequence[tuple[str, str]], taken: set[str]
) -> list[str]:
    """Pages whose title the ``source`` passage mentions (a link), first mention first.

    ``pages`` are ``(parent_id, title)``; titles the question itself says are left out
    (the question already found those), and so are very short names.
    """
    text = f" {_plain(source)} "
    asked = f" {_plain(question)} "
    found: dict[str, int] = {}
    for parent, title in pages:
        name = _name_of(title)
        if parent in taken or parent in found or len(name) < LINK_MIN_CHARS:
            continue
        at = text.find(f" {name} ")
        if at >= 0 and f" {name} " not in asked:
            found[parent] = at
    return sorted(found, key=lambda parent: found[parent])


def _bridge_page(bridge: Bridge, hits: Sequence[SearchHit], taken: set[str]) -> str | None:
    """The parent a hop-2 search found for a bridge.

    The first hit whose title shares most of the bridge's words, else the first not taken.
    """
    wanted = _tokens(bridge.phrase) - TITLE_STOP_WORDS
    fresh = [h for h in hits if h.parent_id not in taken]
    for hit in fresh[:5]:
        title = _tokens(_title_of(hit)) - TITLE_STOP_WORDS
        if wanted and len(wanted & title) * 2 >= len(wanted | title):
            return hit.parent_id
    return fresh[0].parent_id if fresh else None


def order(
    question: str,
    first: Sequence[SearchHit],
    second: Sequence[Sequence[SearchHit]],
    bridges: Sequence[Bridge],
    k: int,
) -> list[SearchHit]:
    """The fused ranking, with the chain of hops at its head.

    Weighted RRF ranks everything; its head is then the best hop-1 passage, hop 1's second
    passage when the question names it (a comparison of two named things, not a namesake
    of the first), the pages the best passage links to (it mentions their titles: hop 1's
    pages and the hop-2 searches' best, first mention first, at most ``LINKED_PAGES``), and
    the page each bridge led to, in bridge order, so that the second hop sits beside the
    first.
    """
    fused = fuse(
        [(HOP1_WEIGHT, first), *((HOP2_WEIGHT, hits) for hits in second)],
        len(first) + sum(map(len, second)),
    )
    by_parent: dict[str, list[SearchHit]] = {}
    for hit in fused:
        by_parent.setdefault(hit.parent_id, []).append(hit)
    parents = [h.parent_id for h in first if h.parent_id in by_parent]
    head: list[str] = list(dict.fromkeys(parents[:1]))
    asked = _tokens(question)
    distinct = list(dict.fromkeys(parents))
    if len(distinct) > 1:
        title = _title_of(by_parent[distinct[1]][0])
        namesake = _name_of(title) == _name_of(_title_of(by_parent[distinct[0]][0]))
        if _named_in(asked, title) and not namesake:
            head.append(distinct[1])
    if first:
        pages = [(p, _title_of(by_parent[p][0])) for p in distinct[:LINK_CANDIDATES]]
        pages += [(h.parent_id, _title_of(h)) for hits in second for h in hits[:5]]
        head += _linked(question, first[0].text, pages, set(head))[:LINKED_PAGES]
    for bridge, hits in zip(bridges, second, strict=True):
        page = _bridge_page(bridge, hits, set(head))
        if page is not None and page in by_parent and page not in head:
            head.append(page)
    ranked = [h for p in head for h in by_parent[p]]
    ranked += [h for h in fused if h.parent_id not in head]
    return ranked[:k]


def multihop_search(
    question: str,
    k: int,
    search_many: BatchSearchFn,
    max_searches: int = 6,
    depth: int | None = None,
    hop2_many: BatchSearchFn | None = None,
) -> tuple[list[SearchHit], list[Bridge]]:
    """Hop 1, bridges, hop 2 and fusion; at most ``max_searches`` searches in all.

    ``search_many`` runs hop 1 and ``hop2_many`` (default: the same) the hop-2 searches,
    all of them in one call. ``depth`` is how many hits hop 1 returns before fusion (at
    least ``k``; each hop-2 search returns at most ``HOP2_DEPTH``). Returns the fused hits
    and the bridges that were followed.
    """
    depth = max(depth or 0, k, 20)
    first = search_many([question], depth)[0]
    bridges = bridge_candidates(question, top_passages(first), max(0, max_searches - 1))
    if not bridges:
        return first[:k], []
    second = (hop2_many or search_many)(
        [f"{question} {b.phrase}" for b in bridges], min(depth, HOP2_DEPTH)
    )
    return order(question, first, second, bridges, k), bridges
