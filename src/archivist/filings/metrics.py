"""Standard metrics and a question's own formulas computed over a filing's statement rows.

Every figure is read from a statement table (``income_statement``, ``balance_sheet``,
``cash_flow_statement``; see :mod:`archivist.filings.statements`) by one read-only SELECT
(:func:`archivist.index.table_sql.run_select`), so each input carries its document, page
and the SQL that found it. The result shows the formula, the formula with the figures put
in, and the value rounded half up to the decimals asked. A formula whose line item is not
in the statements is refused with the reason, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from archivist.filings.concepts import CONCEPTS, Concept, label_key, matching_row
from archivist.filings.formula import Formula, FormulaError, parse_formula
from archivist.filings.statements import STATEMENTS
from archivist.index.table_sql import run_select
from archivist.index.table_store import StoredTable, TableStore, quote
from archivist.types import Cell

__all__ = ["BETTER", "METRICS", "Figure", "MetricResult", "StatementFigures", "compute", "growth",
           "round_half_up"]

METRICS: dict[str, tuple[str, str, str]] = {
    "gross_margin": ("gross margin", "(revenue - cost of revenue) / revenue * 100", "%"),
    "operating_margin": ("operating margin", "operating income / revenue * 100", "%"),
    "net_margin": ("net margin", "net income / revenue * 100", "%"),
    "dpo": ("days payable outstanding", "365 * average accounts payable / cost of revenue",
            "days"),
    "dso": ("days sales outstanding", "365 * average accounts receivable / revenue", "days"),
    "dio": ("days inventory outstanding", "365 * average inventory / cost of revenue", "days"),
    "working_capital": ("working capital", "current assets - current liabilities", "amount"),
    "current_ratio": ("current ratio", "current assets / current liabilities", "ratio"),
    "quick_ratio": ("quick ratio", "(cash + short-term investments + accounts receivable) / "
                    "current liabilities", "ratio"),
    "ebitda": ("EBITDA", "operating income + depreciation and amortization", "amount"),
    "roa": ("return on assets", "net income / average total assets * 100", "%"),
    "roe": ("return on equity", "net income / average equity * 100", "%"),
    "capex": ("capital expenditure", "capital expenditure", "amount"),
    "free_cash_flow": ("free cash flow", "cash from operations - capital expenditure", "amount"),
    "effective_tax_rate": ("effective tax rate", "income tax / income before income taxes * 100",
                           "%"),
    "interest_coverage": ("interest coverage ratio", "operating income / interest expense",
                          "ratio"),
}
"""Each metric: its name, its formula (as :func:`parse_formula` reads it) and its unit."""
METRICS.update({
    "working_capital_ratio": ("working capital ratio", METRICS["current_ratio"][1], "ratio"),
    "ebitda_margin": ("EBITDA margin", "(operating income + depreciation and amortization) / "
                      "revenue * 100", "%"),
    "debt_to_equity": ("debt-to-equity ratio", "(short-term debt + long-term debt) / "
                       "total equity", "ratio"),
    "payout_ratio": ("dividend payout ratio", "dividends paid / net income", "ratio"),
    "asset_turnover": ("asset turnover ratio", "revenue / average total assets", "ratio"),
    "inventory_turnover": ("inventory turnover ratio", "cost of revenue / average inventory",
                           "ratio"),
    "fixed_asset_turnover": ("fixed asset turnover ratio",
                             "revenue / average property and equipment", "ratio"),
    "receivables_turnover": ("receivables turnover ratio",
                             "revenue / average accounts receivable", "ratio"),
    "payables_turnover": ("payables turnover ratio", "cost of revenue / average accounts payable",
                          "ratio"),
    "cash_conversion_cycle": ("cash conversion cycle", "365 * average inventory / cost of revenue"
                              " + 365 * average accounts receivable / revenue"
                              " - 365 * average accounts payable / cost of revenue", "days"),
    "cash_ratio": ("cash ratio", "(cash + short-term investments) / current liabilities",
                   "ratio"),
    "operating_cash_flow_ratio": ("operating cash flow ratio",
                                  "cash from operations / current liabilities", "ratio"),
    "retention_ratio": ("retention ratio", "1 - dividends paid / net income", "ratio"),
    "free_cash_flow_margin": ("free cash flow margin", "(cash from operations - capital "
                              "expenditure) / revenue * 100", "%"),
})
BETTER: dict[str, str] = {
    **dict.fromkeys(("gross_margin", "operating_margin", "net_margin", "ebitda_margin", "roa",
                     "roe", "interest_coverage", "asset_turnover", "inventory_turnover",
                     "ebitda", "free_cash_flow", "fixed_asset_turnover", "receivables_turnover",
                     "free_cash_flow_margin"), "higher"),
    **dict.fromkeys(("dso", "dio", "debt_to_equity", "cash_conversion_cycle"), "lower"),
}
"""The direction a :data:`METRICS` key is plainly better in; a metric read either way (a
liquidity ratio, DPO, a tax rate, capex, a payout) has none."""
_OPTIONAL = frozenset({"short_term_investments", "short_term_debt"})  # absent: counted as 0
Period = int | str
"""A fiscal year (2023), or a statement's period column (``q2023_06_30``)."""
_PERIOD_COLUMN = re.compile(r"(fy|d|q|m6_|m9_)((?:19|20)\d{2})(_\d{2}_\d{2})?")
_QUARTER_COLUMN = re.compile(r"q((?:19|20)\d{2})_(\d{2})_(\d{2})")
_ANNUAL_COLUMN = re.compile(r"(fy|d)((?:19|20)\d{2})(?:_\d{2}_\d{2})?")


