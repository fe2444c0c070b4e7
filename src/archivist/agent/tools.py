"""The research tools: search child chunks, read a whole parent by catalog id.

Both tools return their text for the model and, as the tool message's ``artifact``, the
evidence they retrieved, which is what the Sources list is built from. They never touch
the filesystem: a parent id is looked up in the catalog, and anything that is not an id
there (a made-up id, a path) gets ``unknown id``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool

from archivist.agent.evidence.statement_hits import statement_hits
from archivist.agent.prompts import UNTRUSTED_NOTE
from archivist.agent.question.document import named_document
from archivist.agent.quoting import quote_attr, quote_data
from archivist.agent.state import Evidence
from archivist.agent.steps import StepKind, emit_step
from archivist.agent.tables import label_year_columns
from archivist.filings.document import document_about
from archivist.filings.scope import scope
from archivist.index.retriever import DocumentSource, Retriever, TableSource
from archivist.settings import Settings
from archivist.settings.index import SearchMode
from archivist.types import DocumentRecord, Parent, SearchHit, document_title
from archivist.web import WebResult

SEARCH = "search_documents"
READ_PARENT = "read_parent"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
MAX_PASSAGE_CHARS = 1500
MAX_PARENT_CHARS = 8000
#: A search asks for this many times the hits it shows, so that it can show few per section.
CANDIDATES_PER_HIT = 4


def _quote(text: str, limit: int) -> str:
    """Text made safe to sit inside a passage block (no tag, no structure line), capped."""
    text = quote_data(text)
    return text if len(text) <= limit else text[:limit].rstrip() + " [...]"


def _attr(value: str) -> str:
    return quote_attr(value)


def passage_block(
    parent_id: str, document: str, pages: str, text: str, limit: int, *, passage_id: str = "",
    url: str = "",
) -> str:
    """One retrieved text as a delimited, quoted data block with its ids.

    Rows of a table under a header of years are written ``label [2017: v; 2016: w]``
    (:func:`archivist.agent.tables.label_year_columns`).
    """
    header = "<passage"
    if passage_id:
        header += f' id="{_attr(passage_id)}"'
    if url:
        header += f' source="web" document="{_attr(document)}" url="{_attr(url)}"'
    else:
        header += f' parent_id="{_attr(parent_id)}" document="{_attr(document)}"'
    if pages:
        header += f' pages="{_attr(pages)}"'
    # table rows get their year columns named (a 1.5B model cannot line them up itself)
    return f"{header}>\n{_quote(label_year_columns(text.strip()), limit)}\n</passage>"


def evidence_block(item: Evidence, passage_id: str = "") -> str:
    """A kept piece of evidence as a passage block (its stored text is already capped)."""
    return passage_block(
        item["parent_id"], item["document_name"], item["pages"], item.get("text", ""),
        MAX_PARENT_CHARS, passage_id=passage_id, url=item.get("url", ""),
    )


def numbered_block(n: int, item: Evidence) -> str:
    """Evidence unit ``n`` as ``<passage n="..." section="...">``: no file name, no page."""
    section = " › ".join(item.get("heading_path") or []) or item["document_name"]
    text = _quote(label_year_columns(item.get("text", "").strip()), MAX_PARENT_CHARS)
    return f'<passage n="{n}" section="{_attr(section)}">\n{text}\n</passage>'


def evidence_key(item: Evidence) -> str:
    """Identity of a passage for grading: the same text from the same place is graded once."""
    digest = hashlib.sha1(item.get("text", "").encode("utf-8")).hexdigest()[:12]
    return f"{item['kind']}:{item['parent_id']}:{digest}"


def hit_evidence(hit: SearchHit, sub_question: int = 0) -> Evidence:
    """Evidence record for a search hit."""
    item = Evidence(
        kind="hit",
        parent_id=hit.parent_id,
        document_id=hit.document_id,
        document_name=hit.document_name,
        pages=hit.pages,
        page_start=hit.page_start,
        page_end=hit.page_end,
        sub_question=sub_question,
        text=_quote(hit.text.strip(), MAX_PASSAGE_CHARS),
        heading_path=hit.location_path,
        sections=hit.sections,
        score=hit.score,
        document_about=hit.document_about,
    )
    return item


def parent_evidence(
    parent: Parent, document_name: str, sub_question: int = 0, title: str = "", about: str = ""
) -> Evidence:
    """Evidence record for a parent read in full.

    ``title`` is its document's title; ``about`` what the document is (``document_about``).
    """
    return Evidence(
        kind="parent",
        parent_id=parent.parent_id,
        document_id=parent.document_id,
        document_name=document_name,
        pages=parent.location(title),
        page_start=parent.page_start,
        page_end=parent.page_end,
        sub_question=sub_question,
        text=_quote(parent.text.strip(), MAX_PARENT_CHARS),
        heading_path=parent.location_path,
        sections=parent.sections,
        document_about=about,
    )


def web_evidence(result: WebResult, sub_question: int = 0) -> Evidence:
    """Evidence record for a web search result (its snippet is the text)."""
    return Evidence(
        kind="web",
        parent_id=result.url,
        document_id=result.url,
        document_name=result.title,
        pages="",
        page_start=None,
        page_end=None,
        sub_question=sub_question,
        text=_quote(result.snippet.strip(), MAX_PASSAGE_CHARS),
        url=result.url,
    )


def render_hits(query: str, hits: list[SearchHit]) -> str:
    """Search results as the model sees them."""
    query = quote_attr(query)
    if not hits:
        return f'No passages found for "{query}". Try different words.'
    blocks = [
        passage_block(h.parent_id, h.document_name, h.pages, h.text, MAX_PASSAGE_CHARS)
        for h in hits
    ]
    return f'{len(hits)} passages for "{query}", best first. {UNTRUSTED_NOTE}\n' + "\n".join(
        blocks
    )


def render_kept(query: str, kept: list[Evidence], dropped: int) -> str:
    """A search result after grading, as the model sees it: only the relevant passages."""
    note = f" ({dropped} off-topic passages removed)" if dropped else ""
    query = quote_attr(query)
    if not kept:
        return (f'No relevant passages for "{query}"{note}. Try different words, or answer '
                "with what you have.")
    blocks = "\n".join(evidence_block(item) for item in kept)
    return f'{len(kept)} relevant passages for "{query}"{note}. {UNTRUSTED_NOTE}\n{blocks}'


def scoped_documents(source: DocumentSource | None, query: str
                     ) -> tuple[list[DocumentRecord], str]:
    """The documents a query is about, and how it names them; ``([], "")`` for none.

    One document named by its file name ("In report-2021.pdf, what ..."), else the filings
    whose own cover page names the company, ticker, form or fiscal period the query names
    (``filings.scope``): a question on one company's 2022 10-K draws from that filing.
    """
    return _named_in(source.documents() if source is not None else [], query)


def _named_in(records: list[DocumentRecord], query: str) -> tuple[list[DocumentRecord], str]:
    """:func:`scoped_documents` over the catalog's ``records``, read once by the caller."""
    name = named_document(query, [d.name for d in records])
    named = [d for d in records if d.name == name]
    if named:
        return named, name or ""
    ids = set(scope(query, records))
    named = [d for d in records if d.document_id in ids]
    names = [d.name for d in named]
    return named, ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def within_named_document(retriever: Retriever, source: DocumentSource | None, query: str,
                          k: int, mode: SearchMode | None = None, scope: str = ""
                          ) -> list[SearchHit]:
    """The hits of a search kept to the documents the query names (:func:`scoped_documents`).

    A query that serves a question (``scope``: "What is its current ratio?" split from a
    question naming one company's 10-K) keeps to the documents that question names, unless
    it names some of those itself. ``[]`` when neither names any, or nothing in them
    matches: the caller then searches the whole collection.
    """
    records = source.documents() if source is not None else []
    documents, name = _named_in(records, query)
    if scope and scope != query:
        outer, outer_name = _named_in(records, scope)
        if outer and not (documents and {d.document_id for d in documents}
                          <= {d.document_id for d in outer}):
            documents, name = outer, outer_name
    if not documents:
        return []
    ids = [d.document_id for d in documents]
    hits = retriever.search(query, k=k, mode=mode, document_ids=ids)[:k]
    if hits:
        emit_step(StepKind.WITHIN_DOCUMENT, f"searched within {name}", document=name)
        hits = _with_statements(source, documents, query, hits)
    return hits


