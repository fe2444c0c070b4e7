"""Ingest files into one collection, one document at a time, all-or-nothing per document.

Order of writes for a document (so that a crash at any point leaves it absent or whole):

1. catalog row ``pending`` + parents + children (one SQLite transaction);
2. vectors upserted into Qdrant;
3. new row ``ready`` and the replaced version ``removing`` (one transaction);
4. the replaced version's vectors, then its rows, deleted.

Rows left ``pending``/``removing`` are purged when a store is opened. The pipeline sits
above ``documents/`` (load, chunk) and ``index/`` (the store and its encoders) and is handed
both; neither imports it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path

from archivist.contextualize import ContextStats, Contextualizer, indexed_texts
from archivist.documents.chunked import Chunked, ChunkSizes, chunk_document
from archivist.documents.conversion import (
    ConversionJob,
    ConversionPool,
    conversion_pool,
    converted_ahead,
)
from archivist.documents.loaders import iter_files, load_file, markdown_title, refused
from archivist.documents.pdf import OcrMode
from archivist.filings.document import filing_of
from archivist.index.sparse import SparseVector
from archivist.index.store import DocumentStore
from archivist.ingest_progress import (
    EMBED_STEP,
    IngestProgress,
    ProgressCallback,
    StageCallback,
    content_hash,
    loader_reason,
    no_stage,
    stage_reporter,
    write_reason,
)
from archivist.settings import Settings
from archivist.types import (
    DocumentRecord,
    FileResult,
    IngestOutcome,
    IngestReport,
    LoadedDocument,
    LoadError,
)

log = logging.getLogger(__name__)


class IngestPipeline:
    """Ingests into a :class:`DocumentStore`, one collection at a time, one write at a time."""

    def __init__(self, store: DocumentStore, settings: Settings,
                 contextualizer: Contextualizer | None = None) -> None:  # fmt: skip
        self.store = store
        self.contextualizer = contextualizer
        self.sizes = ChunkSizes.of(settings)
        self.ocr: OcrMode = settings.index.ocr
        self.layout = settings.index.pdf_layout
        self.workers = settings.index.ingest_workers
        self.entity_graph = settings.index.entity_graph
        self.max_pdf_pages = settings.index.max_pdf_pages

    def files(
        self,
        paths: Iterable[Path | str],
        collection: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest files and folders; see ``IngestReport`` for each file's outcome."""
        name = self.store.collection_name(collection)
        with self.store.write_lock:
            self.store.prepare_collection(name)
            ingestor = Ingestor(self.store, name, self.sizes, self.ocr, self.workers, self.layout)
            ingestor.contextualizer = self.contextualizer
            ingestor.max_pdf_pages = self.max_pdf_pages
            ingestor.run([Path(p) for p in paths], progress)
            return self._graph(name, ingestor.reported())

    def texts(
        self,
        items: Iterable[tuple[str, str]],
        collection: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest ``(name, markdown)`` pairs (benchmarks, evaluation corpora, the API)."""
        name = self.store.collection_name(collection)
        with self.store.write_lock:
            self.store.prepare_collection(name)
            ingestor = Ingestor(self.store, name, self.sizes)
            ingestor.contextualizer = self.contextualizer
            ingestor.run_texts(items, progress)
            return self._graph(name, ingestor.reported())

    def _graph(self, collection: str, report: IngestReport) -> IngestReport:
        """Add the documents just written to the entity graph when it is switched on."""
        if self.entity_graph:
            started = time.perf_counter()
            written = {r.document_id for r in report.results if r.document_id}
            self.store.graph_indexer.sync(collection, written)
            report.timings["graph"] = time.perf_counter() - started
        return report


class Ingestor:
    """One ingest run into one collection; see the module docstring for the write order."""

    def __init__(
        self,
        store: DocumentStore,
        collection: str,
        sizes: ChunkSizes,
        ocr: OcrMode = "auto",
        workers: int = 0,
        layout: bool = False,
    ) -> None:
        self.store = store
        self.collection = collection
        self.sizes = sizes
        self.ocr: OcrMode = ocr
        self.layout = layout
        self.workers = workers
        self.catalog = store.catalog
        self.report = IngestReport()
        self._report: StageCallback = no_stage
        self._pool: ConversionPool | None = None
        self._current = 0
        self._converted: dict[int, int] = {}  # position in the run: its pages converted
        self._page_counts: dict[int, int] = {}  # position in the run: its pages in all
        self._deferred: set[str] = set()
        self.contextualizer: Contextualizer | None = None
        self.context_stats = ContextStats()
        self.max_pdf_pages = 0  # 0: no limit

    def reported(self) -> IngestReport:
        """The report, with what contextualizing cost when it is on."""
        if self.contextualizer is not None:
            self.report.contexts = self.context_stats.as_counts()
            self.report.timings["context"] = self.context_stats.seconds
        return self.report

    def run(self, paths: Iterable[Path], progress: ProgressCallback | None = None) -> IngestReport:
        """Ingest every file under ``paths``; failures are recorded, never raised.

        PDFs are converted in a pool of processes (see ``conversion_pool``) while this
        thread chunks, embeds and writes the files already converted, in file order.
        """
        files: list[Path] = []
        for path in paths:
            try:
                files.extend(iter_files([Path(path)]))
            except LoadError as exc:
                self.report.results.append(
                    FileResult(str(path), IngestOutcome.FAILED, reason=str(exc))
                )
        prepared = [self._prepare(path) for path in files]
        pdfs = sum(1 for p in prepared if isinstance(p, ConversionJob) and p.is_pdf)
        with conversion_pool(self.workers, pdfs) as pool:
            self._pool = pool
            conversions = converted_ahead(pool, prepared, self.ocr, self.layout)
            for index, (job, future) in enumerate(zip(prepared, conversions, strict=True)):
                self._current = index
                self._report = stage_reporter(progress, index, len(files),
                                              str(getattr(job, "path", "")), self.pages_converted)
                if isinstance(job, ConversionJob):  # a PDF's page count is known from the start
                    self._count(index, 0, job.page_count)
                    self._stage("converting", self._converted.get(index, 0))
                result = job if isinstance(job, FileResult) else self._finish(job, future)
                self._count(index, result.pages)
                self.report.results.append(result)
                if progress:
                    progress(IngestProgress(
                        index + 1, len(files), result.path, result.pages, result.chunks, result,
                        result.ocr_pages, result.ocr_seconds,
                        pages_converted=self.pages_converted()))
            self._pool = None
        return self.report

    def pages_converted(self) -> int:
        """Pages converted so far, in every file of the run."""
        return sum(self._converted.values())

    def _count(self, position: int, pages: int, total: int = 0) -> None:
        self._converted[position] = max(self._converted.get(position, 0), pages)
        self._page_counts[position] = max(self._page_counts.get(position, 0), total, pages)

    def _converting(self, position: int, pages: int, total: int) -> None:
        """A file's pages converted so far, of ``total`` (this file's, or one converting ahead)."""
        self._count(position, pages, total)
        self._stage("converting", self._converted.get(self._current, 0), drain=False)

    def _stage(self, stage: str, pages: int = 0, done: int = 0, total: int = 0,
               drain: bool = True) -> None:
        """Report the current file's stage (with the pages converted ahead meanwhile)."""
        if drain and self._pool is not None:
            self._pool.drain(self._count)
        self._report(stage, pages, done, total, self._page_counts.get(self._current, 0))

    def _prepare(self, path: Path) -> FileResult | ConversionJob:
        """What is known before converting: skipped, unreadable, unchanged, or a job."""
        refusal = refused(path)  # an unsupported type, or a text file over its size limit
        if refusal is not None:
            return refusal
        try:
            data = path.read_bytes()
        except OSError as exc:
            reason = f"cannot read: {exc.strerror}"
            return FileResult(str(path), IngestOutcome.FAILED, reason=reason)
        digest = content_hash(data)
        document_id = digest[:16]
        abs_path = str(path.resolve())
        known = self.catalog.document(self.collection, document_id)
        if known is not None:
            return FileResult(str(path), IngestOutcome.UNCHANGED, document_id)
        previous = [d for d in self.catalog.documents(self.collection) if d.path == abs_path]
        job = ConversionJob.of(path, data, digest, abs_path, previous)
        if (too_long := job.over_limit(self.max_pdf_pages)) is not None:
            return FileResult(str(path), IngestOutcome.FAILED, document_id, reason=too_long)
        return job

    def _convert(self, job: ConversionJob, future: Future[LoadedDocument] | None) -> LoadedDocument:
        """The converted file: from the pool when it went there, else converted here."""
        started = time.perf_counter()
        if future is not None and self._pool is not None:
            try:
                loaded = self._pool.wait(future, self._converting)
            except BrokenProcessPool:  # a converter process died: try once more here
                loaded = load_file(job.path, ocr=self.ocr, layout=self.layout)
            seconds = loaded.conversion_seconds
        else:
            loaded = load_file(job.path, ocr=self.ocr, layout=self.layout,
                               on_pages=partial(self._converting, self._current))
            seconds = time.perf_counter() - started
        self.report.timings["conversion wait"] += time.perf_counter() - started
        self.report.timings["ocr"] += loaded.ocr_seconds
        self.report.timings["conversion"] += max(0.0, seconds - loaded.ocr_seconds)
        return loaded

    def _finish(self, job: ConversionJob, future: Future[LoadedDocument] | None) -> FileResult:
        path = job.path
        document_id = job.digest[:16]
        try:
            loaded = self._convert(job, future)
            chunked = chunk_document(loaded, document_id, self.collection, self.sizes)
            if not chunked.children:
                raise LoadError(f"{path}: no text to index")
        except LoadError as exc:
            return FileResult(
                str(path), IngestOutcome.FAILED, document_id, reason=loader_reason(exc, path)
            )
        except Exception as exc:  # a converter bug must not cost the rest of the batch
            log.warning("converting %s failed", path, exc_info=True)
            reason = f"could not convert: {type(exc).__name__}: {exc}"
            return FileResult(str(path), IngestOutcome.FAILED, document_id, reason=reason)
        record = DocumentRecord(
            document_id=document_id, collection=self.collection, path=job.abs_path,
            name=path.name, content_hash=job.digest, size_bytes=job.size,
            page_count=loaded.page_count, parent_count=len(chunked.parents),
            child_count=len(chunked.children), added_at="", title=loaded.title,
            **filing_of(loaded),
        )
        try:
            self._write_many([(record, chunked, job.previous)])
        except Exception as exc:  # rolled back (by _write_many); the batch goes on
            log.warning("ingest of %s failed, rolled back", path, exc_info=True)
            reason = write_reason(exc) + self._rollback_note(document_id)
            return FileResult(str(path), IngestOutcome.FAILED, document_id, reason=reason)
        outcome = IngestOutcome.REPLACED if job.previous else IngestOutcome.ADDED
        return FileResult(str(path), outcome, document_id, pages=loaded.page_count,
                          chunks=len(chunked.children), ocr_pages=loaded.ocr_pages,
                          ocr_seconds=loaded.ocr_seconds)

    def run_texts(
        self, items: Iterable[tuple[str, str]], progress: ProgressCallback | None = None
    ) -> IngestReport:
        """Ingest in-memory Markdown texts as documents named ``name`` (batched embedding).

        The name is the document's path key: a new text under a known name replaces it.
        """
        batch: list[tuple[DocumentRecord, Chunked, list[DocumentRecord]]] = []
        items = list(items)
        by_path: dict[str, list[DocumentRecord]] = {}
        for doc in self.catalog.documents(self.collection):
            by_path.setdefault(doc.path, []).append(doc)
        for index, (name, markdown) in enumerate(items, start=1):
            data = markdown.encode("utf-8")
            digest = content_hash(data)
            document_id = digest[:16]
            if self.catalog.document(self.collection, document_id) is not None:
                result = FileResult(name, IngestOutcome.UNCHANGED, document_id)
            else:
                loaded = LoadedDocument(
                    path=name, markdown=markdown, title=markdown_title(markdown, name)
                )
                chunked = chunk_document(loaded, document_id, self.collection, self.sizes)
                record = DocumentRecord(
                    document_id=document_id, collection=self.collection, path=name,
                    name=name, content_hash=digest, size_bytes=len(data), page_count=0,
                    parent_count=len(chunked.parents), child_count=len(chunked.children),
                    added_at="", title=loaded.title, **filing_of(loaded),
                )
                if chunked.children:
                    batch.append((record, chunked, by_path.get(name, [])))
                    result = FileResult(
                        name,
                        IngestOutcome.REPLACED if by_path.get(name) else IngestOutcome.ADDED,
                        document_id,
                        chunks=len(chunked.children),
                    )
                else:
                    result = FileResult(
                        name, IngestOutcome.FAILED, document_id, reason="empty text"
                    )
            self.report.results.append(result)
            if len(batch) >= 64 or (index == len(items) and batch):
                self._write_many(batch)
                batch = []
            if progress:
                progress(IngestProgress(index, len(items), name, 0, result.chunks, result))
        return self.report

    def _write_many(
        self, batch: list[tuple[DocumentRecord, Chunked, list[DocumentRecord]]]
    ) -> None:
        """Embed a batch of documents together, then write each one atomically."""
        store = self.store
        context, stats = self.contextualizer, self.context_stats  # title, headings, context
        texts = [t for _, chunked, _ in batch for t in indexed_texts(chunked, context, stats)]
        started = time.perf_counter()
        pages = sum(chunked.loaded.page_count for _, chunked, _ in batch)
        unique = list(dict.fromkeys(texts))  # a repeated chunk (boilerplate) is embedded once
        vectors: list[list[float]] = []
        for start in range(0, len(unique), EMBED_STEP):
            self._stage("embedding", pages, len(vectors) * len(texts) // len(unique), len(texts))
            vectors.extend(store.embedder.embed_documents(unique[start : start + EMBED_STEP]))
        by_text = dict(zip(unique, vectors, strict=True))
        dense = [by_text[text] for text in texts]
        self._stage("indexing", pages, len(texts), len(texts))
        sparse = [store.bm25.encode_document(t) for t in texts]
        self.report.timings["embedding"] += time.perf_counter() - started
        started = time.perf_counter()
        offset = 0
        for record, chunked, previous in batch:
            n = len(chunked.children)
            try:
                self._index(record, chunked, previous, dense[offset : offset + n],
                            sparse[offset : offset + n])
            except BaseException:
                self._rollback(record.document_id)
                raise
            offset += n
        self.report.timings["indexing"] += time.perf_counter() - started

    def _rollback(self, document_id: str) -> None:
        """Purge a half-written document.

        If even that fails (the disk is full), its rows stay ``pending``: invisible to
        search, and purged when the library is next opened.
        """
        try:
            self.store.purge(self.collection, document_id)
        except Exception:
            log.warning("rolling back %s failed; it is purged on the next open", document_id,
                        exc_info=True)
            self._deferred.add(document_id)

    def _rollback_note(self, document_id: str) -> str:
        deferred = document_id in self._deferred
        return " (its partial write is removed when the library is next opened)" * deferred

    def _index(self, record: DocumentRecord, chunked: Chunked, previous: list[DocumentRecord],
               dense: list[list[float]], sparse: list[SparseVector]) -> None:
        self.store.add_pending(record, chunked.parents, chunked.children, dense, sparse,
                               tables=chunked.loaded.tables)
        self.store.mark_ready(self.collection, record.document_id, previous)

