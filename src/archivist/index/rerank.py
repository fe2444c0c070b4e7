"""Optional reranking of the best hits (the ``rerank_model`` setting; off by default).

* A sentence-transformers ``CrossEncoder``, by hub name or local folder, scores each
  ``(query, passage)`` pair and the best ``rerank_depth`` hits are reordered by score.
  No cross-encoder ships in a package, so a name needs network access once (or a folder).
* ``llm``: the configured model reads the best ``rerank_depth`` passages, numbered, and
  returns their numbers best first (listwise reranking, one call per search). Numbers it
  leaves out keep their order after the ones it ranked; a reply that cannot be read keeps
  the search's own order.

Hits below the reranked head keep their place after it, so Recall beyond the depth does
not change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from archivist.types import ArchivistError, SearchHit

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from archivist.llm.capabilities import ModelProfile

log = logging.getLogger(__name__)

PASSAGE_CHARS = 700
"""How much of each passage the listwise prompt shows."""

RERANK_PROMPT = """Rank the passages by how well they help answer the question: the most
useful first. Passages that together answer it (one names what the other explains) are
both useful. Give every passage number once.

Question: {query}

{passages}"""


class PassageRanking(BaseModel):
    """The listwise reranker's reply."""

    order: list[int] = Field(
        default_factory=list, description="Passage numbers, the most useful first."
    )


class Reranker(Protocol):
    """Reorders hits for a query (the same hits, best first)."""

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits in their new order."""
        ...


def passage_text(hit: SearchHit) -> str:
    """What a reranker reads: the heading path (often the title), then the text."""
    head = " > ".join(hit.heading_path)
    return f"{head}\n{hit.text}" if head else hit.text


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder (``rerank_model`` = a hub name or a folder)."""

    def __init__(self, name: str) -> None:
        self.name = name
        try:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(name, device="cpu")
        except Exception as exc:  # a missing folder, no network, not a cross-encoder
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ArchivistError(
                f"rerank_model '{name}': cannot load a cross-encoder ({type(exc).__name__}"
                f"{': ' + first[:200] if first else ''}); give the folder of a "
                "sentence-transformers CrossEncoder, a hub name with network access, "
                "'llm', or leave it empty to switch reranking off"
            ) from exc

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """Hits sorted by the cross-encoder's score (ties keep the search's order)."""
        if len(hits) < 2:
            return list(hits)
        scores = self._model.predict(
            [(query, passage_text(h)) for h in hits], show_progress_bar=False
        )
        order = sorted(range(len(hits)), key=lambda i: -float(scores[i]))
        return [_rescored(hits[i], float(scores[i])) for i in order]


class LLMReranker:
    """Listwise reranking by the configured chat model (``rerank_model = "llm"``)."""

    def __init__(
        self, model: Callable[[], BaseChatModel], profile: Callable[[], ModelProfile]
    ) -> None:
        self._model = model
        self._profile = profile
        self.calls = 0

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """Hits in the order the model gives; unranked ones after, in their own order."""
        if len(hits) < 2:
            return list(hits)
        from langchain_core.messages import HumanMessage

        from archivist.llm.structured import invoke_structured, structured_output

        passages = "\n\n".join(
            f"[{n}] {' '.join(passage_text(h).split())[:PASSAGE_CHARS]}"
            for n, h in enumerate(hits, start=1)
        )
        runnable = structured_output(self._model(), PassageRanking, self._profile())
        self.calls += 1
        reply = invoke_structured(
            runnable,
            [HumanMessage(RERANK_PROMPT.format(query=query, passages=passages))],
            PassageRanking,
            "rerank",
        )
        if reply is None:
            log.warning("rerank: the model's ranking could not be read; search order kept")
            return list(hits)
        return apply_order(hits, reply.order)


def apply_order(hits: Sequence[SearchHit], order: Sequence[int]) -> list[SearchHit]:
    """``hits`` with the 1-based numbers in ``order`` first, then the rest as they were.

    Numbers out of range and repeats are ignored.
    """
    picked = list(dict.fromkeys(n - 1 for n in order if 1 <= n <= len(hits)))
    rest = [i for i in range(len(hits)) if i not in set(picked)]
    return [hits[i] for i in picked + rest]


def rerank_head(
    reranker: Reranker, query: str, hits: list[SearchHit], depth: int
) -> list[SearchHit]:
    """The best ``depth`` hits reranked, the rest after them unchanged."""
    return reranker.rerank(query, hits[:depth]) + hits[depth:]


class RerankerSlot:
    """The reranker the settings ask for, built on first use (``None`` when off)."""

    def __init__(
        self,
        setting: str,
        model: Callable[[], BaseChatModel],
        profile: Callable[[], ModelProfile],
    ) -> None:
        self.setting = setting.strip()
        self._model = model
        self._profile = profile
        self._reranker: Reranker | None = None
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """Whether reranking is on."""
        return self.setting.lower() not in ("", "off", "none")

    def get(self) -> Reranker | None:
        """The reranker, loaded once (raises ``ArchivistError`` naming the setting)."""
        if not self.enabled:
            return None
        with self._lock:
            if self._reranker is None:
                self._reranker = (
                    LLMReranker(self._model, self._profile)
                    if self.setting.lower() == "llm"
                    else CrossEncoderReranker(self.setting)
                )
            return self._reranker


def _rescored(hit: SearchHit, score: float) -> SearchHit:
    data: dict[str, Any] = {**hit.__dict__, "score": score}
    return SearchHit(**data)
