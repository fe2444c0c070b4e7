"""The table path: one read-only SQL query the model writes over the documents' tables.

A question that asks for a computation, a count, a ranking or a comparison ("by how
much", "which ... highest", "how many"), or whose evidence is a spreadsheet's passage,
is first tried on the tables (``index/table_store.py``). The tables that match it best
(caption, section, columns and row labels against its words, and the pages the evidence
came from) are shown to the model with their columns, row labels and a few rows; it
writes one SELECT, which runs read-only (``index/table_sql.py``). Within the profile's
``sql_attempts`` (a capable model 2, a small one 1), a failing query is asked for again with
SQLite's message, an empty result with the reason it may be empty; the last failure, or an
empty result, falls back to the text path. The result's rows carry
their labels (``table_result.py``). The answer is written from the result, and cites the
table's document and pages; the query is a visible step.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from archivist.agent import prompts
from archivist.agent.checks.claims import check_claim, missing_facts, split_claims, strip_citations
from archivist.agent.evidence.units import QueryEmbedder
from archivist.agent.question.answer_format import answer_format
from archivist.agent.quoting import quote_attr, quote_data
from archivist.agent.research.table_choice import (
    goes_to_tables,
    names_a_year,
    relevant_tables,
)
from archivist.agent.research.table_result import (
    empty_result_hint,
    labelled_query,
    ranked_total_hint,
    shown_value,
    unfiltered_sum_hint,
    with_result_figures,
)
from archivist.agent.state import Evidence
from archivist.agent.steps import StepKind, emit_step, message_text, timed
from archivist.agent.tools import scoped_documents
from archivist.index.retriever import DocumentSource, Retriever, TableSource
from archivist.index.table_sql import SqlError, SqlResult, view_names
from archivist.index.table_store import StoredTable, quote
from archivist.stopwords import DATE_WORDS, content_words, singular
from archivist.types import format_location

__all__ = ["TablePath", "column_hint", "extract_sql", "query_aliases",
           "query_picks_what_is_asked", "row_labels_text", "without_aliases"]

SAMPLE_ROWS = 3
RESULT_ROWS = 30
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_FENCE = re.compile(r"```(?:sql|sqlite)?\s*(.*?)```", re.IGNORECASE | re.DOTALL)
_START = re.compile(r"\b(SELECT|WITH)\b", re.IGNORECASE)
_NO_COLUMN = re.compile(r"no such column: ([\w.]+)")
_TOTAL = re.compile(r"\s*total\b", re.IGNORECASE)
_LITERAL = re.compile(r"'((?:[^']|'')*)'")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALIAS = re.compile(r"\bAS\s+(?:'((?:[^']|'')+)'|\"([^\"]+)\"|`([^`]+)`|\[([^\]]+)\]|"
                    r"([A-Za-z_][A-Za-z0-9_]*))", re.IGNORECASE)
_SQL_TYPES = frozenset({"REAL", "INTEGER", "INT", "TEXT", "NUMERIC", "FLOAT", "DOUBLE"})
_SQL_WORDS = frozenset({
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "AS", "SUM", "AVG", "MIN", "MAX", "COUNT",
    "ORDER", "BY", "GROUP", "HAVING", "LIMIT", "DESC", "ASC", "IN", "IS", "NULL", "LIKE",
    "DISTINCT", "CASE", "WHEN", "THEN", "ELSE", "END", "WITH", "ROUND", "ABS", "CAST", "REAL",
    "INTEGER", "JOIN", "ON", "LEFT", "INNER", "UNION", "ALL", "BETWEEN", "OFFSET",
})


def column_hint(error: str, tables: Sequence[StoredTable]) -> str:
    """What a retry needs after a query named a column no table has: the real columns.

    The 1.5B model guessed names (``total_assets``, ``row_labels``, ``y2017``) in 25 of 61
    queries over financial tables; SQLite's message says only which name is wrong. Each
    table's columns come back with the closest to the wrong name first, and the column
    that holds the row labels. ``""`` for any other error.
    """
    match = _NO_COLUMN.search(error)
    if not match:
        return ""
    wrong = match.group(1).rsplit(".", 1)[-1]
    lines = []
    for table in tables:
        if not table.columns:
            continue
        close = difflib.get_close_matches(wrong.lower(), table.columns, n=2, cutoff=0.4)
        closest = f" (closest to {wrong}: {', '.join(close)})" if close else ""
        lines.append(f"- {table.name}: {', '.join(table.columns)}{closest}; the row labels "
                     f"are the values of {table.columns[0]}")
    return "There is no column named " + wrong + ". The columns are:\n" + "\n".join(lines)


def row_labels_text(table: StoredTable) -> str:
    """A table's row labels as its schema shows them, with a word on a Total row.

    A ranking over a statement with a Total row picks the Total (the 1.5B model's
    ``WHERE total = (SELECT MAX(total) ...)`` over contractual obligations did), and a
    count counts it.
    """
    labels = "; ".join(quote_data(label) for label in table.row_labels)
    if any(_TOTAL.match(label) for label in table.row_labels):
        labels += " (a row labelled Total sums the rows above it: leave it out of a ranking " \
                  "or a count)"
    return labels


def _alias(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


def query_aliases(query: str, columns: Iterable[str] = ()) -> set[str]:
    """The names a query gives its results (``COUNT(*) AS shares_repurchased``).

    They are the model's words, not the tables': a type in ``CAST(x AS REAL)`` and a name
    that is a real column (``columns``) are not counted.
    """
    real = {c.lower() for c in columns}
    return {name for name in map(_alias, _ALIAS.finditer(query))
            if name.upper() not in _SQL_TYPES and name.lower() not in real}


def without_aliases(query: str, aliases: Iterable[str]) -> str:
    """``query`` with its ``AS <name>`` clauses for ``aliases`` taken out."""
    names = set(aliases)
    return _ALIAS.sub(lambda m: "" if _alias(m) in names else m.group(0), query)


def query_picks_what_is_asked(query: str, question: str, tables: Sequence[str] = (),
                              columns: Iterable[str] = ()) -> bool:
    """Whether the query picks a row or column the question names.

    Its quoted labels (``WHERE item = 'Revenues'``) and its column names, not its tables'
    names, the names it gives its results (:func:`query_aliases`) or SQL's words, must
    share a word with the question, a date aside (a column ``june_30_2023`` is the period
    asked about, not what): a query that summed profits for a question about staff picks
    nothing the question names, whatever it calls the sum.
    """
    query = without_aliases(query, query_aliases(query, columns))
    literals = _LITERAL.findall(query)
    rest = _LITERAL.sub(" ", query)
    names = {w for w in _IDENTIFIER.findall(rest) if w.upper() not in _SQL_WORDS
             and w not in tables}
    picked = content_words(" ".join([*literals, *names]).replace("_", " "))
    asked = {singular(w) for w in content_words(question)  # a period, not what is asked
             if not w.isdigit() and w not in DATE_WORDS}
    return bool({singular(w) for w in picked} & asked)


def extract_sql(reply: str) -> str:
    """The query in a model's reply: inside a code fence if any, from SELECT/WITH on."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start = _START.search(text)
    if not start:
        return text.strip()
    return text[start.start():].split(";", 1)[0].strip()


