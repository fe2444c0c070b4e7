"""Ingest files into one collection, one document at a time, all-or-nothing per document.

Order of writes for a document (so that a crash at any point leaves it absent or whole):

1. catalog row ``pending`` + parents + children (one SQLite transaction);
2. vectors upserted into Qdrant;
3. new row ``ready`` and the replaced version ``removing`` (one transaction);
4. the replaced version's vectors, then its rows, deleted.

Rows left ``pending``/``removing`` are purged when a library is opened.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from archivist.documents.chunking import heading_path_text, split_children, split_parents
from archivist.documents.loaders import SUPPORTED_SUFFIXES, iter_files, load_file
from archivist.index.sparse import SparseVector
from archivist.types import (
    Child,
    DocumentRecord,
    FileResult,
    IngestOutcome,
    IngestReport,
    LoadedDocument,
    LoadError,
    Parent,
)

if TYPE_CHECKING:
    from archivist.library import Library

log = logging.getLogger(__name__)


@dataclass
class IngestProgress:
    """What a progress display needs after each file."""

    files_done: int
    files_total: int
    path: str
    pages: int = 0
    chunks: int = 0
    result: FileResult | None = None


ProgressCallback = Callable[[IngestProgress], None]


@dataclass
class Chunked:
    """A loaded document cut into parents and children."""

    loaded: LoadedDocument
    parents: list[Parent] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)


def content_hash(data: bytes) -> str:
    """The SHA-256 of a file's bytes; its first 16 hex digits are the document id."""
    return hashlib.sha256(data).hexdigest()


def chunk_document(
    loaded: LoadedDocument, document_id: str, collection: str, library: Library
) -> Chunked:
    """Parents by headings, children inside each parent, with ids and pages."""
    s = library.settings
    out = Chunked(loaded)
    for p_pos, section in enumerate(split_parents(loaded, s.parent_min_chars, s.parent_max_chars)):
        parent_id = f"{document_id}-p{p_pos}"
        out.parents.append(
            Parent(
                parent_id=parent_id,
                document_id=document_id,
                position=p_pos,
                text=section.text,
                heading_path=section.heading_path,
                page_start=section.page_start,
                page_end=section.page_end,
                collection=collection,
            )
        )
        for piece in split_children(section, s.child_chars, s.child_overlap, doc=loaded):
            out.children.append(
                Child(
                    child_id=f"{document_id}-c{len(out.children)}",
                    parent_id=parent_id,
                    document_id=document_id,
                    position=len(out.children),
                    text=piece.text,
                    heading_path=piece.heading_path,
                    page_start=piece.page_start,
                    page_end=piece.page_end,
                )
            )
    return out


def embedding_text(child: Child, title: str) -> str:
    """What gets embedded and BM25-encoded: the heading path as context, then the text."""
    context = heading_path_text(child.heading_path) or title
    return f"{context}\n\n{child.text}" if context else child.text


