"""The document path: a question about a whole named document, as a map-reduce.

A question the depth stage recognised as one about a whole document
(``question/document.py``) reads that document's sections, the catalog's parents in
reading order, instead of the top passages of a search:

* **headings** ("List the sections of X"): the heading of every section, from the
  catalog; no model call at all;
* **summary** ("Summarize X", "What does the Risk Factors section of X cover"): the
  *map* step summarises each section in one call and keeps the summary in the database
  (``index/summaries.py``), so a later question about the document reads it back with no
  call; the *reduce* step is one call that answers from the numbered summaries, each
  cited to its section's pages; on a small model (``Policy.document_in_code``) the answer
  is the summaries themselves, each under its section's heading, with no call.

A focus ("risk factors", "Item 7") narrows both to the section whose heading matches it.

Budgets, for a small local model, whose latency is dominated by reading its prompt
(``Policy.document_read_tokens`` and ``document_answer_tokens``): the map step reads at
most ``document_read_tokens`` of section text per question, the first section under each
heading first (it introduces it), then the rest in reading order; a section past the
budget stands in with its opening sentences (an extractive summary, no call), so the
answer still covers the whole document rather than only its beginning. Each question
summarises the next sections that are not cached yet, so the summaries of a long document
fill in over its questions. The reduce step reads at most ``document_answer_tokens`` of
summaries, each one shortened to its share.

Every section the model reads is a visible step ("reading section 12 of 48").
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from archivist.agent import prompts
from archivist.agent.checks.claims import defuse_citations
from archivist.agent.evidence.unit_split import split_units
from archivist.agent.policy import CAPABLE, Policy
from archivist.agent.question.document import HEADINGS, DocumentAsk, heading_words, whole_document
from archivist.agent.quoting import quote_attr, quote_data
from archivist.agent.state import Evidence
from archivist.agent.steps import StepKind, emit_step, message_text, timed
from archivist.agent.tools import numbered_block
from archivist.filings.document import document_about
from archivist.index.retriever import DocumentSource, Retriever
from archivist.types import DocumentRecord, Parent, document_title, format_location

__all__ = ["DocumentPath", "digest", "extract", "focus_sections", "key_figures", "section_paths"]

SUMMARY_WORDS = 60
EXTRACT_CHARS = 240
MIN_SHARE_CHARS = 120
MAX_HEADINGS = 80
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NOT_PROSE = re.compile(r"^\s*(?:#|\||[-*]\s*$|\d+\s*$)")
FIGURES_CHARS = 220
#: a figure as a sentence states it: "$8,412", "61.5", "4%", "$512" (not a bare "440" or
#: a year: each form has a comma group, a point, a per cent sign or a dollar sign)
_STATED = re.compile(r"(?<![\w.])\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])\$?\d+\.\d+%?"
                     r"|(?<![\w.])\$?\d+ ?%|(?<![\w.])\$\d+")


def _paths(parent: Parent) -> list[list[str]]:
    return parent.sections if parent.sections is not None else [parent.heading_path]


def section_paths(parents: list[Parent]) -> list[tuple[list[str], Parent]]:
    """Every section heading path the parents hold, in reading order, with its first parent."""
    seen: dict[tuple[str, ...], Parent] = {}
    for parent in parents:
        for path in _paths(parent):
            if path and tuple(path) not in seen:
                seen[tuple(path)] = parent
    return [(list(path), parent) for path, parent in seen.items()]


def focus_sections(parents: list[Parent], focus: frozenset[str]) -> tuple[list[Parent], list[str]]:
    """The parents under the heading that names the focus best, and that heading's path.

    No focus: every parent, and ``[]``. A heading must share at least half the focus
    words; of equal ones the shallowest, then the first, wins. None: ``([], [])``.
    """
    if not focus:
        return parents, []
    best: list[str] = []
    best_score = 0
    for path, _ in section_paths(parents):
        for depth, heading in enumerate(path):
            score = len(focus & heading_words(heading))
            if score > best_score or (score == best_score and best and depth + 1 < len(best)):
                best, best_score = path[: depth + 1], score
    if best_score < max(1, (len(focus) + 1) // 2):
        return [], []
    size = len(best)
    return [p for p in parents if any(s[:size] == best for s in _paths(p))], best


def extract(text: str, limit: int = EXTRACT_CHARS) -> str:
    """A section's extractive summary: its opening sentences of prose, up to ``limit``."""
    prose = " ".join(line.strip() for line in text.splitlines()
                     if line.strip() and not _NOT_PROSE.match(line))
    out = ""
    for sentence in _SENTENCE.split(" ".join(prose.replace("*", "").split())):
        if out and len(out) + len(sentence) > limit:
            break
        out = f"{out} {sentence}".strip()
    return out if len(out) <= limit else out[:limit].rsplit(" ", 1)[0] + " …"


