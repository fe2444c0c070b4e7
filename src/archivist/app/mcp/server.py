"""The MCP server (stdio): ``search_documents``, ``ask`` and ``list_documents`` for AI assistants.

Run it with ``archivist mcp``; an assistant (Claude Desktop, an IDE, any MCP client) starts
it as a subprocess and talks JSON-RPC over stdin/stdout, so nothing but protocol messages
may go to stdout (logs go to stderr). Like every interface it is handed the
:class:`~archivist.application.Application`.

The embedded engine allows one process per data directory: while ``archivist serve`` holds
a library, the MCP server's tools go through that server's HTTP API (the address it leaves
in the data directory) and answer exactly as they would with the library opened here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from pydantic import BaseModel, Field

from archivist.app.limits import MESSAGE_MAX_CHARS, QUERY_MAX_CHARS
from archivist.app.server_file import running_server
from archivist.application import Application
from archivist.collection_names import COLLECTION_RULE, InvalidCollectionName, check_collection_name
from archivist.events import CheckedClaim
from archivist.filings.where import MAX_FILTERS, WHERE_HELP
from archivist.index.search import SearchRequest
from archivist.settings import MAX_SEARCH_K, SEARCH_MODES_TEXT, SearchMode, Settings
from archivist.types import FILING_FIELDS

if TYPE_CHECKING:
    from archivist.app.cli.remote import RemoteApplication

log = logging.getLogger(__name__)

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef,attr-defined]
    from mcp.server.fastmcp.exceptions import (  # type: ignore[no-redef,import-not-found]
        ToolError,
    )

INSTRUCTIONS = (
    "Archivist answers questions about the user's own documents (PDF, Markdown, text, HTML, "
    "Word) with citations to document and pages. Use list_documents to see what is there, "
    "search_documents for raw passages, and ask for a researched, cited answer. If ask "
    "returns status 'clarification', put its question to the user and call ask again with "
    "their reply and the same thread_id."
)


class Passage(BaseModel):
    """One matching chunk of a document."""

    document: str = Field(description="The document's file name.")
    document_id: str
    pages: str = Field(description="'p. 3' or 'pp. 3-5'; empty for page-less formats.")
    section: str = Field(description=(
        "The heading path, 'Chapter > Section'; before any heading, the document's title."))
    text: str
    score: float


class SearchResult(BaseModel):
    """Passages matching a query, best first."""

    query: str
    passages: list[Passage]


class Citation(BaseModel):
    """A cited source."""

    document: str
    document_id: str
    pages: str
    label: str = Field(description=(
        "How to name it to a reader: document, pages and the section of the cited text, "
        "as every Archivist interface shows it."))


class AskResult(BaseModel):
    """A researched answer (or a clarification question) with its sources."""

    answer: str = Field(description="The answer, or the question to put to the user.")
    status: str = Field(description="answered, clarification or retrieval_only.")
    sources: list[Citation]
    claims: list[CheckedClaim] = Field(default_factory=list, description=(
        "Each sentence of the answer checked against the sources it cites (citations number "
        "the sources, from 1); supported false marks a sentence they do not support, and "
        "reason says why. Tell the user which sentences are unsupported."))
    thread_id: str = Field(description="Pass it back to continue this conversation.")


class DocumentInfo(BaseModel):
    """One document in the library."""

    document_id: str
    name: str
    pages: int
    chunks: int
    added_at: str
    company: str | None = Field(default=None, description=(
        "Filing metadata from the document's own text; null when it is no filing."))
    ticker: str | None = None
    form: str | None = None
    fiscal_year: int | None = None
    fiscal_quarter: int | None = None
    fiscal_year_end: str | None = None
    period: str | None = None


class DocumentListing(BaseModel):
    """The documents of a collection."""

    collection: str
    documents: list[DocumentInfo]


def _collection(value: str | None) -> str | None:
    """``value`` if it is a valid collection name; a tool error saying the rule if not."""
    try:
        return check_collection_name(value) if value is not None else None
    except InvalidCollectionName:
        raise ToolError(f"collection {value!r}: {COLLECTION_RULE}") from None


def build_server(application: Application | RemoteApplication) -> Any:
    """An MCP server with Archivist's three tools, all backed by ``application``."""
    server = _Server("archivist", instructions=INSTRUCTIONS)

    @server.tool()
    def search_documents(
        query: Annotated[str, Field(min_length=1, max_length=QUERY_MAX_CHARS,
                                    description="What to look for.")],
        k: Annotated[int | None, Field(ge=1, le=MAX_SEARCH_K, description="How many "
                                       "passages (default: the search_k setting).")] = None,
        mode: Annotated[SearchMode | None, Field(description=f"{SEARCH_MODES_TEXT} "
                                                 "(default: the search_mode setting).")] = None,
        collection: Annotated[str | None, Field(description="Collection; default the "
                                                "library's.")] = None,
        where: Annotated[list[str] | None, Field(max_length=MAX_FILTERS,
                                                 description=WHERE_HELP)] = None,
    ) -> SearchResult:
        """Search the documents: the best matching passages with document, pages, section."""
        request = SearchRequest.model_validate(
            {"query": query, "k": k, "mode": mode, "collection": _collection(collection),
             "where": where}
        )
        hits = application.searcher.run(request)
        return SearchResult(query=query, passages=[
            Passage(document=h.document_name, document_id=h.document_id, pages=h.pages,
                    section=" > ".join(h.section), text=h.text, score=h.score)
            for h in hits
        ])

    @server.tool()
    def ask(
        question: Annotated[str, Field(min_length=1, max_length=MESSAGE_MAX_CHARS,
                                       description="A question, or the reply to a "
                                       "clarification.")],
        thread_id: Annotated[str | None, Field(description="Continue this conversation "
                                               "(from an earlier answer).")] = None,
        collection: Annotated[str | None, Field(description="Collection; default the "
                                                "library's.")] = None,
    ) -> AskResult:
        """Ask Archivist's research agent; the answer cites documents and pages."""
        result = application.agent.ask(question, thread_id, _collection(collection))
        answer = result.clarification if result.status == "clarification" else result.answer
        return AskResult(
            answer=answer or "",
            status=result.status,
            thread_id=result.thread_id,
            sources=[Citation(document=s.document_name, document_id=s.document_id,
                              pages=s.pages, label=s.label()) for s in result.sources],
            claims=[CheckedClaim(**c) for c in result.claims],
        )

    @server.tool()
    def list_documents(
        collection: Annotated[str | None, Field(description="Collection; default the "
                                                "library's.")] = None,
    ) -> DocumentListing:
        """List the documents Archivist can search."""
        name = _collection(collection) or application.settings.collection
        return DocumentListing(collection=name, documents=[
            DocumentInfo(document_id=d.document_id, name=d.name, pages=d.page_count,
                         chunks=d.child_count, added_at=d.added_at,
                         **{f: getattr(d, f) for f in FILING_FIELDS})
            for d in application.store.documents(name)
        ])

    return server