class Ingestor:
    """Runs an ingest for a library; see the module docstring for the write order."""

    def __init__(self, library: Library, collection: str) -> None:
        self.library = library
        self.collection = collection
        self.catalog = library.catalog
        self.report = IngestReport()

    def run(self, paths: Iterable[Path], progress: ProgressCallback | None = None) -> IngestReport:
        """Ingest every file under ``paths``; failures are recorded, never raised."""
        files: list[Path] = []
        for path in paths:
            try:
                files.extend(iter_files([Path(path)]))
            except LoadError as exc:
                self.report.results.append(
                    FileResult(str(path), IngestOutcome.FAILED, reason=str(exc))
                )
        for index, path in enumerate(files, start=1):
            result = self._one(path)
            self.report.results.append(result)
            if progress:
                progress(
                    IngestProgress(
                        index, len(files), str(path), result.pages, result.chunks, result
                    )
                )
        return self.report

    def _one(self, path: Path) -> FileResult:
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            reason = f"unsupported file type '{path.suffix or '(none)'}'"
            return FileResult(str(path), IngestOutcome.SKIPPED, reason=reason)
        try:
            data = path.read_bytes()
        except OSError as exc:
            return FileResult(
                str(path), IngestOutcome.FAILED, reason=f"cannot read: {exc.strerror}"
            )
        digest = content_hash(data)
        document_id = digest[:16]
        abs_path = str(path.resolve())
        known = self.catalog.document(self.collection, document_id)
        if known is not None:
            return FileResult(str(path), IngestOutcome.UNCHANGED, document_id)
        previous = [d for d in self.catalog.documents(self.collection) if d.path == abs_path]
        try:
            started = time.perf_counter()
            loaded = load_file(path)
            self.report.timings["conversion"] += time.perf_counter() - started
            chunked = chunk_document(loaded, document_id, self.collection, self.library)
            if not chunked.children:
                raise LoadError(f"{path}: no text to index")
        except LoadError as exc:
            return FileResult(
                str(path), IngestOutcome.FAILED, document_id, reason=_reason(exc, path)
            )
        except Exception as exc:  # a converter bug must not cost the rest of the batch
            log.warning("converting %s failed", path, exc_info=True)
            reason = f"could not convert: {type(exc).__name__}: {exc}"
            return FileResult(str(path), IngestOutcome.FAILED, document_id, reason=reason)
        record = DocumentRecord(
            document_id=document_id,
            collection=self.collection,
            path=abs_path,
            name=path.name,
            content_hash=digest,
            size_bytes=len(data),
            page_count=loaded.page_count,
            parent_count=len(chunked.parents),
            child_count=len(chunked.children),
            added_at="",
        )
        try:
            self._write(record, chunked, previous)
        except Exception as exc:  # rolled back; the batch goes on with the next file
            log.warning("ingest of %s failed, rolled back", path, exc_info=True)
            self.library.purge(self.collection, document_id)
            return FileResult(str(path), IngestOutcome.FAILED, document_id, reason=str(exc))
        except BaseException:
            self.library.purge(self.collection, document_id)
            raise
        outcome = IngestOutcome.REPLACED if previous else IngestOutcome.ADDED
        return FileResult(
            str(path), outcome, document_id, pages=loaded.page_count, chunks=len(chunked.children)
        )

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
                loaded = LoadedDocument(path=name, markdown=markdown, title=name)
                chunked = chunk_document(loaded, document_id, self.collection, self.library)
                record = DocumentRecord(
                    document_id=document_id,
                    collection=self.collection,
                    path=name,
                    name=name,
                    content_hash=digest,
                    size_bytes=len(data),
                    page_count=0,
                    parent_count=len(chunked.parents),
                    child_count=len(chunked.children),
                    added_at="",
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

    def _write(
        self, record: DocumentRecord, chunked: Chunked, previous: list[DocumentRecord]
    ) -> None:
        self._write_many([(record, chunked, previous)])

    def _write_many(
        self, batch: list[tuple[DocumentRecord, Chunked, list[DocumentRecord]]]
    ) -> None:
        """Embed a batch of documents together, then write each one atomically."""
        lib = self.library
        texts = [
            embedding_text(c, chunked.loaded.title)
            for _, chunked, _ in batch
            for c in chunked.children
        ]
        started = time.perf_counter()
        dense = lib.embedder.embed_documents(texts)
        sparse = [lib.bm25.encode_document(t) for t in texts]
        self.report.timings["embedding"] += time.perf_counter() - started
        started = time.perf_counter()
        offset = 0
        for record, chunked, previous in batch:
            n = len(chunked.children)
            try:
                self._index(
                    record,
                    chunked,
                    previous,
                    dense[offset : offset + n],
                    sparse[offset : offset + n],
                )
            except BaseException:
                lib.purge(self.collection, record.document_id)
                raise
            offset += n
        self.report.timings["indexing"] += time.perf_counter() - started

    def _index(
        self,
        record: DocumentRecord,
        chunked: Chunked,
        previous: list[DocumentRecord],
        dense: list[list[float]],
        sparse: list[SparseVector],
    ) -> None:
        lib = self.library
        self.catalog.add_pending(record, chunked.parents, chunked.children)
        lib.vectors.upsert(self.collection, chunked.children, dense, sparse, record.name)
        changes = {record.document_id: "ready"}
        changes.update({old.document_id: "removing" for old in previous})
        self.catalog.set_status(self.collection, changes)
        for old in previous:
            lib.purge(self.collection, old.document_id)


def _reason(exc: Exception, path: Path) -> str:
    """The reason part of a loader message (the CLI prints the path itself)."""
    message = str(exc)
    for prefix in (f"{path}: ", f"{path.name}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message