def key_figures(text: str, limit: int = FIGURES_CHARS) -> str:
    """The section's sentences that state the most figures, in reading order, up to ``limit``.

    A small model's summary says what a section covers ("financial performance, including
    net sales") and drops the figures it was asked to keep; a question about the whole
    document is mostly asked for them. Sentences and list items come before table rows
    (a row's figures mean little without its header); years and bare numbers such as a
    phone number's are not figures.
    """
    scored = []
    for position, (kind, unit, _) in enumerate(split_units(text)):
        figures = _STATED.findall(unit)
        if figures and kind != "code":
            scored.append((kind != "row", len(figures), -position,
                           " ".join(unit.replace("*", "").split())))
    chosen: list[tuple[int, str]] = []
    spent = 0
    for _, _, position, unit in sorted(scored, reverse=True):
        if spent + len(unit) > limit:
            continue
        chosen.append((-position, unit))
        spent += len(unit) + 1
    return " ".join(unit for _, unit in sorted(chosen))


def digest(units: list[Evidence]) -> str:
    """The answer made of the section summaries: each under its heading, then cited.

    Headings are Markdown headings, not claims; every sentence below one is its unit's
    own text, so the claim check backs it (``document_in_code``). The text's own ``[n]``
    markers become ``(n)``: a section cites no unit, only code does.
    """
    blocks = []
    for n, unit in enumerate(units, 1):
        heading = " › ".join(unit.get("heading_path") or []) or unit["document_name"]
        text = defuse_citations(" ".join(unit["text"].split()))
        blocks.append(f"### {defuse_citations(' '.join(heading.split()))}\n{text} [{n}]")
    return "\n\n".join(blocks)