def _with_statements(source: DocumentSource | None, documents: list[DocumentRecord], query: str,
                     hits: list[SearchHit]) -> list[SearchHit]:
    """The hits with the statements the query asks for second (``statement_hits``).

    The search's best hit stays first, unless a statement hit shows its section (the
    statements then come first); another hit of a section a statement hit shows is dropped.
    """
    if not isinstance(source, TableSource):
        return hits
    shown = statement_hits(query, documents, source.tables({d.document_id for d in documents}),
                           source.parents_of, hits[0].score)
    if not shown:
        return hits
    emit_step(StepKind.STATEMENTS, f"shown the {', '.join(_statement_names(shown))}",
              statements=len(shown))
    parents = {hit.parent_id for hit in shown}
    rest = [hit for hit in hits if hit.parent_id not in parents]
    lead = rest[:1] if hits[0].parent_id not in parents else []
    return [*lead, *shown, *rest[len(lead):]][: len(hits)]


def _statement_names(hits: list[SearchHit]) -> list[str]:
    return list(dict.fromkeys(hit.statement.replace("_", " ") for hit in hits))


def at_most_per_section(hits: list[SearchHit], k: int, per_section: int = 1
                        ) -> list[SearchHit]:
    """The best ``per_section`` hits of each parent section, in rank order, at most ``k``.

    The agent reads a passage's whole section (``read_parent``), so a second chunk of a
    section it shows adds nothing the section does not hold; its place goes to the best
    chunk of another section. Within a long document, whose best chunks often come from
    one section, the ``k`` hits then reach ``k`` different sections when as many match.
    ``per_section`` 0 keeps the first ``k`` as ranked.
    """
    if per_section <= 0:
        return hits[:k]
    shown: dict[str, int] = {}
    kept: list[SearchHit] = []
    for hit in hits:
        count = shown.get(hit.parent_id, 0)
        if count < per_section:
            shown[hit.parent_id] = count + 1
            kept.append(hit)
    return kept[:k]