def run_stdio(settings: Settings) -> None:
    """Serve MCP over stdin/stdout until the client closes the pipe.

    When ``archivist serve`` holds the library, every tool goes through it.
    """
    address = running_server(settings.data_dir)
    if address is not None:
        from archivist.app.cli.remote import RemoteApplication  # httpx client of the server

        log.info("the library is served by `archivist serve` at %s: going through it", address.url)
        with RemoteApplication(settings, address) as remote:
            anyio.run(serve_stdio, build_server(remote))
        return
    with Application(settings) as application:
        for repair in application.store.repairs:
            log.warning("repaired: %s", repair)
        anyio.run(serve_stdio, build_server(application))


async def serve_stdio(server: Any) -> None:
    """Serve ``server`` over stdin/stdout, answering a line that is not JSON-RPC with an error.

    The SDK's transport hands such a line to the session as an exception, which drops it
    without a reply; here it gets ``-32700`` (not JSON) or ``-32600`` (JSON, not JSON-RPC),
    with ``"id": null``, as JSON-RPC 2.0 asks.
    """
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server  # the SDK exposes no public handle to run on streams
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(RepliedParseErrors(read_stream, write_stream), write_stream,
                           lowlevel.create_initialization_options())


class RepliedParseErrors:
    """A read stream that answers unparseable lines itself and passes the rest on."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        self._inner = inner
        self._write = write_stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        """The next message; an unparseable line is answered and skipped."""
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(parse_error_reply(item))

    async def aclose(self) -> None:
        """Close the transport's stream."""
        await self._inner.aclose()

    def __aiter__(self) -> RepliedParseErrors:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> RepliedParseErrors:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def parse_error_reply(error: Exception) -> Any:
    """The JSON-RPC error answering a line the transport could not read."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    not_json = isinstance(error, ValidationError) and any(
        e.get("type") == "json_invalid" for e in error.errors()
    )
    code, message = (
        (types.PARSE_ERROR, "Parse error: the line is not valid JSON")
        if not_json or not isinstance(error, ValidationError)
        else (types.INVALID_REQUEST, "Invalid Request: the line is not a JSON-RPC message")
    )
    reply = types.JSONRPCError(jsonrpc="2.0", id=None,
                               error=types.ErrorData(code=code, message=message))
    return SessionMessage(reply)


def main() -> None:
    """``python -m archivist.app.mcp.server``: the MCP server with settings from the env."""
    from archivist.app.cli.common import quiet_libraries, settings_from_cli

    quiet_libraries()
    run_stdio(settings_from_cli())


if __name__ == "__main__":
    main()
