"""BM25 as sparse vectors: tokenize, drop stopwords, stem; Qdrant applies the IDF.

Documents get BM25's saturated term frequency with length normalisation; queries get a
weight of 1 per distinct term. With ``Modifier.IDF`` on the sparse vector, Qdrant multiplies
each matched term by its inverse document frequency over the collection, so the dot product
is the BM25 score.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from archivist.stopwords import STOP_WORDS

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)



@dataclass(frozen=True)
class SparseVector:
    """Indices and values ready for Qdrant."""

    indices: list[int]
    values: list[float]


@lru_cache(maxsize=4)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(language)


class BM25Encoder:
    """Turns text into BM25 sparse vectors (k1, b and the average length are BM25's own)."""

    def __init__(
        self, language: str = "english", k1: float = 1.2, b: float = 0.75, avg_len: float = 60.0
    ) -> None:
        self.language = language
        self.k1 = k1
        self.b = b
        self.avg_len = avg_len
        self._stem = _stemmer(language)
        self._stopwords = STOP_WORDS if language == "english" else frozenset()

    def tokens(self, text: str) -> list[str]:
        """Lower-cased, stopword-free, stemmed tokens."""
        words = [w for w in _TOKEN.findall(text.lower()) if w not in self._stopwords]
        return [s for s in self._stem.stemWords(words) if s]

    @staticmethod
    def term_id(term: str) -> int:
        """A stable 31-bit id for a term (the same in every process)."""
        return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF

    def _vector(self, weights: dict[int, float]) -> SparseVector:
        items = sorted(weights.items())
        return SparseVector([i for i, _ in items], [v for _, v in items])

    def encode_document(self, text: str) -> SparseVector:
        """BM25 term weights of a stored chunk (without IDF)."""
        tokens = self.tokens(text)
        length = len(tokens)
        norm = self.k1 * (1 - self.b + self.b * length / self.avg_len)
        weights: dict[int, float] = {}
        for term, tf in Counter(tokens).items():
            tid = self.term_id(term)
            weights[tid] = weights.get(tid, 0.0) + tf * (self.k1 + 1) / (tf + norm)
        return self._vector(weights)

    def encode_query(self, text: str) -> SparseVector:
        """One unit weight per distinct query term."""
        return self._vector({self.term_id(t): 1.0 for t in set(self.tokens(text))})
