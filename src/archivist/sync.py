"""Folder sync: a collection mirrors folders; new and changed files in, deleted files out.

Each document remembers the path it was ingested from, so a pass compares the folders
with the catalog:

* a file the catalog does not know by path, or whose size or time changed, is ingested
  (unchanged content is recognised by its hash and costs no embedding);
* a document whose file is gone is removed, unless the same content turned up under a new
  path: then it was renamed, and only its path and name change (nothing is re-embedded).

Watching repeats the pass every ``interval`` seconds. A file whose size or time changed
within the last ``settle_s`` seconds is still being written: it waits for the next pass.
Polling needs no native watcher and behaves the same on every file system.

Symbolic links inside a synced folder are never followed, to a file or to a folder: a
link could point anywhere (``users.txt -> /etc/passwd``), and whoever can write into the
folder must not be able to index what lies outside it. Each link is reported once as
skipped; a document whose file became a link is removed like one whose file is gone. A
synced folder that disappears is reported once and its documents are kept (an unmounted
disk must not empty the library); the passes resume when it is back.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from archivist.documents.loaders import SUPPORTED_SUFFIXES
from archivist.types import IngestOutcome, LoadError

if TYPE_CHECKING:
    from archivist.application import Application

log = logging.getLogger(__name__)

Stamp = tuple[int, int]  # (size, mtime_ns)


@dataclass
class SyncChange:
    """One thing a pass did to the collection."""

    action: str  # "added", "replaced", "removed", "renamed", "failed"
    path: str
    detail: str = ""


@dataclass
class SyncReport:
    """What one pass changed, and the files left for a later pass."""

    changes: list[SyncChange] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    skipped: list[SyncChange] = field(default_factory=list)  # each reported once

    def count(self, action: str) -> int:
        """How many changes of one kind."""
        return sum(1 for c in self.changes if c.action == action)


def _stamp(path: Path) -> Stamp | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns)


SYMLINK_SKIPPED = "a symbolic link: not followed (sync reads only files inside the folder)"


def _walk(folder: Path) -> tuple[dict[str, Path], list[str]]:
    """The supported files under ``folder`` (no hidden names) and the symlinks passed by.

    ``os.walk`` without ``followlinks`` never enters a linked folder; a linked file is left
    out here, so nothing outside ``folder`` is ever read.
    """
    files: dict[str, Path] = {}
    links: list[str] = []

    def unreadable(exc: OSError) -> None:
        if exc.filename and Path(exc.filename) == folder:
            raise LoadError(f"{folder}: cannot read the synced folder ({exc.strerror})")

    for root, dirs, names in os.walk(folder, onerror=unreadable):
        here = Path(root)
        for name in sorted(dirs):
            if (here / name).is_symlink() and not name.startswith("."):
                links.append(str(here / name))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not (here / d).is_symlink())
        for name in sorted(names):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if path.is_symlink():
                links.append(str(path))
            elif path.is_file():
                files[str(path)] = path
    return files, links


def _document_id(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return None


class FolderSync:
    """Keeps one collection of a library in step with some folders."""

    def __init__(self, application: Application, folders: Iterable[Path | str],
                 collection: str | None = None, settle_s: float = 1.0) -> None:
        self.application = application
        self.folders = [Path(f).resolve() for f in folders]
        self.collection = collection or application.settings.collection
        self.settle_s = settle_s
        self._seen: dict[str, Stamp] = {}  # path -> stamp when last ingested (or failed)
        self._links_reported: set[str] = set()
        self.missing: set[Path] = set()  # synced folders that are not there (reported once)

    def _inside(self, path: str) -> bool:
        return any(Path(path).is_relative_to(folder) for folder in self.folders)

    def _files(self, report: SyncReport) -> dict[str, Path]:
        for folder in self.folders:
            if not folder.is_dir():
                raise LoadError(f"{folder}: not a folder (sync mirrors folders)")
        files: dict[str, Path] = {}
        for folder in self.folders:
            found, links = _walk(folder)
            files.update(found)
            for link in links:
                if link not in self._links_reported:
                    self._links_reported.add(link)
                    report.skipped.append(SyncChange("skipped", link, SYMLINK_SKIPPED))
        return files

    def run_once(self, wait_for_writes: bool = False) -> SyncReport:
        """One pass. ``wait_for_writes`` leaves files changed in the last moments for later.

        Raises ``LoadError`` when a synced folder is missing; nothing is removed then.
        """
        report = SyncReport()
        files = self._files(report)
        documents = self.application.store.documents(self.collection)
        known = {d.path: d for d in documents if self._inside(d.path)}
        now = time.time_ns()
        candidates: dict[str, Stamp] = {}
        for path, file in files.items():
            stamp = _stamp(file)
            if stamp is None or self._seen.get(path) == stamp:
                continue
            if wait_for_writes and now - stamp[1] < self.settle_s * 1e9:
                report.waiting.append(path)
                continue
            candidates[path] = stamp
        gone = {path: record for path, record in known.items() if path not in files}
        by_id = {record.document_id: path for path, record in gone.items()}
        for path in list(candidates):
            if path in known or not by_id:
                continue
            document_id = _document_id(files[path])
            if document_id in by_id:
                old = by_id.pop(document_id)
                del gone[old]
                self.application.store.move(document_id, path, self.collection)
                self._seen[path] = candidates.pop(path)
                report.changes.append(SyncChange("renamed", path, f"from {old}"))
        for path, record in gone.items():
            self.application.store.remove(record.document_id, self.collection)
            self._seen.pop(path, None)
            report.changes.append(SyncChange("removed", path))
        if candidates:
            result = self.application.ingest.files([files[p] for p in candidates], self.collection)
            for item in result.results:
                path = str(Path(item.path).absolute())
                self._seen[path] = candidates.get(path) or _stamp(Path(path)) or (0, 0)
                if (item.outcome in (IngestOutcome.ADDED, IngestOutcome.REPLACED)
                        and item.document_id and Path(path).resolve() != Path(path)):
                    # it became a link while it was read: what it pointed at is not kept
                    self.application.store.remove(item.document_id, self.collection)
                    report.changes.append(SyncChange("failed", path, SYMLINK_SKIPPED))
                    continue
                if item.outcome in (IngestOutcome.ADDED, IngestOutcome.REPLACED,
                                    IngestOutcome.FAILED):
                    detail = item.reason or f"{item.pages} pages, {item.chunks} chunks"
                    report.changes.append(SyncChange(item.outcome.value, path, detail))
        return report

    def watch(self, stop: threading.Event, interval: float = 1.0,
              on_report: Callable[[SyncReport], None] | None = None) -> None:
        """Sync until ``stop`` is set; a failing pass is logged and retried next time.

        A missing folder is logged once (one line, no traceback) and again when it is back.
        """
        first = True
        while not stop.is_set():
            try:
                report = self.run_once(wait_for_writes=not first)
                first = False
                if self.missing:
                    log.warning("sync: the synced folders are back; syncing again")
                    self.missing.clear()
                if on_report is not None and (report.changes or report.skipped):
                    on_report(report)
            except LoadError as exc:  # a folder vanished: say so once, keep its documents
                gone = {f for f in self.folders if not f.is_dir()}
                if gone - self.missing:
                    log.warning("sync paused: %s; its documents are kept", exc)
                self.missing = gone
            except Exception:  # an unexpected failure: logged with its cause, retried later
                log.exception("folder sync pass failed")
            stop.wait(interval)


class SyncThread:
    """Folder sync on a daemon thread (what the server runs for its watched folders)."""

    def __init__(self, sync: FolderSync, interval: float = 1.0) -> None:
        self.sync = sync
        self.stop_event = threading.Event()
        self.thread = threading.Thread(
            target=sync.watch, args=(self.stop_event, interval, _log_report),
            name="archivist-sync", daemon=True)

    def start(self) -> SyncThread:
        """Start watching."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop after the current pass."""
        self.stop_event.set()
        self.thread.join(timeout=60)


def _log_report(report: SyncReport) -> None:
    for change in report.skipped:
        log.warning("sync: skipped %s: %s", change.path, change.detail)
    for change in report.changes:
        log.info("sync: %s %s %s", change.action, change.path, change.detail)
