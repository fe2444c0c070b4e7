"""Contextual retrieval (``contextualize = "llm"``): one model-written sentence per child.

Before a child is embedded and BM25-indexed, the configured model reads the child's parent
section (with the document title) and writes one sentence that places the child in it ("This
passage is from the 2017 annual report's discussion of streaming revenue"). The sentence
leads the child's indexed text, so a chunk that never names its subject can still be found
by it (Anthropic's *contextual retrieval*).

Sentences are cached in the library's database (table ``contexts``) by a hash of the title,
the parent's text and the child's text: re-ingesting unchanged content, or ``archivist
reindex``, asks the model nothing (reindex reads only this cache, so it indexes the same
text ingest did). Each ingest reports how many children got a sentence, how many model calls
that took and the time.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select

from archivist.documents.chunked import Chunked, embedding_text
from archivist.storage import Database
from archivist.storage.schema import contexts
from archivist.types import ArchivistError, Child, Parent

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, LanguageModelInput

CONTEXT_PROMPT = """<document title="{title}">
{section}
</document>
Here is a chunk of that document:
<chunk>
{chunk}
</chunk>
Write one short sentence that situates this chunk within the document (what it is about,
naming the subject the chunk leaves implicit), to help search find it. Reply with the
sentence only."""

SECTION_CHARS = 6000
"""How much of the parent section the prompt shows."""
CONTEXT_CHARS = 300
"""The longest context sentence kept."""
CONCURRENCY = 4
"""Model calls in flight at once during one ingest batch."""


def context_key(title: str, parent_text: str, child_text: str) -> str:
    """The cache key of a child's context: a hash of what the sentence is written from."""
    digest = hashlib.sha256()
    for part in (title, parent_text, child_text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def contextual_text(indexed: str, context: str) -> str:
    """The indexed text of a child with its context sentence in front (when it has one)."""
    return f"{context}\n\n{indexed}" if context else indexed


class ContextCache:
    """Context sentences by :func:`context_key`, in the library's database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The cached sentences among ``keys``."""
        found: dict[str, str] = {}
        with self.database.reading() as conn:
            for start in range(0, len(keys), 500):
                rows = conn.execute(select(contexts.c.key, contexts.c.context)
                                    .where(contexts.c.key.in_(list(keys[start : start + 500]))))
                found.update({str(k): str(v) for k, v in rows})
        return found

    def put_many(self, items: dict[str, str]) -> None:
        """Store sentences (a key already there keeps its sentence)."""
        if not items:
            return
        with self.database.transaction() as conn:
            conn.execute(self.database.insert_ignore(contexts),
                         [{"key": k, "context": v} for k, v in items.items()])

    def close(self) -> None:
        """Nothing to release: the database is the application's."""


@dataclass
class ContextStats:
    """What contextualizing cost in one ingest."""

    children: int = 0
    calls: int = 0
    cached: int = 0
    seconds: float = 0.0

    def as_counts(self) -> dict[str, int]:
        """The counts for an ingest report."""
        return {"children": self.children, "calls": self.calls, "cached": self.cached}


class Contextualizer:
    """Writes (or finds in the cache) the context sentence of each child."""

    def __init__(self, cache: ContextCache, model: Callable[[], BaseChatModel]) -> None:
        self.cache = cache
        self._model = model

    def contexts(
        self, title: str, parents: Sequence[Parent], children: Sequence[Child], stats: ContextStats
    ) -> list[str]:
        """One sentence per child, in order; the model is asked only for uncached ones."""
        started = time.perf_counter()
        sections = {p.parent_id: p.text for p in parents}
        keys = [context_key(title, sections.get(c.parent_id, ""), c.text) for c in children]
        known = self.cache.get_many(keys)
        missing = [i for i, key in enumerate(keys) if key not in known]
        if missing:
            prompts: list[LanguageModelInput] = [
                CONTEXT_PROMPT.format(
                    title=title,
                    section=sections.get(children[i].parent_id, "")[:SECTION_CHARS],
                    chunk=children[i].text,
                )
                for i in missing
            ]
            try:
                replies = self._model().batch(prompts, config={"max_concurrency": CONCURRENCY})
            except Exception as exc:  # the model's own error, as one line
                raise ArchivistError(
                    f"contextualize = llm: the model failed ({type(exc).__name__}: "
                    f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}); "
                    "set contextualize = off to ingest without context sentences"
                ) from exc
            written = {
                keys[i]: sentence_of(str(r.content)) for i, r in zip(missing, replies, strict=True)
            }
            self.cache.put_many(written)
            known.update(written)
        stats.children += len(children)
        stats.calls += len(missing)
        stats.cached += len(children) - len(missing)
        stats.seconds += time.perf_counter() - started
        return [known[key] for key in keys]


def indexed_texts(
    chunked: Chunked, contextualizer: Contextualizer | None, stats: ContextStats
) -> list[str]:
    """What each child is indexed as: title, headings, context sentence (if any), text."""
    title = chunked.loaded.title
    texts = [embedding_text(c, title) for c in chunked.children]
    if contextualizer is None:
        return texts
    contexts = contextualizer.contexts(title, chunked.parents, chunked.children, stats)
    return [contextual_text(t, c) for t, c in zip(texts, contexts, strict=True)]


def sentence_of(reply: str) -> str:
    """The context sentence in a reply: its first non-empty line, without quotes, capped."""
    line = next((x.strip() for x in reply.strip().splitlines() if x.strip()), "")
    line = line.strip("\"'“”")
    return line[:CONTEXT_CHARS].rstrip()
