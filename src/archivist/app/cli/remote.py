"""The application as the CLI sees it through a running ``archivist serve`` on its data dir.

``RemoteApplication`` answers the calls ``ingest``, ``list``, ``collections``, ``remove``,
``show``, ``search``, ``ask``, ``chat`` and ``archivist mcp`` make (``ingest.files``,
``store.documents``/``collections``/``remove``/``resolve``/``parents_of``/``children_of``,
``searcher.search``/``run``, ``agent.stream``/``ask``) over the server's HTTP API, with the
types the local application returns, so each command prints exactly what it prints when it
opens the library itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from archivist.app.server_file import ServerAddress, auth_header
from archivist.events import Event
from archivist.ingest_progress import IngestProgress, ProgressCallback
from archivist.settings import SearchMode, Settings
from archivist.types import (
    FILING_FIELDS,
    AmbiguousDocument,
    ArchivistError,
    Child,
    DocumentRecord,
    FileResult,
    IngestOutcome,
    IngestReport,
    Parent,
    SearchHit,
    UnknownDocument,
)

if TYPE_CHECKING:
    from archivist.agent.service import AnswerResult
    from archivist.index.search import SearchRequest

# An ingest or an answer can take long; only connecting has to be quick.
_TIMEOUT = httpx.Timeout(connect=5.0, read=None, write=60.0, pool=5.0)


class ServerError(ArchivistError):
    """The server answered with an error (its message is kept)."""


class RemoteApplication:
    """The parts of ``Application`` the CLI uses, served by the process that holds them.

    One object plays ``store``, ``ingest``, ``searcher`` and ``agent``.
    """

    def __init__(self, settings: Settings, address: ServerAddress) -> None:
        self.settings = settings
        self.address = address
        self.repairs: list[str] = []
        self._http = httpx.Client(
            base_url=address.url, headers=auth_header(address), timeout=_TIMEOUT
        )
        self.store = self.ingest = self.searcher = self.agent = self
        # parents and children of the documents ``resolve`` fetched (``show`` reads them next)
        self._chunks: dict[str, tuple[list[Parent], list[Child]]] = {}

    def __enter__(self) -> RemoteApplication:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._http.close()

    def _collection(self, collection: str | None) -> str:
        return collection or self.settings.collection

    def _call(self, method: str, url: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            raise ServerError(f"the server at {self.address.url} did not answer: {exc}") from exc
        _raise_for_error(response)
        return response.json()

    # --- documents -------------------------------------------------------------------------
    def files(
        self,
        paths: Iterable[Path | str],
        collection: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest files and folders by path, the server reading them where they are."""
        given = [str(p) for p in paths]
        absolute = {os.path.abspath(p): p for p in given}
        body = {"paths": list(absolute), "collection": self._collection(collection)}
        report = IngestReport()
        try:
            with self._http.stream("POST", "/v1/local/ingest", json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    _raise_for_error(response)
                for line in response.iter_lines():
                    if line.strip():
                        self._ingest_line(json.loads(line), absolute, report, progress)
        except httpx.HTTPError as exc:
            raise ServerError(f"the server at {self.address.url} stopped answering: {exc}") from exc
        return report

    @staticmethod
    def _ingest_line(
        line: dict[str, Any],
        absolute: dict[str, str],
        report: IngestReport,
        progress: ProgressCallback | None,
    ) -> None:
        kind = line.pop("type")
        if kind == "error":
            raise ServerError(line["message"])
        if kind == "progress" and progress is not None:
            result = line.pop("result", None)
            line["path"] = _as_given(line["path"], absolute)
            progress(IngestProgress(**line, result=_file_result(result, absolute)))
        elif kind == "report":
            report.results.extend(
                r for r in (_file_result(x, absolute) for x in line["results"]) if r
            )

    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        """Every searchable document in a collection."""
        name = self._collection(collection)
        body = self._call("GET", "/v1/documents", params={"collection": name})
        return [_record(d, name) for d in body["documents"]]

    def remove(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """Delete a document by id prefix or file name."""
        name = self._collection(collection)
        body = self._call("DELETE", f"/v1/documents/{ref}", params={"collection": name})
        return _record(body, name)

    def collections(self) -> list[str]:
        """Every collection in the library."""
        body = self._call("GET", "/v1/local/collections")
        return [str(c["name"]) for c in body["collections"]]

    def resolve(self, ref: str, collection: str | None = None) -> DocumentRecord:
        """A document by id prefix, file name or path (its chunks are fetched with it)."""
        name = self._collection(collection)
        body = self._call("GET", f"/v1/local/documents/{ref}", params={"collection": name})
        record = DocumentRecord(**body["document"])
        self._chunks[record.document_id] = (
            [Parent(**p) for p in body["parents"]],
            [Child(**c) for c in body["children"]],
        )
        return record

    def _chunks_of(
        self, document_id: str, collection: str | None
    ) -> tuple[list[Parent], list[Child]]:
        if document_id not in self._chunks:
            self.resolve(document_id, collection)
        return self._chunks[document_id]

    def parents_of(self, document_id: str, collection: str | None = None) -> list[Parent]:
        """A document's parents in reading order."""
        return self._chunks_of(document_id, collection)[0]

    def children_of(self, document_id: str, collection: str | None = None) -> list[Child]:
        """A document's children in reading order."""
        return self._chunks_of(document_id, collection)[1]

    # --- search and answers ----------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int | None = None,
        mode: SearchMode | None = None,
        collection: str | None = None,
        where: list[str] | None = None,
    ) -> list[SearchHit]:
        """The best ``k`` chunks, best first (of the documents ``where`` filters match)."""
        params: dict[str, Any] = {
            "q": query,
            "k": k or self.settings.index.search_k,
            "mode": mode or self.settings.index.search_mode,
            "collection": self._collection(collection),
        }
        if where:
            params["where"] = list(where)
        if not query.strip():
            return []
        body = self._call("GET", "/v1/search", params=params)
        return [
            SearchHit(
                child_id=h["child_id"],
                parent_id=h["parent_id"],
                document_id=h["document_id"],
                document_name=h["document_name"],
                text=h["text"],
                heading_path=list(h["heading_path"]),
                page_start=h["page_start"],
                page_end=h["page_end"],
                score=h["score"],
                document_title=h.get("document_title", ""),
                sections=h.get("sections"),
            )
            for h in body["hits"]
        ]

    def run(self, request: SearchRequest) -> list[SearchHit]:
        """The hits for a :class:`SearchRequest` (its ``None`` fields from the settings)."""
        return self.search(request.query, request.k, request.mode, request.collection,
                           request.where)

    def ask(
        self, question: str, thread: str | None = None, collection: str | None = None
    ) -> AnswerResult:
        """One turn, collected (what ``archivist mcp``'s ``ask`` tool returns)."""
        from archivist.agent.service import collect_turn  # the agent's stack, only here

        return collect_turn(self.stream(question, thread, collection))

    def stream(
        self, question: str, thread: str | None = None, collection: str | None = None
    ) -> Iterator[Event]:
        """One turn of a conversation (a new one unless ``thread``), as its events."""
        if thread is None:
            created = self._call(
                "POST", "/v1/conversations", json={"collection": self._collection(collection)}
            )
            thread = str(created["thread_id"])
        try:
            with self._http.stream(
                "POST", f"/v1/conversations/{thread}/stream", json={"message": question}
            ) as response:
                if response.status_code >= 400:
                    response.read()
                    _raise_for_error(response)
                yield from _sse_events(response.iter_lines())
        except httpx.HTTPError as exc:
            raise ServerError(f"the server at {self.address.url} stopped answering: {exc}") from exc


def _raise_for_error(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    try:
        error = response.json()["error"]
        message, kind = str(error["message"]), str(error.get("type", ""))
    except (ValueError, KeyError, TypeError):
        message, kind = f"HTTP {response.status_code}", ""
    if kind == "not_found" and "no document matches" in message:
        raise UnknownDocument(message)
    if kind == "ambiguous":
        raise AmbiguousDocument(message)
    raise ServerError(message)


def _sse_events(lines: Iterator[str]) -> Iterator[Event]:
    kind = ""
    for line in lines:
        if line.startswith("event:"):
            kind = line[len("event:") :].strip()
        elif line.startswith("data:") and kind:
            yield Event(kind, json.loads(line[len("data:") :]))  # type: ignore[arg-type]
            kind = ""


def _as_given(path: str, absolute: dict[str, str]) -> str:
    """A path the server reports, written the way the user gave it on the command line."""
    for full, given in absolute.items():
        if path == full:
            return given
        if path.startswith(full.rstrip(os.sep) + os.sep):
            return os.path.join(given, path[len(full.rstrip(os.sep)) + 1 :])
    return path


def _file_result(raw: dict[str, Any] | None, absolute: dict[str, str]) -> FileResult | None:
    if raw is None:
        return None
    reason = str(raw.get("reason", ""))
    for full, given in absolute.items():
        reason = reason.replace(full, given)
    return FileResult(
        path=_as_given(raw["path"], absolute),
        outcome=IngestOutcome(raw["outcome"]),
        document_id=raw.get("document_id"),
        reason=reason,
        pages=int(raw.get("pages", 0)),
        chunks=int(raw.get("chunks", 0)),
    )


def _record(raw: dict[str, Any], collection: str) -> DocumentRecord:
    record = DocumentRecord(
        document_id=raw["document_id"],
        collection=raw.get("collection", collection),
        path="",
        name=raw["name"],
        content_hash="",
        size_bytes=int(raw.get("size_bytes", 0)),
        page_count=int(raw.get("pages", 0)),
        parent_count=int(raw.get("parents", 0)),
        child_count=int(raw.get("chunks", 0)),
        added_at=str(raw.get("added_at", "")),
    )
    for name in FILING_FIELDS:
        setattr(record, name, raw.get(name))
    return record
