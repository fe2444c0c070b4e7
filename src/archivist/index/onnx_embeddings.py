"""The same sentence-transformers model run by ONNX Runtime, optionally int8-quantised.

The model is exported once from its local folder with torch (already installed) and,
for ``int8``, quantised with ONNX Runtime's dynamic quantisation; both files are cached
under ``ARCHIVIST_CACHE`` (default ``~/.cache/archivist``). The export says so in one line
on stderr and shows nothing else (torch's tracer warnings and transformers' progress bar
are about the export, not the user's work); ``archivist model prepare`` (run by ``make
install``) does it ahead of the first ingest. Inference reproduces what
sentence-transformers does for all-MiniLM-L6-v2: truncation at the model's
``max_seq_length``, mean pooling over the attention mask, L2 normalisation. Texts are
sorted by their number of tokens (not characters: a table row of figures has about twice
the tokens of prose of the same length) and batched up to ``TOKENS_PER_BATCH`` padded
tokens, so that little padding is computed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from archivist.index.model_files import bundled_model_path
from archivist.types import ArchivistError

__all__ = ["OnnxEmbedder", "onnx_model_file", "prepare"]

_LOCK = threading.Lock()
#: one-line notices for the user (the CLI prints them as they are)
_notices = logging.getLogger("archivist.notice")
TOKENS_PER_BATCH = 4096  # padded tokens in one model call (fewer texts when they are long)
#: What the one-off export (and int8 quantisation) takes, as told to the user: measured
#: 5-7 s for all-MiniLM-L6-v2 on 2 cores, rounded up.
PREPARE_SECONDS = 10


def _cache_dir() -> Path:
    root = os.environ.get("ARCHIVIST_CACHE") or Path.home() / ".cache" / "archivist"
    return Path(root) / "onnx"


def _model_dir(name: str) -> Path:
    bundled = bundled_model_path(name)
    if bundled is not None:
        return bundled
    path = Path(name)
    if path.is_dir():
        return path
    raise ArchivistError(
        f"the ONNX backend needs a local model folder or the bundled model, not '{name}'"
    )


def onnx_model_file(name: str, quantized: bool) -> Path:
    """The ONNX file for model ``name`` (exported and quantised on first use)."""
    source = _model_dir(name)
    weights = source / "model.safetensors"
    stamp = hashlib.sha256(f"{source}:{weights.stat().st_mtime_ns}".encode()).hexdigest()[:12]
    folder = _cache_dir() / f"{source.name}-{stamp}"
    fp32 = folder / "model.onnx"
    int8 = folder / "model-int8.onnx"
    with _LOCK:
        if fp32.exists() and (int8.exists() or not quantized):
            return int8 if quantized else fp32
        _notices.info("preparing the embedding model (once, ~%d s)", PREPARE_SECONDS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not fp32.exists():
                _export(source, fp32)
            if quantized and not int8.exists():
                from onnxruntime.quantization import QuantType, quantize_dynamic

                partial = int8.with_suffix(f".{os.getpid()}.part")  # processes may race
                quantize_dynamic(str(fp32), str(partial), weight_type=QuantType.QInt8)
                partial.replace(int8)
    return int8 if quantized else fp32


def prepare(name: str, quantized: bool = False) -> tuple[Path, float]:
    """Export (and quantise) model ``name`` now if not done yet: its file and the seconds."""
    start = time.perf_counter()
    path = onnx_model_file(name, quantized)
    return path, time.perf_counter() - start


def _export(source: Path, target: Path) -> None:
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    target.parent.mkdir(parents=True, exist_ok=True)
    transformers_logging.disable_progress_bar()  # "Loading weights" of a local folder
    bert = AutoModel.from_pretrained(str(source)).eval()

    class _Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )[0]

    model = _Encoder().eval()
    sample = torch.ones((1, 8), dtype=torch.long)
    partial = target.with_suffix(f".{os.getpid()}.part")  # processes may race
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            model,
            (sample, sample, torch.zeros_like(sample)),
            str(partial),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },
            opset_version=17,
            dynamo=False,
        )
    partial.replace(target)


class OnnxEmbedder:
    """``Embedder`` on ONNX Runtime: fp32, or int8 (``quantized``), same vectors' meaning."""

    def __init__(
        self, name: str, batch_size: int = 64, quantized: bool = True, threads: int = 0
    ) -> None:
        import onnxruntime
        from transformers import AutoTokenizer

        self.name = name
        self.batch_size = batch_size
        source = _model_dir(name)
        self._tokenizer = AutoTokenizer.from_pretrained(str(source))
        self._tokenizer_lock = threading.Lock()  # a fast tokenizer is not re-entrant
        config = json.loads((source / "sentence_bert_config.json").read_text())
        self._max_length = int(config.get("max_seq_length", 256))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or min(os.cpu_count() or 1, 4)
        options.inter_op_num_threads = 1
        # Idle threads sleep instead of spinning: during ingest the conversion processes
        # share the cores, and a spinning thread takes CPU from them.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(onnx_model_file(name, quantized)), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._pad_id = int(self._tokenizer.pad_token_id or 0)
        self._dimension = int(json.loads((source / "config.json").read_text())["hidden_size"])

    @property
    def dimension(self) -> int:
        """The model's output size."""
        return self._dimension

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for many texts: sorted by tokens, batched, returned in input order.

        Sorting by characters left 1.78 times the computation of unpadded texts on the
        chunks of the five evaluation PDFs (in batches of 64); sorting by tokens and
        batching by ``TOKENS_PER_BATCH`` leaves about 1.1 times. Padding never changes a
        vector: the attention mask hides it and pooling skips it.
        """
        import numpy as np

        if not texts:
            return []
        with self._tokenizer_lock:
            encoded = self._tokenizer(texts, truncation=True, max_length=self._max_length)
        ids: list[list[int]] = encoded["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]), reverse=True)
        vectors: list[Any] = [None] * len(texts)
        for batch in self._batches(order, ids):
            width = len(ids[batch[0]])
            input_ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                input_ids[row, : len(ids[index])] = ids[index]
                mask[row, : len(ids[index])] = 1
            feeds = {"input_ids": input_ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(input_ids)
            (hidden,) = self._session.run(["last_hidden_state"], feeds)
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for row, index in enumerate(batch):
                vectors[index] = pooled[row].tolist()
        return vectors

    def _batches(self, order: list[int], ids: list[list[int]]) -> list[list[int]]:
        """``order`` (longest first) in batches of ``TOKENS_PER_BATCH`` padded tokens at most.

        A batch also holds at most ``batch_size`` texts.
        """
        batches: list[list[int]] = []
        for index in order:
            batch = batches[-1] if batches else None
            if (batch is None or len(batch) >= self.batch_size
                    or (len(batch) + 1) * len(ids[batch[0]]) > TOKENS_PER_BATCH):
                batches.append([index])
            else:
                batch.append(index)
        return batches

    def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """The vectors of several queries in one model call."""
        return self.embed_documents(texts)