def _evidence_text(table: StoredTable, query: str, result: str) -> str:
    """What a table answer cites: the table's caption, the query and its result, as data."""
    return quote_data(f"{table.caption}\nQuery: {query}\nResult:\n{result}")


def _grid(columns: list[str], rows: list[list[Any]], decimals: int | None = None) -> str:
    lines = [" | ".join(columns)]
    lines += [" | ".join(shown_value(v, decimals) for v in row) for row in rows]
    return "\n".join(lines)


class TablePath:
    """Runs the table path of one sub-question (a node of the research graph)."""

    def __init__(self, llm: BaseChatModel, retriever: Retriever,
                 embedder: QueryEmbedder | None = None, *, attempts: int = 2) -> None:
        self.llm = llm
        #: queries the model may write for one question (``agent.sql_attempts``)
        self.attempts = attempts
        self.retriever = retriever
        self.embedder = embedder
        self.source = retriever if isinstance(retriever, TableSource) else None

    def applies(self, question: str, evidence: list[Evidence]) -> bool:
        """Whether the question goes to the tables (:func:`goes_to_tables`)."""
        return self.source is not None and goes_to_tables(question, evidence,
                                                          self.source.tables())

    def _describe(self, tables: list[StoredTable], names: list[str]) -> str:
        assert self.source is not None
        blocks = []
        for table, name in zip(tables, names, strict=True):
            document = self.retriever.get_document(table.document_id)
            where = format_location(table.page_start, table.page_end, table.heading_path)
            unit = f"; values in {table.unit}" if table.unit else ""
            columns = ", ".join(
                f"{c} ({k}{': ' + quote_data(label) if label and label != c else ''})"
                for c, label, k in zip(table.columns, table.labels, table.kinds, strict=True))
            sample = self.source.query_tables([table], f"SELECT * FROM {quote(name)} "
                                              f"LIMIT {SAMPLE_ROWS}")
            rows = _grid(sample.columns, sample.rows)
            labels = row_labels_text(table)
            blocks.append(
                f'<table name="{quote_attr(name)}" '
                f'document="{quote_attr(document.name if document else "")}" '
                f'where="{quote_attr(where)}">\nCaption: {quote_data(table.caption)}{unit}\n'
                f"Columns: {columns}\nRow labels, the values of "
                f"{quote_attr(table.columns[0] if table.columns else '')} "
                f"({table.row_count} rows): {labels}\n"
                f"First rows:\n{quote_data(rows)}\n</table>")
        return "\n".join(blocks)

    @timed("tables")
    def run(self, question: str, index: int, evidence: list[Evidence],
            instructions: list[str] | None = None) -> dict[str, Any]:
        """The sub-answer from a query, or ``{"table_tried": True}`` to take the text path.

        The user's ``instructions`` (a unit, a rounding) go to the query and answer prompts,
        and the result's decimals are rounded as they ask.
        """
        assert self.source is not None
        scoped, _ = scoped_documents(self.retriever if isinstance(self.retriever, DocumentSource)
                                     else None, question)
        tables = self.source.tables({d.document_id for d in scoped} if scoped else None)
        chosen = relevant_tables(question, tables, evidence)
        if not chosen:
            emit_step(StepKind.TABLE_FALLBACK, "no stored table matches the question",
                      sub_question=index)
            return {"table_tried": True}
        names = view_names(chosen)
        chosen = [replace(t, name=n) for t, n in zip(chosen, names, strict=True)]
        # a query can only find a year its table holds: no call for one none of them has
        chosen = [t for t in chosen if names_a_year(question, t)
                  or names_a_year(question, t, self._cells(t))]
        if not chosen:
            emit_step(StepKind.TABLE_FALLBACK, "no table found names the year asked about",
                      sub_question=index)
            return {"table_tried": True}
        names = [t.name for t in chosen]
        emit_step(StepKind.TABLES, ", ".join(names), sub_question=index)
        described = self._describe(chosen, names)
        asked = prompts.instructions_block(instructions)
        result, query = self._query(question, described, chosen, index, asked)
        if result is None or not result.rows:
            reason = "the query returned no rows" if result is not None else "no valid query"
            emit_step(StepKind.TABLE_FALLBACK, f"{reason}: answering from the passages",
                      sub_question=index)
            return {"table_tried": True}
        picked = query  # what the model's query picked, before its rows were labelled
        result, query = self._labelled(query, chosen, result, index)
        used = [t for t in chosen if t.name in query] or chosen
        decimals = answer_format(instructions or []).decimals
        shown = _grid(result.columns, result.rows[:RESULT_ROWS], decimals)
        reply = self.llm.invoke([
            SystemMessage(prompts.TABLE_ANSWER_SYSTEM),
            HumanMessage(prompts.TABLE_ANSWER_USER.format(
                tables=self._describe(used, [t.name for t in used]), query=query,
                result=quote_data(shown), question=question, instructions=asked)),
        ])
        items = [self._evidence(t, index, query, shown) for t in used]
        written = message_text(reply.content).strip()
        if written and not self._supported(question, written, used, query, result, decimals,
                                           picked):
            emit_step(StepKind.TABLE_FALLBACK, "the answer does not say what the query's result "
                      f"shows ({quote_data(written[:160])}): answering from the passages",
                      sub_question=index)
            return {"table_tried": True}
        text = with_result_figures(written, result, decimals, {t.unit for t in used}) \
            if written else f"The query returned:\n{shown}"
        cited = "; ".join(f"{e['document_name']}, {e['pages']}".rstrip(", ") for e in items)
        if cited and "[" not in text:
            text = f"{text} [{cited}]"
        return {"messages": [AIMessage(text)], "evidence": items, "table_tried": True,
                "table_answered": True}

    def _cells(self, table: StoredTable) -> list[Any]:
        assert self.source is not None
        result = self.source.query_tables([table], f"SELECT * FROM {quote(table.name)}")
        return [value for row in result.rows for value in row]

    def _labelled(self, query: str, tables: list[StoredTable], result: SqlResult,
                  index: int) -> tuple[SqlResult, str]:
        """The result with each row's label and ranking figure (:func:`labelled_query`).

        The model's own result and query when there is nothing to add, or the labelled
        query fails or returns other rows.
        """
        assert self.source is not None
        better = labelled_query(query, tables)
        if better is None:
            return result, query
        try:
            found = self.source.query_tables(tables, better)
        except SqlError:
            return result, query
        if len(found.rows) != len(result.rows):
            return result, query
        emit_step(StepKind.SQL, better, sub_question=index, labelled=True)
        return found, better

    def _supported(self, question: str, answer: str, used: list[StoredTable], query: str,
                   result: SqlResult, decimals: int | None = None,
                   picked: str | None = None) -> bool:
        """Whether a sentence of the answer is backed by the query and its result.

        The same check as every written sentence (``claims.py``): its numbers and names
        in the result, and the support score. A query that fetched the wrong row (shares
        for a question about employees) gives an answer its result does not back. The
        score of a right answer against a result (``y2017 - y2016`` over ``2,862,044``)
        can fall short of the threshold too, so a sentence whose figures and names the
        result holds also passes when the query picks what the question names. The names
        the query gives its results are the model's words, not evidence: they are left
        out (``COUNT(*) AS shares_repurchased`` backed "Halvard repurchased 1 share").
        ``picked`` is the model's query when ``query`` is it with the row labels added:
        what is picked is judged on the model's.
        """
        columns = [c for t in used for c in t.columns]
        aliases = query_aliases(query, columns)
        plain = without_aliases(query, aliases)
        shown = _grid([c if c not in aliases else "value" for c in result.columns],
                      result.rows[:RESULT_ROWS], decimals)
        units = [_evidence_text(t, plain, shown) for t in used]
        cited = list(range(1, len(units) + 1))
        on_topic = query_picks_what_is_asked(picked or query, question, [t.name for t in used],
                                             columns)
        for sentence, _ in split_claims(answer):
            if check_claim(sentence, cited, units, self.embedder, question=question).supported:
                return True
            text = strip_citations(sentence)
            if on_topic and _FIGURE.search(text) and \
                    not missing_facts(text, "\n".join(units), question):
                return True
        return False

    def _query(self, question: str, described: str, tables: list[StoredTable],
               index: int, asked: str = "") -> tuple[SqlResult | None, str]:
        """Ask for a query, run it, retry with the error; ``(None, "")`` if all fail.

        At most ``self.attempts`` queries are asked for (``agent.sql_attempts``).

        A first query that returns no rows for a reason :func:`empty_result_hint` names, or
        ranks a Total row first (:func:`ranked_total_hint`), or sums every row of a table of
        line items (:func:`unfiltered_sum_hint`), is retried with it too.

        ``asked``: the user's instructions as the prompt shows them (``instructions_block``).
        """
        assert self.source is not None
        messages: list[BaseMessage] = [
            SystemMessage(prompts.SQL_SYSTEM),
            HumanMessage(prompts.SQL_USER.format(tables=described, question=question,
                                                 instructions=asked)),
        ]
        for attempt in range(1, self.attempts + 1):
            last = attempt == self.attempts
            reply = self.llm.invoke(messages)
            query = extract_sql(message_text(reply.content))
            emit_step(StepKind.SQL, query, attempt=attempt, sub_question=index)
            try:
                found = self.source.query_tables(tables, query)
            except SqlError as exc:
                emit_step(StepKind.SQL_ERROR, str(exc), attempt=attempt, sub_question=index)
                hint = column_hint(str(exc), tables)
                error = f"{exc}\n{hint}" if hint else str(exc)
            else:
                hint = "" if last else empty_result_hint(query, tables) \
                    if not found.rows else ranked_total_hint(query, tables, found.rows[0]) \
                    or unfiltered_sum_hint(query, tables)
                if not hint:
                    return found, query
                error = f"it returned no rows.\n{hint}" if not found.rows else hint
                emit_step(StepKind.SQL_ERROR, error, attempt=attempt, sub_question=index)
            if last:
                break
            messages += [AIMessage(message_text(reply.content)),
                         HumanMessage(prompts.SQL_RETRY.format(error=error))]
        return None, ""

    def _evidence(self, table: StoredTable, index: int, query: str, result: str) -> Evidence:
        document = self.retriever.get_document(table.document_id)
        return Evidence(
            kind="table", parent_id=table.table_id, document_id=table.document_id,
            document_name=document.name if document else table.document_id,
            pages=format_location(table.page_start, table.page_end, table.heading_path),
            page_start=table.page_start, page_end=table.page_end, sub_question=index,
            text=_evidence_text(table, query, result),
            grade="relevant", heading_path=list(table.heading_path),
        )
