"""Standard line items of financial statements and the labels filings print them under.

Pure data and matching. A concept (``revenue``, ``accounts_payable`` ...) is found in one
statement by the first of its label patterns that matches a row's line item, so the total
(``Total net revenues``) is preferred to its parts. A phrase of a question or a formula
(``COGS``, ``cost of goods sold``, ``payables``) is mapped to a concept by its aliases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CONCEPTS", "Concept", "concept_named", "label_concept", "label_key", "matching_row"]


@dataclass(frozen=True)
class Concept:
    """A line item: the statement it is read from, its label patterns, its other names."""

    name: str
    statement: str
    labels: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    cost: bool = False
    """Printed as a negative number by some filers: its size is used."""


_I, _B, _C = "income_statement", "balance_sheet", "cash_flow_statement"
CONCEPTS = {c.name: c for c in (
    Concept("revenue", _I, (r"total (?:net )?revenues?", r"(?:net )?revenues?", r"total net sales",
                            r"net sales", r"total sales", r"sales", r"net revenues? and other"),
            ("revenue", "revenues", "sales", "net sales", "net revenue", "net revenues",
             "total revenue", "turnover", "top line")),
    Concept("cost_of_revenue", _I, (r"total cost of (?:revenues?|sales|goods sold)",
                                    r"cost of (?:revenues?|sales|goods sold|products sold)\b.*",
                                    r"cost of goods and services sold"),
            ("cogs", "cost of goods sold", "cost of sales", "cost of revenue",
             "cost of revenues", "cost of products sold"), cost=True),
    Concept("gross_profit", _I, (r"gross (?:profit|margin)",), ("gross profit",)),
    Concept("operating_income", _I, (r"operating income(?: \(loss\))?",
                                     r"income \(loss\) from operations", r"income from operations",
                                     r"operating (?:profit|earnings)"),
            ("operating income", "operating profit", "income from operations", "ebit")),
    Concept("net_income", _I, (r"net (?:income|earnings) attributable to (?!non).*",
                               r"net income(?: \(loss\))?", r"net earnings",
                               r"net (?:income|earnings) .*"),
            ("net income", "net earnings", "net profit", "profit")),
    Concept("interest_expense", _I, (r"interest expense(?:, net)?",), ("interest expense",),
            cost=True),
    Concept("pretax_income", _I, (r"(?:income|earnings|profit) (?:\(loss\) )?before (?:provision "
                                  r"for )?(?:income )?tax(?:es)?.*",
                                  r"pre-?tax (?:income|earnings|profit).*",
                                  r"(?:income|earnings)\b.* before (?:provision|income tax|tax).*"),
            ("income before income taxes", "income before taxes", "pretax income",
             "pre-tax income", "earnings before income taxes", "earnings before taxes", "ebt",
             "profit before tax", "profit before taxes", "income before provision for income "
             "taxes")),
    Concept("income_tax", _I, (r"(?:provision for|benefit from|\(benefit\)|provision).*income "
                               r"taxes.*", r"(?:provision|benefit).*taxes on income.*",
                               r"income tax (?:expense|provision).*",
                               r"income taxes?(?: expense)?(?: \(benefit\))?"),
            ("income tax", "income taxes", "tax expense", "provision for income taxes",
             "provision for income tax", "income tax expense", "income tax provision",
             "income tax expense benefit", "provision for benefit from income taxes", "taxes"),
            cost=True),
    Concept("depreciation_amortization", _C, (r"depreciation(?:,| and) (?:depletion and )?"
                                              r"amortization.*", r"depreciation.*"),
            ("depreciation and amortization", "d&a", "depreciation"), cost=True),
    Concept("capital_expenditure", _C, (r"(?:purchases? of|capital expenditures?|additions to) "
                                        r"property.*", r"capital expenditures?.*"),
            ("capex", "capital expenditure", "capital expenditures"), cost=True),
    Concept("operating_cash_flow", _C, (r"net cash (?:provided by|from|used in|\(used in\)).*"
                                        r"operating activities",),
            ("cash from operations", "operating cash flow", "cash flow from operations",
             "cash flows from operations", "cash from operating activities",
             "net cash provided by operating activities", "net cash from operating activities",
             "net cash used in operating activities", "cash flow from operating activities",
             "net cash provided by used in operating activities")),
    Concept("dividends_paid", _C, (r"(?:cash )?dividends paid.*", r"payments? of (?:cash )?"
                                   r"dividends.*", r"dividends.*"),
            ("dividends paid", "dividends", "cash dividends paid", "dividend payments"),
            cost=True),
    Concept("cash", _B, (r"cash and cash equivalents", r"cash and equivalents", r"cash"),
            ("cash", "cash and cash equivalents")),
    Concept("short_term_investments", _B, (r"short-term investments", r"marketable securities",
                                           r"short-term marketable securities"),
            ("short-term investments", "marketable securities")),
    Concept("accounts_receivable", _B, (r"(?:trade )?accounts receivable.*",
                                        r"trade receivables.*", r"receivables.*"),
            ("accounts receivable", "receivables", "trade receivables")),
    Concept("inventory", _B, (r"inventor(?:y|ies).*", r"merchandise inventor(?:y|ies)"),
            ("inventory", "inventories")),
    Concept("total_current_assets", _B, (r"total current assets",), ("current assets",)),
    Concept("property_and_equipment", _B, (
        r"property(?:, plant,?)? (?:and|&) equipment, net.*",
        r"net property(?:, plant,?)? (?:and|&) equipment.*",
        r"property(?:, plant,?)? (?:and|&) equipment(?: \(net\)|(?: -)? net)?"),
        ("pp&e", "net pp&e", "ppe", "property and equipment", "net property and equipment",
         "property, plant and equipment", "net property, plant and equipment",
         "property plant and equipment", "fixed assets")),
    Concept("total_assets", _B, (r"total assets",), ("total assets", "assets")),
    Concept("accounts_payable", _B, (r"(?:trade )?accounts payable.*", r"trade payables.*",
                                     r"accounts payable and accrued.*"),
            ("accounts payable", "payables", "trade payables")),
    Concept("total_current_liabilities", _B, (r"total current liabilities",),
            ("current liabilities",)),
    Concept("long_term_debt", _B, (r"long-term debt(?:, net)?(?:,? (?:less|excluding|net of) "
                                   r"current (?:portion|maturities))?.*",
                                   r"long-term borrowings.*"),
            ("long-term debt", "long term debt", "long-term borrowings")),
    Concept("short_term_debt", _B, (r"short-term (?:debt|borrowings).*",
                                    r"current (?:portion|maturities) of long-term debt.*",
                                    r"(?:commercial paper|notes payable)(?: and .*)?"),
            ("short-term debt", "short term debt", "short-term borrowings",
             "current portion of long-term debt", "current maturities of long-term debt",
             "current debt")),
    Concept("total_liabilities", _B, (r"total liabilities",), ("total liabilities", "liabilities")),
    Concept("total_equity", _B, (r"total (?:stockholders|shareholders|shareowners)'? equity.*",
                                 r"(?:stockholders|shareholders)'? equity.*", r"total equity"),
            ("equity", "shareholders equity", "stockholders equity", "shareowners equity",
             "total equity")),
)}


def label_key(text: str) -> str:
    """A line item as compared: lower case, curly quotes and spaces made plain."""
    text = text.replace("’", "'").replace("\u00a0", " ").casefold()
    return " ".join(re.sub(r"\s*\(\d+\)$", "", text).split()).strip(" :")


def matching_row(concept: Concept, labels: list[str]) -> int | None:
    """The index of the row ``concept`` is printed on, by its first pattern that matches."""
    keys = [label_key(label) for label in labels]
    for pattern in concept.labels:
        compiled = re.compile(pattern + r"$")
        for index, key in enumerate(keys):
            if compiled.match(key):
                return index
    return None


_OUTFLOW = re.compile(r"\b(?:expenses?|costs?|purchases?|payments?|paid|dividends|repurchases?|"
                      r"buy-?backs?|additions)\b")


def label_concept(phrase: str) -> Concept | None:
    """A line item named by its printed label (``net income attributable to Alder plc``).

    It matches, in any statement, the row whose label has the phrase's words in order
    (punctuation aside), else the first row whose label starts with them. A label naming
    a cost or an outflow (``expenses``, ``purchases``, ``dividends``) is taken by its size,
    as a cost is. ``None`` for a phrase with no word.
    """
    key = label_key(phrase.replace("’", "'"))
    words = re.findall(r"[\w&]+", key)
    if not words:
        return None
    joined = r"[\W_]*".join(re.escape(word) for word in words)
    return Concept(" ".join(words), "", (rf"{joined}[\W_]*", rf"{joined}\b.*"),
                   cost=bool(_OUTFLOW.search(key)))


def concept_named(phrase: str) -> Concept | None:
    """The concept a phrase names (``COGS``, ``the accounts payable``), or ``None``.

    Case, apostrophes and other punctuation do not count (``stockholders' equity``). Net
    income "attributable to" the company or its shareholders is net income; to
    noncontrolling interests it is not.
    """
    key = " ".join(re.sub(r"[^\w& -]+", " ", phrase.replace("'", "").replace("’", "")
                          .casefold()).split())
    key = re.sub(r"^(?:the|total|a|an)\s+", "", key)
    key = re.sub(r"\s+(?:for the year|of the year|for the period|in the year)$", "", key)
    key = re.sub(r"^(net (?:income|earnings|profit)) attributable to (?!non).*$", r"\1", key)
    for concept in CONCEPTS.values():
        names = {concept.name.replace("_", " "), *concept.aliases}
        if key in names or f"total {key}" in names:
            return concept
    return None