def _has_prose(text: str) -> bool:
    """Whether a section holds more than headings (a title alone is not read)."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def _tokens(text: str) -> int:
    return len(text) // 4 + 1


def _label(parent: Parent, title: str) -> str:
    return " › ".join(parent.location_path) or title


class DocumentPath:
    """Runs the document path of one sub-question (a node of the research graph)."""

    def __init__(self, llm: BaseChatModel, retriever: Retriever,
                 policy: Policy = CAPABLE) -> None:
        self.llm = llm
        self.policy = policy
        self.source = retriever if isinstance(retriever, DocumentSource) else None

    @timed("document")
    def run(self, question: str, index: int) -> dict[str, Any]:
        """The sub-answer from the document's sections, or ``{}`` to take the search path."""
        if self.source is None:
            return {}
        records = self.source.documents()
        ask = whole_document(question, [d.name for d in records])
        record = next((d for d in records if ask and d.name == ask.document), None)
        if ask is None or record is None:
            return {}
        body = [p for p in self.source.parents_of(record.document_id)
                if p.kind == "body" and _has_prose(p.text)]
        parents, heading = focus_sections(body, ask.focus)
        if not parents:
            emit_step(StepKind.DOCUMENT, f"{record.name}: no section heading matches "
                      f"{' '.join(sorted(ask.focus))}; searching within it instead",
                      sub_question=index)
            return {}
        where = f" under {' › '.join(heading)}" if heading else ""
        emit_step(StepKind.DOCUMENT, f"{record.name}: {ask.kind} of {len(parents)} "
                  f"sections{where}", document=record.name, sub_question=index)
        if ask.kind == HEADINGS:
            return self._headings(record, parents, heading, index, ask.top_level)
        return self._summary(question, ask, record, parents, index)

    # --- headings: from the catalog, no model call ------------------------------------
    def _headings(self, record: DocumentRecord, parents: list[Parent], heading: list[str],
                  index: int, top_level: bool = False) -> dict[str, Any]:
        """Every heading under ``heading`` (or its first level), indented, each cited."""
        title = document_title(record.title, record.name)
        tree: dict[tuple[str, ...], Parent] = {}
        for path, parent in section_paths(parents):
            if path[: len(heading)] != heading:
                continue
            deepest = len(heading) + 1 if top_level else len(path)
            for depth in range(len(heading) + 1, min(deepest, len(path)) + 1):
                tree.setdefault(tuple(path[:depth]), parent)
        units = []
        lines = []
        for n, (key, parent) in enumerate(list(tree.items())[:MAX_HEADINGS], 1):
            item = self._unit(record, [parent], " › ".join(key), index, title)
            item["heading_path"] = list(key)
            units.append(item)
            lines.append(f"{'  ' * (len(key) - len(heading) - 1)}- {key[-1]} [{n}]")
        where = f" under {' › '.join(heading)}" if heading else ""
        more = f" (the first {MAX_HEADINGS} of {len(tree)})" if len(tree) > MAX_HEADINGS else ""
        text = (f"The sections of {record.name}{where}, in order{more}:\n" + "\n".join(lines)
                if lines else f"{record.name} has no section headings{where}.")
        return {"messages": [AIMessage(text)], "evidence": units, "units": units,
                "document_answered": True}

    # --- summary: map (cached) and reduce -----------------------------------------------
    def _summary(self, question: str, ask: DocumentAsk, record: DocumentRecord,
                 parents: list[Parent], index: int) -> dict[str, Any]:
        title = document_title(record.title, record.name)
        summaries = self._map(record, parents, index, title)
        groups: list[list[Parent]] = []
        for parent in parents:
            if groups and _label(groups[-1][-1], title) == _label(parent, title):
                groups[-1].append(parent)
            else:
                groups.append([parent])
        texts = [" ".join(self._with_figures(summaries[p.parent_id], p) for p in group)
                 for group in groups]
        units = [self._unit(record, group, text, index, title)
                 for group, text in zip(groups, self._fit(texts), strict=True) if text]
        if self.policy.document_in_code:
            return {"messages": [AIMessage(digest(units))], "evidence": units,
                    "units": units, "document_answered": True}
        prompt = prompts.write_user("\n".join(numbered_block(n, u)
                                             for n, u in enumerate(units, 1)), question)
        reply = self.llm.invoke([SystemMessage(prompts.DOCUMENT_ANSWER_SYSTEM),
                                 HumanMessage(prompt)])
        return {"messages": [reply], "evidence": units, "units": units,
                "document_answered": True}

    def _map(self, record: DocumentRecord, parents: list[Parent], index: int,
             title: str) -> dict[str, str]:
        """Each parent's summary: cached, written now, or its opening (past the budget)."""
        assert self.source is not None
        summaries = self.source.section_summaries(record.document_id, parents)
        if summaries:
            emit_step(StepKind.SUMMARIES, f"{len(summaries)} of {len(parents)} sections "
                      "summarised before: read from the library", sub_question=index)
        chosen = self._within_budget([p for p in parents if p.parent_id not in summaries])
        extracted = 0
        for position, parent in enumerate(parents, 1):
            if parent.parent_id in summaries:
                continue
            if parent.parent_id in chosen:
                emit_step(StepKind.READING, f"reading section {position} of {len(parents)}",
                          section=_label(parent, title), sub_question=index)
                summary = self._summarise(record, parent, title)
                if summary:
                    self.source.save_section_summary(parent, summary)
                    summaries[parent.parent_id] = summary
                    continue
            summaries[parent.parent_id] = extract(parent.text)
            extracted += 1
        if extracted:
            emit_step(StepKind.SUMMARIES, f"{extracted} sections past the reading budget: "
                      "their opening sentences stand in", sub_question=index)
        return summaries

    def _with_figures(self, summary: str, parent: Parent) -> str:
        """The summary, after the section's figures when the policy adds them.

        The figures come first: a share cut to fit the answer's budget keeps its opening.
        """
        if not self.policy.document_in_code:
            return summary
        figures = key_figures(parent.text)
        return f"{figures} {summary}".strip() if figures else summary

    def _within_budget(self, parents: list[Parent]) -> set[str]:
        """The parents the model may read now: first of each heading first, then in order."""
        budget = self.policy.budgets.document_read_tokens
        if not budget:
            return {p.parent_id for p in parents}
        seen: set[tuple[str, ...]] = set()
        firsts = []
        for parent in parents:
            key = tuple(parent.location_path)
            if key not in seen:
                seen.add(key)
                firsts.append(parent)
        order = [*firsts, *(p for p in parents if p not in firsts)]
        chosen: set[str] = set()
        spent = 0
        for parent in order:
            spent += _tokens(parent.text)
            if spent > budget:
                break
            chosen.add(parent.parent_id)
        return chosen

    def _summarise(self, record: DocumentRecord, parent: Parent, title: str) -> str:
        """The model's summary of one section (its reply, capped), or ``""``."""
        reply = self.llm.invoke([
            SystemMessage(prompts.SECTION_SUMMARY_SYSTEM.format(max_words=SUMMARY_WORDS)),
            HumanMessage(prompts.SECTION_SUMMARY_USER.format(
                document=quote_attr(record.name), section=quote_attr(_label(parent, title)),
                pages=parent.location(title),
                passage=f"<passage>\n{quote_data(parent.text.strip())}\n</passage>")),
        ])
        words = message_text(reply.content).split()
        return " ".join(words[: SUMMARY_WORDS * 2])

    def _fit(self, texts: list[str]) -> list[str]:
        """The summaries within ``document_answer_tokens``: each cut to its share."""
        budget = self.policy.budgets.document_answer_tokens * 4
        if not budget or sum(len(t) for t in texts) <= budget:
            return texts
        share = max(MIN_SHARE_CHARS, budget // max(1, len(texts)))
        keep = max(1, budget // share)
        if len(texts) > keep:  # too many sections even so: every n-th, in reading order
            step = len(texts) / keep
            wanted = {int(i * step) for i in range(keep)}
            texts = [t if i in wanted else "" for i, t in enumerate(texts)]
        return [extract(t, share) if len(t) > share else t for t in texts]

    def _unit(self, record: DocumentRecord, group: list[Parent], text: str, index: int,
              title: str) -> Evidence:
        first, last = group[0], group[-1]
        return Evidence(
            kind="parent", parent_id=first.parent_id, document_id=record.document_id,
            document_name=record.name,
            pages=format_location(first.page_start, last.page_end or last.page_start,
                                  first.location_path, title),
            page_start=first.page_start, page_end=last.page_end or last.page_start,
            sub_question=index, text=text, grade="relevant",
            heading_path=list(first.location_path), document_about=document_about(record),
        )