@dataclass
class Figure:
    """One input: the line item as printed, its period column, value, document and page."""

    term: str
    line_item: str
    statement: str
    period: str
    value: float
    document_id: str
    page: int | None
    sql: str


@dataclass
class MetricResult:
    """A computed metric, or why it could not be computed (``error``)."""

    metric: str
    formula: str
    worked: str = ""
    value: float | None = None
    rounded: float | None = None
    decimals: int = 2
    unit: str = ""
    inputs: list[Figure] = field(default_factory=list)
    error: str | None = None

    @property
    def sql(self) -> list[str]:
        """The SELECT that read each input, in order."""
        return [figure.sql for figure in self.inputs]

    def text(self) -> str:
        """``DPO = 365 × ... = 16.02 days`` with each input's page, or the error."""
        if self.error:
            return f"{self.metric}: {self.error}"
        unit = {"%": "%", "days": " days", "ratio": ""}.get(self.unit, f" ({self.unit})"
                                                           if self.unit else "")
        cited = "; ".join(f"{f.line_item} {f.period} = {f.value:,.10g} (p. {f.page})"
                          for f in self.inputs)
        value = f"{self.rounded:,}" if self.rounded is not None else ""
        return f"{self.metric} = {self.formula}\n= {self.worked} = {value}{unit}\n{cited}"


