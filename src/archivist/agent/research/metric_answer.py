"""The metric path: a financial metric a question asks for, computed in code from its filing.

When a question asks for one fiscal year's metric (:func:`archivist.filings.asked.asked_metric`:
its own formula, a standard metric, a growth) and names one filing whose statements are
stored (``filings.scope``), :mod:`archivist.filings.metrics` computes it with no model
call, each figure read by one SELECT shown as a ``sql`` step. The answer states the
formula, the formula with the figures put in, and the result rounded and in the unit the
instructions ask (2 decimals unless asked otherwise), each figure cited to its page. A
metric asked across fiscal years is computed so for each year, each shown, then their
change, mean or sum (of amounts only), or each listed
(:mod:`archivist.agent.research.metric_across`). A metric that cannot be computed (across
years: for any one of them) is a ``metric_fallback`` step with the reason, and the
question goes on by the usual path; nothing is guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage

from archivist.agent.question.answer_format import AnswerFormat, answer_format
from archivist.agent.quoting import quote_data
from archivist.agent.research.metric_across import (
    Summary,
    average_summary,
    change_summary,
    each_summary,
    sign_answer,
    total_summary,
)
from archivist.agent.state import Evidence
from archivist.agent.steps import StepKind, emit_step, timed
from archivist.agent.text import PERIOD_YEAR
from archivist.agent.tools import scoped_documents
from archivist.filings.asked import AskedMetric, asked_metric, standard_metric
from archivist.filings.comparison import better_direction
from archivist.filings.metrics import (
    METRICS,
    MetricResult,
    Period,
    StatementFigures,
    compute,
    growth,
    round_half_up,
)
from archivist.filings.periods import MONTHS, parse_date, quarter_end
from archivist.filings.scope import company_key, named_quarters
from archivist.filings.statements import STATEMENTS
from archivist.index.retriever import DocumentSource, Retriever, TableSource
from archivist.index.table_sql import SqlError
from archivist.index.table_store import StoredTable, quote
from archivist.types import DocumentRecord, format_location

__all__ = ["DEFAULT_DECIMALS", "MetricPath", "answer_text", "asked_period", "period_label",
           "result_text"]

DEFAULT_DECIMALS = 2
_SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_MONTH_NAMES = {number: name.capitalize() for name, number in MONTHS.items() if len(name) > 3
                or name == "may"}
_MONTHS_ENDED = re.compile(r"\b(?:(three|3|six|6|nine|9)[- ]months?|quarter)\s+(?:ended|ending)\s+"
                           rf"(?:on\s+)?([A-Z][a-z]+\.?\s+\d{{1,2}},?\s+{PERIOD_YEAR})", re.I)
_SPANS = {"q": "three months ended", "m6_": "six months ended", "m9_": "nine months ended"}


def period_label(column: str) -> str:
    """A statement column in words: ``fy2023`` fiscal 2023, ``d2023_06_30`` June 30, 2023."""
    if column.startswith("fy") and column[2:].isdigit():
        return f"fiscal {column[2:]}"
    prefix = next((p for p in ("m6_", "m9_", "q", "d") if column.startswith(p)), "")
    parts = column[len(prefix):].split("_")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return column
    year, month, day = (int(p) for p in parts)
    when = f"{_MONTH_NAMES.get(month, month)} {day}, {year}"
    return f"{_SPANS[prefix]} {when}" if prefix in _SPANS else when


def _number(value: float, decimals: int) -> str:
    return f"{round_half_up(value, decimals):,.{decimals}f}"


def result_text(result: MetricResult, wanted: AnswerFormat, decimals: int) -> str:
    """The result rounded to ``decimals`` in its unit, or in the scale or percent asked.

    A ratio under 0.1 with no rounding asked keeps three significant digits (0.0148).
    """
    assert result.value is not None
    value, unit = result.value, result.unit
    if unit in _SCALES:
        scale = wanted.scale if wanted.scale in _SCALES else unit
        shown = _number(value * _SCALES[unit] / _SCALES[scale], decimals)
        money = f"{wanted.currency} " if wanted.currency else ""
        return f"{money}{shown} {scale[:-1]}"
    if unit in ("ratio", "") and wanted.percent:
        return f"{_number(value * 100, decimals)}%"
    if unit == "%":
        return f"{_number(value, decimals)}%"
    if wanted.decimals is None and 0 < abs(value) < 0.1:  # 0.0148, not 0.01
        decimals = max(decimals, 2 - math.floor(math.log10(abs(value))))
    return f"{_number(value, decimals)}{' days' if unit == 'days' else ''}"


class MetricPath:
    """Runs the metric path of one sub-question (a node of the research graph)."""

    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever
        self.tables = retriever if isinstance(retriever, TableSource) else None
        self.catalog = retriever if isinstance(retriever, DocumentSource) else None

    def asks(self, question: str, instructions: list[str]) -> bool:
        """Whether the question names a metric, over a library that stores tables."""
        if self.tables is None or self.catalog is None:
            return False
        metric, reason = asked_metric(question, " ".join(instructions))
        return metric is not None or bool(reason)

    @timed("tables")
    def run(self, question: str, index: int, instructions: list[str]) -> dict[str, Any]:
        """The computed answer, or ``{"metric_answered": False}`` with the reason as a step."""
        metric, reason = asked_metric(question, " ".join(instructions))
        if metric is None:
            return _fallback(reason, index)
        chosen, reason = self._filing(question, metric.year)
        if chosen is None:
            return _fallback(reason, index)
        record, tables = chosen
        year = metric.year or record.fiscal_year
        if year is None:
            return _fallback("the question and the filing name no fiscal year", index)
        try:
            statements = self._statements(tables)
        except SqlError as exc:
            return _fallback(f"the statements could not be read: {exc}", index)
        wanted = answer_format([*instructions, question])
        if metric.across is not None:
            return self._across(question, metric, year, record, statements, wanted, index)
        period, reason = asked_period(question, year, record, statements)
        if period is None:
            return _fallback(reason, index)
        decimals = _decimals(wanted)
        done = self._computed(metric, statements, period, wanted, decimals, record, index)
        if isinstance(done, str):
            return _fallback(done, index)
        result, shown = done
        emit_step(StepKind.METRIC, f"{result.metric} = {result.worked} = {shown}",
                  sub_question=index, document=record.name)
        items, places = self._evidence([result], statements, record, index)
        text = answer_text(result, shown, record, period, statements.unit(), places[0])
        text = sign_answer(question, result.value or 0.0, result.unit in _SCALES) + text
        return {"messages": [AIMessage(text)], "evidence": items, "metric_answered": True}

    def _computed(self, metric: AskedMetric, statements: StatementFigures, period: Period,
                  wanted: AnswerFormat, decimals: int, record: DocumentRecord, index: int
                  ) -> tuple[MetricResult, str] | str:
        """The metric of one period and its result as shown, each read a step; or why not."""
        result = _computed(metric, statements, period, decimals)
        for figure in result.inputs:
            if figure.sql:
                emit_step(StepKind.SQL, figure.sql, sub_question=index, figure=figure.line_item)
        if result.error or result.value is None:
            return f"{result.metric} not computed: {result.error}"
        return result, result_text(result, wanted, decimals)

    def _across(self, question: str, metric: AskedMetric, year: int, record: DocumentRecord,
                statements: StatementFigures, wanted: AnswerFormat, index: int
                ) -> dict[str, Any]:
        """The metric of each fiscal year asked, then their change or mean, each year shown."""
        assert metric.across is not None
        if named_quarters(question) or _MONTHS_ENDED.search(question):
            return _fallback("a change or average across quarters is not computed", index)
        if metric.across.kind == "total" and _unit_of(metric) != "amount":
            return _fallback(f"a sum of {metric.name} across years is not computed", index)
        years = metric.across.years or (year - 1, year)
        decimals = _decimals(wanted)
        results: list[tuple[MetricResult, str]] = []
        for each in years:
            done = self._computed(metric, statements, each, wanted, decimals, record, index)
            if isinstance(done, str):
                return _fallback(f"fiscal {each}: {done}", index)
            results.append(done)
        for result, shown in results:
            emit_step(StepKind.METRIC, f"{result.metric} = {result.worked} = {shown}",
                      sub_question=index, document=record.name)
        summary = across_summary(metric, record, years, results, wanted, decimals)
        emit_step(StepKind.METRIC, summary.step, sub_question=index, document=record.name)
        items, places = self._evidence([r for r, _ in results], statements, record, index)
        each_year = [answer_text(r, s, record, y, statements.unit(), p)
                     for (r, s), y, p in zip(results, years, places, strict=True)]
        text = "\n\n".join([f"{summary.sentence}\n{summary.step}", *each_year])
        return {"messages": [AIMessage(text)], "evidence": items, "metric_answered": True}

    def _filing(self, question: str, year: int | None
                ) -> tuple[tuple[DocumentRecord, list[StoredTable]] | None, str]:
        """The filing the question names that has statements stored, or why none.

        Of several, the one of the fiscal year asked, then an annual report unless a quarter
        is named, then a report (10-K, 10-Q) over an earnings release, then the latest one
        (its statements print the figures as last reported). Filings of several companies
        (names compared without legal form or case) are not chosen between.
        """
        assert self.tables is not None and self.catalog is not None
        named, _ = scoped_documents(self.catalog, question)
        ids = {d.document_id for d in named}
        if not ids:
            return None, "the question names no filing"
        stored: dict[str, list[StoredTable]] = {}
        for table in self.tables.tables(ids):
            if table.name in STATEMENTS:
                stored.setdefault(table.document_id, []).append(table)
        records = [r for r in named if r.document_id in stored]
        if not records:
            return None, "no financial statements are stored for the filing named"
        for keep in (lambda r: year is not None and r.fiscal_year == year,
                     lambda r: not named_quarters(question) and r.form == "10-K",
                     lambda r: r.form in ("10-K", "10-Q")):
            if len(records) > 1 and any(keep(r) for r in records):
                records = [r for r in records if keep(r)]
        if len({company_key(r.company) for r in records}) > 1:
            return None, f"the question names {len(records)} filings with statements"
        latest = max(records, key=lambda r: r.period or "")
        return (latest, stored[latest.document_id]), ""

    def _statements(self, tables: list[StoredTable]) -> StatementFigures:
        assert self.tables is not None
        rows = {t.table_id: self.tables.query_tables([t], f"SELECT * FROM {quote(t.name)}").rows
                for t in tables}
        return StatementFigures(tables, rows)

    def _evidence(self, results: list[MetricResult], statements: StatementFigures,
                  record: DocumentRecord, index: int) -> tuple[list[Evidence], list[list[str]]]:
        """One piece of evidence per place the figures are printed on, and each figure's place.

        A figure not read from a statement (an optional line item counted as 0) has none;
        a figure two results read is evidence once.
        """
        items: dict[str, Evidence] = {}
        places: list[list[str]] = []
        seen: set[str] = set()
        for result in results:
            places.append([])
            for figure in result.inputs:
                table = statements.tables.get(figure.statement)
                if not figure.sql or table is None:
                    places[-1].append("")
                    continue
                where = format_location(figure.page, figure.page, table.heading_path)
                places[-1].append(where)
                line = quote_data(f"{table.caption}: {figure.line_item}, "
                                  f"{period_label(figure.period)}: {figure.value:,.10g}"
                                  f"{_in(statements.unit())}\nQuery: {figure.sql}")
                if line in seen:
                    continue
                seen.add(line)
                if where in items:
                    items[where]["text"] = f"{items[where].get('text', '')}\n{line}"
                    continue
                items[where] = Evidence(
                    kind="table", parent_id=table.table_id, document_id=record.document_id,
                    document_name=record.name, pages=where, page_start=figure.page,
                    page_end=figure.page, sub_question=index, text=line, grade="relevant",
                    heading_path=list(table.heading_path))
        return list(items.values()), places


def parse_month_day_text(text: str | None) -> tuple[int, int] | None:
    """``(12, 31)`` from a catalog's fiscal year end ``12-31``, or ``None``."""
    parts = (text or "").split("-")
    return (int(parts[0]), int(parts[1])) if len(parts) == 2 and all(
        p.isdigit() for p in parts) else None


