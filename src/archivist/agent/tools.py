"""The research tools: search child chunks, read a whole parent by catalog id.

Both tools return their text for the model and, as the tool message's ``artifact``, the
evidence they retrieved, which is what the Sources list is built from. They never touch
the filesystem: a parent id is looked up in the catalog, and anything that is not an id
there (a made-up id, a path) gets ``unknown id``.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from archivist.agent.prompts import UNTRUSTED_NOTE
from archivist.agent.state import Evidence
from archivist.index.retriever import Retriever
from archivist.types import Parent, SearchHit, format_pages

SEARCH = "search_documents"
READ_PARENT = "read_parent"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
MAX_PASSAGE_CHARS = 1500
MAX_PARENT_CHARS = 8000


def _quote(text: str, limit: int) -> str:
    """Text made safe to sit inside a passage block (no early closing tag), capped."""
    text = text.replace("</passage", "&lt;/passage").replace("<passage", "&lt;passage")
    return text if len(text) <= limit else text[:limit].rstrip() + " [...]"


def _attr(value: str) -> str:
    return value.replace('"', "'").replace("\n", " ")


def passage_block(parent_id: str, document: str, pages: str, text: str, limit: int) -> str:
    """One retrieved text as a delimited, quoted data block with its ids."""
    header = f'<passage parent_id="{_attr(parent_id)}" document="{_attr(document)}"'
    if pages:
        header += f' pages="{_attr(pages)}"'
    return f"{header}>\n{_quote(text.strip(), limit)}\n</passage>"


def hit_evidence(hit: SearchHit, sub_question: int = 0) -> Evidence:
    """Evidence record for a search hit."""
    return Evidence(
        kind="hit",
        parent_id=hit.parent_id,
        document_id=hit.document_id,
        document_name=hit.document_name,
        pages=hit.pages,
        page_start=hit.page_start,
        page_end=hit.page_end,
        sub_question=sub_question,
    )


def parent_evidence(parent: Parent, document_name: str, sub_question: int = 0) -> Evidence:
    """Evidence record for a parent read in full."""
    return Evidence(
        kind="parent",
        parent_id=parent.parent_id,
        document_id=parent.document_id,
        document_name=document_name,
        pages=format_pages(parent.page_start, parent.page_end),
        page_start=parent.page_start,
        page_end=parent.page_end,
        sub_question=sub_question,
    )


def render_hits(query: str, hits: list[SearchHit]) -> str:
    """Search results as the model sees them."""
    if not hits:
        return f'No passages found for "{query}". Try different words.'
    blocks = [
        passage_block(h.parent_id, h.document_name, h.pages, h.text, MAX_PASSAGE_CHARS)
        for h in hits
    ]
    return f'{len(hits)} passages for "{query}", best first. {UNTRUSTED_NOTE}\n' + "\n".join(
        blocks
    )


def make_tools(retriever: Retriever, max_hits: int) -> list[BaseTool]:
    """``search_documents`` and ``read_parent`` over one collection's retriever."""

    def search_documents(query: str) -> tuple[str, list[Evidence]]:
        """Search the user's documents; returns short passages with their parent_id."""
        query = " ".join(str(query).split())[:500]
        if not query:
            return "Empty query: give some words to search for.", []
        hits = retriever.search(query, k=max_hits)[:max_hits]
        return render_hits(query, hits), [hit_evidence(h) for h in hits]

    def read_parent(parent_id: str) -> tuple[str, list[Evidence]]:
        """Read the whole section (parent) a passage comes from, by its parent_id."""
        text_id = str(parent_id).strip()
        well_formed = bool(_ID.match(text_id)) and ".." not in text_id
        parent = retriever.get_parent(text_id) if well_formed else None
        document = retriever.get_document(parent.document_id) if parent else None
        if parent is None or document is None:
            return f"unknown id: {text_id[:200]}", []
        pages = format_pages(parent.page_start, parent.page_end)
        block = passage_block(parent.parent_id, document.name, pages, parent.text, MAX_PARENT_CHARS)
        return f"{UNTRUSTED_NOTE}\n{block}", [parent_evidence(parent, document.name)]

    return [
        StructuredTool.from_function(search_documents, response_format="content_and_artifact"),
        StructuredTool.from_function(read_parent, response_format="content_and_artifact"),
    ]


def tool_args_text(args: dict[str, Any]) -> str:
    """The single argument of a tool call, as text (for steps and de-duplication)."""
    value = args.get("query", args.get("parent_id", ""))
    return " ".join(str(value).split())