class StatementFigures:
    """The statement tables of one document and their rows, read by SQL."""

    def __init__(self, tables: list[StoredTable], rows: Mapping[str, list[list[Cell]]]) -> None:
        self.tables = {t.name: t for t in tables if t.name in STATEMENTS}
        self.rows = rows

    @classmethod
    def of_document(cls, store: TableStore, collection: str, document_id: str
                    ) -> StatementFigures:
        """The statements of one stored document (none: every figure is refused)."""
        tables = [t for t in store.tables(collection, {document_id}) if t.name in STATEMENTS]
        return cls(tables, store.rows(collection, [t.table_id for t in tables]))

    def quarter_column(self, end: date) -> str | None:
        """The three-month column (``q2023_06_30``) of a quarter ending on ``end``.

        Read from the income statement, else the cash-flow statement; a column ending within
        a week of ``end`` is that quarter (52/53-week years). ``None`` when neither has one.
        """
        for kind in ("income_statement", "cash_flow_statement"):
            table = self.tables.get(kind)
            for column in table.columns if table is not None else []:
                match = _QUARTER_COLUMN.fullmatch(column)
                if match and abs((date(*map(int, match.groups())) - end).days) <= 7:
                    return column
        return None

    def unit(self) -> str:
        """The scale the statements print in (``millions``), or ``""``."""
        return next((t.unit for t in self.tables.values() if t.unit), "")

    @staticmethod
    def _column(table: StoredTable, period: Period, shift: int) -> str | None:
        """The column of ``period`` moved back ``shift`` years.

        A fiscal year is its full-year column, else its balance at a date; a column name
        (``q2023_06_30``) is that column, or in a balance sheet the balance at its date.
        """
        if isinstance(period, str):
            match = _PERIOD_COLUMN.fullmatch(period)
            if match is None:
                return period if shift == 0 and period in table.columns else None
            prefix, year, rest = match.groups()
            for name in (f"{prefix}{int(year) - shift}{rest}", f"d{int(year) - shift}{rest}"):
                if name in table.columns:
                    return name
            return None
        found: dict[str, str] = {}
        for column in table.columns:
            match = _ANNUAL_COLUMN.fullmatch(column)
            if match and int(match.group(2)) == period - shift:
                found.setdefault(match.group(1), column)
        return found.get("fy") or found.get("d")

    def _tax_signed(self, table: StoredTable, column: str, printed: float) -> float:
        """The income tax as an expense (a benefit negative), whatever sign it is printed in.

        Income before taxes less net income gives the sign when its size is the printed
        one; otherwise the printed size is used.
        """
        found = _tax_identity(table, self.rows.get(table.table_id, []), column)
        if found is not None and abs(abs(found) - abs(printed)) <= max(1.0, abs(printed) / 200):
            return found
        return abs(printed)

    def _statement_of(self, concept: Concept) -> StoredTable | None:
        """The statement a concept is read from; a label's, the first that prints it."""
        if concept.statement:
            return self.tables.get(concept.statement)
        for kind in STATEMENTS:
            table = self.tables.get(kind)
            labels = [str(row[0]) for row in self.rows.get(table.table_id, [])] if table else []
            if table is not None and matching_row(concept, labels) is not None:
                return table
        raise FormulaError(f"no line item for {concept.name} in the statements")

    def figure(self, concept: Concept, year: Period, shift: int, term: str) -> Figure:
        """The concept's value for ``year`` (or the period ``shift`` years before), by SQL."""
        table = self._statement_of(concept)
        if table is None:
            raise FormulaError(f"no {concept.statement.replace('_', ' ')} was found in the filing")
        column = self._column(table, year, shift)
        named = _period_text(year, shift)
        if column is None:
            raise FormulaError(f"the {table.name.replace('_', ' ')} has no column for "
                               f"{named}")
        labels = [str(row[0]) for row in self.rows.get(table.table_id, [])]
        index = matching_row(concept, labels)
        if index is None and concept.name in _OPTIONAL:
            return Figure(term, f"{concept.name.replace('_', ' ')} (not in the statement: 0)",
                          table.name, column, 0.0, table.document_id, None, "")
        if index is None:
            raise FormulaError(f"no line item for {concept.name.replace('_', ' ')} in the "
                               f"{table.name.replace('_', ' ')}")
        label = labels[index].replace("'", "''")
        sql = (f"SELECT line_item, {quote(column)}, page FROM {quote(table.name)} "
               f"WHERE line_item = '{label}'")
        found = run_select([table], self.rows, sql).rows
        value = found[0][1] if found else None
        if not isinstance(value, int | float):
            if concept.name not in _OPTIONAL:
                raise FormulaError(f"{labels[index]} has no figure for {named}")
            value = 0
        page = found[0][2] if found and isinstance(found[0][2], int) else table.page_start
        number = abs(float(value)) if concept.cost else float(value)
        if concept.name == "income_tax":
            number = self._tax_signed(table, column, float(value))
        return Figure(term, labels[index], table.name, column, number,
                      table.document_id, page, sql)


_PRETAX = CONCEPTS["pretax_income"]
_NET_INCOME = re.compile(r"net (?:income|earnings)(?: \(loss\))?$")