def search_candidates(retriever: Retriever, source: DocumentSource | None, query: str, k: int,
                      mode: SearchMode | None = None, scope: str = "") -> list[SearchHit]:
    """A search's first ``k`` hits within the documents the query names, else the collection's.

    ``scope`` is the question the query serves (a sub-question's whole question): the
    documents it names bound the search too (see :func:`within_named_document`).
    """
    return (within_named_document(retriever, source, query, k, mode, scope)
            or retriever.search(query, k=k, mode=mode)[:k])


def agent_search_mode(settings: Settings) -> SearchMode | None:
    """The search mode of the agent's searches (``None``: the index's ``search_mode``).

    ``agent.search_mode`` when set; on ``auto``, ``graph`` when the library builds the
    entity graph (``index.entity_graph``), so a library indexed for multi-hop questions is
    searched through its entity links, and the index's own mode otherwise.
    """
    chosen = settings.agent.search_mode
    if chosen != "auto":
        return chosen
    return "graph" if settings.index.entity_graph else None


def make_tools(retriever: Retriever, max_hits: int, mode: SearchMode | None = None,
               per_section: int = 0) -> list[BaseTool]:
    """``search_documents`` and ``read_parent`` over one collection's retriever.

    A search shows at most ``max_hits`` passages, and with ``per_section`` at most that
    many of one section (``agent.hits_per_section``; :func:`at_most_per_section`). ``mode`` is
    the search mode of ``search_documents`` (``None``: the index's setting).
    """
    source = retriever if isinstance(retriever, DocumentSource) else None

    def search_documents(query: str, scope: Annotated[str, InjectedToolArg] = ""
                         ) -> tuple[str, list[Evidence]]:
        """Search the user's documents; returns short passages with their parent_id."""
        query = " ".join(str(query).split())[:500]
        if not query:
            return "Empty query: give some words to search for.", []
        wanted = max_hits * CANDIDATES_PER_HIT if per_section else max_hits
        found = search_candidates(retriever, source, query, wanted, mode, scope)
        hits = at_most_per_section(found, max_hits, per_section)
        return render_hits(query, hits), [hit_evidence(h) for h in hits]

    def read_parent(parent_id: str) -> tuple[str, list[Evidence]]:
        """Read the whole section (parent) a passage comes from, by its parent_id."""
        text_id = str(parent_id).strip()
        well_formed = bool(_ID.match(text_id)) and ".." not in text_id
        parent = retriever.get_parent(text_id) if well_formed else None
        document = retriever.get_document(parent.document_id) if parent else None
        if parent is None or document is None:
            return f"unknown id: {quote_attr(text_id[:200])}", []
        title = document_title(document.title, document.name)
        pages = parent.location(title)
        block = passage_block(parent.parent_id, document.name, pages, parent.text, MAX_PARENT_CHARS)
        return f"{UNTRUSTED_NOTE}\n{block}", [parent_evidence(parent, document.name, title=title,
                                                                     about=document_about(document))]

    return [
        StructuredTool.from_function(search_documents, response_format="content_and_artifact"),
        StructuredTool.from_function(read_parent, response_format="content_and_artifact"),
    ]


REQUIRED_ARGS = {SEARCH: "query", READ_PARENT: "parent_id"}


def call_problem(name: str, args: Any, known: set[str]) -> str | None:
    """Why a tool call cannot run (one line), or ``None`` when it is well formed."""
    if name not in known:
        return f"unknown tool: {name}; use one of: {', '.join(sorted(known))}"
    if not isinstance(args, dict):
        return f"invalid call to {name}: arguments must be a JSON object"
    needed = REQUIRED_ARGS.get(name)
    if needed and not str(args.get(needed, "")).strip():
        return f"invalid call to {name}: missing argument {needed!r}"
    return None


def tool_args_text(args: dict[str, Any]) -> str:
    """The single argument of a tool call, as text (for steps and de-duplication)."""
    value = args.get("query", args.get("parent_id", ""))
    return " ".join(str(value).split())