def _in(unit: str) -> str:
    return f" ({unit})" if unit else ""


def _fallback(reason: str, index: int) -> dict[str, Any]:
    emit_step(StepKind.METRIC_FALLBACK, f"{reason}: answering by the usual path",
              sub_question=index)
    return {"metric_answered": False}


def asked_period(question: str, year: int, record: DocumentRecord, statements: StatementFigures
            ) -> tuple[Period | None, str]:
    """The fiscal year asked, or the three-month column of the one quarter it names.

    A quarter is named as ``Q4``, ``fourth quarter``, ``three months ended June 30, 2023`` or
    ``the quarter ended June 30, 2023``.
    """
    span = _MONTHS_ENDED.search(question)
    if span is not None:  # "the three months ended June 30, 2023": that quarter's column
        end = parse_date(span.group(2))
        if end is None or (span.group(1) or "three").lower() not in ("three", "3"):
            return None, f"the statements are not read for the {span.group(0)}"
        column = statements.quarter_column(end)
        if column is None:
            return None, f"the statements have no column for the {span.group(0)}"
        return column, ""
    quarters = named_quarters(question)
    if not quarters:
        return year, ""
    if len(quarters) > 1:
        return None, "the question names more than one quarter"
    (quarter,) = quarters
    end = quarter_end(year, quarter, parse_month_day_text(record.fiscal_year_end))
    column = statements.quarter_column(end)
    if column is None:
        return None, f"the statements have no column for Q{quarter} of fiscal {year}"
    return column, ""