def _number_in(rows: list[list[Cell]], at: int, column: int) -> float | None:
    value = rows[at][column] if 0 <= column < len(rows[at]) else None
    return float(value) if isinstance(value, int | float) else None


def _tax_identity(table: StoredTable, rows: list[list[Cell]], column: str) -> float | None:
    """Income before taxes less net income in one column (the tax, signed), or ``None``."""
    labels = [str(row[0]) for row in rows]
    pretax = matching_row(_PRETAX, labels)
    net = next((i for i, label in enumerate(labels) if _NET_INCOME.match(label_key(label))),
               None)
    if pretax is None or net is None or column not in table.columns:
        return None
    at = table.columns.index(column)
    before, after = _number_in(rows, pretax, at), _number_in(rows, net, at)
    return None if before is None or after is None else before - after


def _period_text(period: Period, shift: int) -> str:
    """``fiscal 2022``, or a period column moved back ``shift`` years (``q2022_06_30``)."""
    if isinstance(period, int):
        return f"fiscal {period - shift}"
    match = _PERIOD_COLUMN.fullmatch(period)
    if match is None or not shift:
        return period
    return f"{match.group(1)}{int(match.group(2)) - shift}{match.group(3) or ''}"


def round_half_up(value: float, decimals: int) -> float:
    """``value`` rounded half up to ``decimals`` places (2.675 to 2 places is 2.68)."""
    step = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(value)).quantize(step, rounding=ROUND_HALF_UP))


def _shown(value: float) -> str:
    return f"{value:,.10g}"


def compute(formula: str, statements: StatementFigures, year: Period, decimals: int = 2,
            metric: str | None = None, unit: str = "") -> MetricResult:
    """A metric of fiscal ``year``: a name from :data:`METRICS` or a formula as written.

    ``year`` is a fiscal year, or a period column (``q2023_06_30``: that quarter, its prior
    period the same quarter a year before).

    ``decimals`` rounds the result. The result's ``error`` says why it could not be
    computed (a line item, a period column or a figure missing, or a term not understood).
    """
    if formula in METRICS:
        metric, text, unit = METRICS[formula]
    else:
        text = formula
    if unit == "amount":
        unit = statements.unit()
    result = MetricResult(metric or "result", text, decimals=decimals, unit=unit)
    try:
        parsed = parse_formula(text)
        values, shown = _inputs(parsed, statements, year, result)
        result.value = parsed.evaluate(values)
    except FormulaError as exc:
        result.error = str(exc)
        return result
    result.rounded = round_half_up(result.value, decimals)
    result.worked = parsed.written(shown)
    return result


def _inputs(parsed: Formula, statements: StatementFigures, year: Period,
            result: MetricResult) -> tuple[dict[str, float], dict[str, str]]:
    values: dict[str, float] = {}
    shown: dict[str, str] = {}
    for index, term in enumerate(parsed.terms):
        name = f"t{index}"
        now = None if term.modifier == "prior" else statements.figure(
            term.concept, year, 0, term.text)
        before = statements.figure(term.concept, year, 1, term.text) \
            if term.modifier != "current" else None
        seen = {(f.statement, f.period, f.line_item) for f in result.inputs}
        result.inputs.extend(f for f in (now, before)
                             if f is not None and (f.statement, f.period, f.line_item) not in seen)
        if term.modifier == "average" and now and before:
            values[name] = (now.value + before.value) / 2
            shown[name] = f"(({_shown(now.value)} + {_shown(before.value)}) / 2)"
        elif term.modifier == "change" and now and before:
            values[name] = now.value - before.value
            shown[name] = f"({_shown(now.value)} - {_shown(before.value)})"
        else:
            figure = now or before
            assert figure is not None
            values[name] = figure.value
            shown[name] = _shown(figure.value)
    return values, shown


def growth(concept_phrase: str, statements: StatementFigures, year: Period,
           decimals: int = 2) -> MetricResult:
    """The growth of a line item from the prior fiscal year to ``year``, in percent."""
    text = f"({concept_phrase} - prior {concept_phrase}) / prior {concept_phrase} * 100"
    return compute(text, statements, year, decimals, metric=f"{concept_phrase} growth", unit="%")
