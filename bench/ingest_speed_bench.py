"""Full ingest of the real PDFs against the naive path, side by side in one run.

Naive path: pymupdf4llm converts the PDFs one after another, then sentence-transformers
(torch) embeds the very chunks Archivist made. Archivist: ``Library.ingest`` as users run
it (conversion pool, overlap with embedding, ONNX Runtime), OCR off. Model loading is
excluded on both sides. Also prints the embedding throughput of each backend on the same
1,000 chunks, and the machine's load average, since other work may share the cores.

Every figure comes with its CPU seconds (this process plus the conversion processes):
on a shared machine wall time says more about the other work than about ingest. On a busy
machine run it in parts (``--part archivist``, then ``naive``, then ``throughput``); the
first part saves the chunk texts to ``--texts`` for the others.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from archivist.application import Application
from archivist.documents.chunked import embedding_text
from archivist.index.embeddings import SentenceTransformerEmbedder
from archivist.index.onnx_embeddings import OnnxEmbedder
from archivist.settings import Settings

REPO = Path(__file__).resolve().parents[1]
MODEL = "all-MiniLM-L6-v2"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f}/{five:.1f}/{fifteen:.1f} on {os.cpu_count()} cores"


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the conversion pool)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def chunk_fingerprint(store: Any) -> dict[str, Any]:
    """Counts and one SHA-256 of every stored parent and child: text, heading path, pages,
    kind and position, document by document (two runs with the same figures stored the
    same chunks with the same page map)."""
    digest = hashlib.sha256()
    parents = children = 0
    for doc in sorted(store.documents(), key=lambda d: d.name):
        rows = sorted(store.parents_of(doc.document_id), key=lambda p: p.position)
        place = {p.parent_id: p.position for p in rows}
        for p in rows:
            record = [doc.name, "parent", p.position, p.text, p.heading_path, p.page_start,
                      p.page_end, p.kind]
            digest.update(json.dumps(record).encode())
        kids = sorted(store.children_of(doc.document_id), key=lambda c: c.position)
        for c in kids:
            record = [doc.name, "child", place[c.parent_id], c.position, c.text,
                      c.heading_path, c.page_start, c.page_end, c.kind]
            digest.update(json.dumps(record).encode())
        parents, children = parents + len(rows), children + len(kids)
    return {"parents": parents, "children": children, "sha256": digest.hexdigest()}


def archivist_ingest(
    pdfs: Path, backend: str
) -> tuple[float, dict[str, float], list[str], dict[str, Any]]:
    """Wall time of a full ingest, its time split (with ``cpu``), the texts it embedded
    and the fingerprint of the chunks it stored."""
    workdir = Path(tempfile.mkdtemp(prefix="archivist-speed-"))
    try:
        settings = Settings(data_dir=workdir, index={"ocr": "off", "embedding_backend": backend})  # type: ignore[arg-type]
        with Application(settings) as library:
            library.store.embedder.embed_query("warm up")  # model load is not ingest time
            started, cpu = time.perf_counter(), cpu_seconds()
            report = library.ingest.files([pdfs])
            wall = time.perf_counter() - started
            cpu = cpu_seconds() - cpu
            assert report.counts["failed"] == 0, report.results
            texts = [
                embedding_text(child, doc.name)
                for doc in library.store.documents()
                for child in library.store.children_of(doc.document_id)
            ]
            chunks = chunk_fingerprint(library.store)
        return wall, dict(report.timings) | {"cpu": cpu}, texts, chunks
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def naive_ingest(pdfs: Path, texts: list[str], model: SentenceTransformerEmbedder) -> dict:
    import pymupdf4llm

    pymupdf4llm.use_layout(False)
    started, cpu = time.perf_counter(), cpu_seconds()
    for path in sorted(pdfs.glob("*.pdf")):
        pymupdf4llm.to_markdown(str(path), page_chunks=True, show_progress=False)
    conversion, conversion_cpu = time.perf_counter() - started, cpu_seconds() - cpu
    started, cpu = time.perf_counter(), cpu_seconds()
    model.embed_documents(texts)
    embedding, embedding_cpu = time.perf_counter() - started, cpu_seconds() - cpu
    return {
        "conversion_s": conversion,
        "embedding_s": embedding,
        "total_s": conversion + embedding,
        "conversion_cpu_s": conversion_cpu,
        "embedding_cpu_s": embedding_cpu,
        "total_cpu_s": conversion_cpu + embedding_cpu,
    }


def throughput(texts: list[str], embedders: dict[str, Any]) -> dict[str, dict[str, float]]:
    """chunks/s (wall and per CPU second) of each backend, and cosine to the torch vectors."""
    figures: dict[str, dict[str, float]] = {}
    reference = None
    for name, embedder in embedders.items():
        cpu, wall = time.process_time(), time.perf_counter()
        vectors = np.array(embedder.embed_documents(texts))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        figures[name] = {"chunks_per_s": len(texts) / wall, "chunks_per_cpu_s": len(texts) / cpu}
        if reference is None:
            reference = vectors
        else:
            cosine = (vectors * reference).sum(axis=1)
            figures[name] |= {
                "cosine_mean": float(cosine.mean()),
                "cosine_min": float(cosine.min()),
            }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pdfs", type=Path, default=REPO.parent / "shared" / "eval" / "pdfs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--levers", action="store_true", help="also ingest with the torch backend")
    parser.add_argument(
        "--part", choices=["all", "ingest", "archivist", "naive", "throughput"], default="all",
        help="ingest: Archivist and the naive path side by side, without the throughput part",
    )
    parser.add_argument("--texts", type=Path, help="chunk texts: written by archivist, read else")
    args = parser.parse_args()
    print(f"load before: {load()}", flush=True)
    figures: dict[str, Any] = {"part": args.part}
    texts: list[str] = []
    if args.part in ("all", "ingest", "archivist"):
        wall, split, texts, chunks = archivist_ingest(args.pdfs, "onnx")
        figures |= {"chunks": len(texts), "archivist_s": wall, "archivist_split_s": split,
                    "stored_chunks": chunks}
        split_text = ", ".join(f"{k} {v:.1f} s" for k, v in split.items())
        print(f"archivist: {len(texts)} chunks in {wall:.1f} s (load {load()})", flush=True)
        print(f"stored: {chunks['parents']} parents, {chunks['children']} children, "
              f"sha256 {chunks['sha256']}", flush=True)
        print(f"archivist split: {split_text}", flush=True)
        if args.texts:
            args.texts.write_text(json.dumps(texts))
        if args.levers:
            torch_wall, torch_split, _, _ = archivist_ingest(args.pdfs, "torch")
            figures["archivist_torch_backend_s"] = torch_wall
            figures["archivist_torch_backend_split_s"] = torch_split
            print(f"archivist, torch backend: {torch_wall:.1f} s", flush=True)
    elif args.texts:
        texts = json.loads(args.texts.read_text())
    if not texts:
        parser.error("--part naive/throughput needs --texts written by --part archivist")
    torch_model = None
    if args.part in ("all", "ingest", "naive", "throughput"):
        torch_model = SentenceTransformerEmbedder(MODEL)
        torch_model.embed_query("warm up")
    if args.part in ("all", "ingest", "naive"):
        assert torch_model is not None
        naive = naive_ingest(args.pdfs, texts, torch_model)
        figures["naive"] = naive
        print(
            f"naive: conversion {naive['conversion_s']:.1f} s + embedding "
            f"{naive['embedding_s']:.1f} s = {naive['total_s']:.1f} s; CPU "
            f"{naive['conversion_cpu_s']:.1f} + {naive['embedding_cpu_s']:.1f} s "
            f"(load {load()})",
            flush=True,
        )
        if "archivist_s" in figures:
            figures["ratio"] = figures["archivist_s"] / naive["total_s"]
            print(f"archivist / naive = {figures['ratio']:.2f} (goal <= 0.50)")
    if args.part in ("all", "throughput"):
        sample = texts[:: max(1, len(texts) // 1000)][:1000]
        figures["throughput"] = throughput(
            sample,
            {
                "torch": torch_model,
                "onnx": OnnxEmbedder(MODEL, quantized=False),
                "onnx-int8": OnnxEmbedder(MODEL, quantized=True),
            },
        )
        for name, row in figures["throughput"].items():
            extra = (
                f", cosine to torch {row['cosine_mean']:.4f} (min {row['cosine_min']:.4f})"
                if ("cosine_mean" in row)
                else ""
            )
            print(
                f"embedding {name:<9} {row['chunks_per_s']:.0f} chunks/s, "
                f"{row['chunks_per_cpu_s']:.0f} chunks per CPU s on {len(sample)} chunks{extra}"
            )
    figures["load_after"] = load()
    print(f"load after: {figures['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