def _decimals(wanted: AnswerFormat) -> int:
    return wanted.decimals if wanted.decimals is not None else DEFAULT_DECIMALS


def across_summary(metric: AskedMetric, record: DocumentRecord, years: tuple[int, ...],
                   results: list[tuple[MetricResult, str]], wanted: AnswerFormat,
                   decimals: int) -> Summary:
    """The change or mean of the metric over ``years`` (each year's result, as shown)."""
    assert metric.across is not None
    first = results[0][0]
    owner = f" of {record.company}" if record.company else ""
    values = [r.value for r, _ in results if r.value is not None]

    def show(value: float) -> str:
        return result_text(replace(first, value=value), wanted, decimals)

    if metric.across.kind == "average":
        return average_summary(first.metric, owner, years, values, show, first.unit, decimals)
    if metric.across.kind == "total":
        return total_summary(first.metric, owner, years, values, show)
    if metric.across.kind == "each":
        return each_summary(first.metric, owner, years, [shown for _, shown in results])
    key = metric.formula if metric.formula in METRICS else standard_metric(metric.name)
    return change_summary(first.metric, owner, (years[0], years[-1]), (values[0], values[-1]),
                          (results[0][1], results[-1][1]), show, first.unit, decimals,
                          better_direction(key), metric.across.asked)


