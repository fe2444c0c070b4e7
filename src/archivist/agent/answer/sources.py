"""The Sources list, built by code from what was actually retrieved.

A document counts as cited when the answer names it and the agent retrieved it. Names the
model typed that match nothing retrieved are invented: they are dropped (and reported).
When the answer names no document, the sections read in full stand in ("uncited"); an
abstention cites nothing. Web results are cited as ``kind="web"`` sources with their URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from archivist.agent.prompts import abstains
from archivist.agent.quoting import quote_attr
from archivist.agent.state import Evidence
from archivist.events import Source

_BRACKET = re.compile(r"\[([^\[\]\n]{1,300})\]")
_PAGES = re.compile(r"pp?\.\s*\d+(?:\s*[-–]\s*\d+)?")
MAX_SOURCES = 10
PASSAGE_CHARS = 600


@dataclass
class SourceReport:
    """The sources, how they were attributed, and citations that were dropped."""

    sources: list[Source]
    attribution: str  # "cited", "uncited", "none"
    invented: list[str]


def _citations(answer: str) -> list[tuple[str, str]]:
    """(name, location) pairs from citations like ``[guide.pdf, pp. 3-4]``.

    The location is a page range, or a section as labels write it (``§ Install › Linux``);
    spaces are dropped so it compares with ``_where``.
    """
    found = []
    for group in _BRACKET.findall(answer):
        for part in group.split(";"):
            name, _, rest = part.partition(",")
            name = name.strip().strip("\"'`")
            pages = _PAGES.search(rest)
            where = pages.group(0) if pages else rest if rest.strip().startswith("§") else ""
            if name:
                found.append((name, _where(where)))
    return found


def _where(location: str) -> str:
    return "".join(location.split())


def _looks_like_document(name: str) -> bool:
    """A bracket that names a file (``x.pdf``) rather than e.g. ``[1]`` or ``[sic]``."""
    return bool(re.search(r"\.[A-Za-z0-9]{1,5}$", name)) and not name[0].isdigit()


def to_source(item: Evidence) -> Source:
    """The Sources line of one piece of evidence."""
    return Source(
        document_id=item["document_id"],
        document_name=item["document_name"],
        pages=item["pages"],
        page_start=item["page_start"],
        page_end=item["page_end"],
        heading_path=list(item.get("heading_path") or []),
        score=item.get("score"),
        kind="web" if item["kind"] == "web" else "document",
        url=item.get("url"),
        parent_id=None if item["kind"] == "web" else item["parent_id"] or None,
        passage=" ".join(item.get("text", "").split())[:PASSAGE_CHARS],
    )


def _dedupe(items: list[Evidence]) -> list[Source]:
    seen: set[tuple[str, str]] = set()
    out: list[Source] = []
    for item in items:
        key = (item["document_id"], item["pages"])
        if key not in seen:
            seen.add(key)
            out.append(to_source(item))
    return out[:MAX_SOURCES]


def _located(evidence: list[Evidence]) -> list[Evidence]:
    """Sections read in full, named by the section of the passage that led to them.

    A section without pages (Markdown, HTML, Word) read in full spans several headings;
    when a search hit in it was retrieved too, the citation names the hit's section (the
    text that answered) rather than the first heading of the whole parent.
    """
    first_hit: dict[str, Evidence] = {}
    for item in evidence:
        if item["kind"] == "hit":
            first_hit.setdefault(item["parent_id"], item)
    out = []
    for item in evidence:
        hit = first_hit.get(item["parent_id"]) if item["kind"] == "parent" else None
        if hit is not None and item["page_start"] is None and hit["page_start"] is None:
            item = {**item, "pages": hit["pages"], "heading_path": hit.get("heading_path", [])}
        out.append(item)
    return out


def build_sources(answer: str, evidence: list[Evidence]) -> SourceReport:
    """Sources for ``answer`` from ``evidence`` only."""
    evidence = _located(evidence)
    # names are cited as the passage headers showed them (quoted: no ", < or >)
    shown = {quote_attr(e["document_name"]).lower(): e["document_name"].lower()
             for e in evidence}
    citations = [(shown.get(n.lower(), n), p) for n, p in _citations(answer)]
    known = {e["document_name"].lower() for e in evidence}
    invented = sorted(
        {n for n, _ in citations if n.lower() not in known and _looks_like_document(n)}
    )
    if abstains(answer) or not evidence:
        return SourceReport([], "none", invented)
    lowered = answer.lower()
    cited_names = {real for name, real in shown.items() if name and name in lowered}
    cited_names |= {name for name in known if name and name in lowered}
    if cited_names:
        cited_pages: dict[str, set[str]] = {}
        for name, pages in citations:
            if pages:
                cited_pages.setdefault(name.lower(), set()).add(pages)
        chosen = []
        for item in evidence:
            name = item["document_name"].lower()
            if name not in cited_names:
                continue
            wanted = cited_pages.get(name)
            available = {_where(e["pages"]) for e in evidence
                         if e["document_name"].lower() == name}
            if wanted and wanted & available and _where(item["pages"]) not in wanted:
                continue
            chosen.append(item)
        return SourceReport(_dedupe(chosen), "cited", invented)
    read = [e for e in evidence if e["kind"] == "parent"]
    if not read:
        firsts: dict[int, Evidence] = {}
        for item in evidence:
            firsts.setdefault(item["sub_question"], item)
        read = list(firsts.values())
    return SourceReport(_dedupe(read), "uncited", invented)