def _unit_of(metric: AskedMetric) -> str:
    """The unit a metric is in: a standard metric's, else the question's formula's."""
    return METRICS[metric.formula][2] if metric.formula in METRICS else metric.unit


def _computed(metric: AskedMetric, statements: StatementFigures, year: Period,
              decimals: int) -> MetricResult:
    if metric.growth_of:
        return growth(metric.growth_of, statements, year, decimals)
    return compute(metric.formula, statements, year, decimals, metric=metric.name,
                   unit=metric.unit)


def answer_text(result: MetricResult, shown: str, record: DocumentRecord, year: Period,
                unit: str, places: list[str]) -> str:
    """The formula, the formula with the figures put in, the result; each figure cited.

    ``places`` is where each input is printed (``p. 3``), cited as ``[document, p. 3]``.
    """
    company = f" of {record.company}" if record.company else ""
    form = f"{record.form} " if record.form else ""
    figures = "; ".join(
        f"{f.line_item}, {period_label(f.period)}: {f.value:,.10g}"
        + (f" [{record.name}, {where}]" if where else "")
        for f, where in zip(result.inputs, places, strict=True))
    name = result.metric[:1].upper() + result.metric[1:]
    scale = f" (in {unit})" if unit else ""
    when = f"fiscal {year}" if isinstance(year, int) else f"the {period_label(year)}"
    if len(result.inputs) == 1 and result.worked == f"{result.inputs[0].value:,.10g}":
        return (f"{name}{company} for {when}, read from the {form}statements: {shown}.\n"
                f"Figure{scale}: {figures}.")
    return (f"{name}{company} for {when}, computed from the {form}statements:\n"
            f"{result.metric} = {result.formula}\n= {result.worked}\n= {shown}\n"
            f"Figures{scale}: {figures}.")
