"""How a question names each standard metric of :data:`archivist.filings.metrics.METRICS`.

One pattern per metric key, matched case-insensitively. A name that contains another's
("fixed asset turnover" holds "asset turnover", "free cash flow margin" holds "free cash
flow") is kept out of the shorter one's pattern, so a question names exactly one metric
(:func:`archivist.filings.asked.standard_metric` takes a name only when one matches).
"""

from __future__ import annotations

__all__ = ["METRIC_NAMES"]

METRIC_NAMES: tuple[tuple[str, str], ...] = (
    ("gross_margin", r"gross (?:profit )?margin"),
    ("operating_margin", r"operating (?:profit |income )?margin"),
    ("net_margin", r"net (?:profit |income )?margin|(?<!gross )(?<!operating )\bprofit margin"),
    ("dpo", r"days? (?:of )?payables? outstanding|\bDPO\b"),
    ("dso", r"days? (?:of )?sales outstanding|\bDSO\b"),
    ("dio", r"days? (?:of )?inventory outstanding|days? in inventory|days? sales (?:of|in) "
            r"inventory|\bDIO\b|\bDSI\b"),
    ("cash_conversion_cycle", r"cash conversion cycle|\bCCC\b"),
    ("working_capital_ratio", r"working capital ratio"),
    ("working_capital", r"working capital(?! ratio)"),
    ("current_ratio", r"current ratio"),
    ("quick_ratio", r"quick ratio|acid[- ]test ratio"),
    ("cash_ratio", r"\bcash ratio\b"),
    ("operating_cash_flow_ratio", r"\boperating cash flows? ratio\b|\bcash flows? from "
                                  r"operations ratio\b"),
    ("ebitda", r"\bEBITDA\b(?!\s+margin)"),
    ("ebitda_margin", r"\bEBITDA margin\b"),
    ("debt_to_equity", r"\bdebt[- ]to[- ](?:total )?(?:(?:share|stock)holders['’]? )?equity\b"
                       r"|\bD/E\b"),
    ("payout_ratio", r"\b(?:dividend )?payout ratio\b"),
    ("retention_ratio", r"\b(?:earnings )?retention ratio\b|\bplowback ratio\b"),
    ("asset_turnover", r"\b(?<!fixed )(?<!fixed-)(?:total )?assets? turnover\b"),
    ("fixed_asset_turnover", r"\bfixed[- ]assets? turnover\b|\bPP&E turnover\b"),
    ("inventory_turnover", r"\binventory turnover\b"),
    ("receivables_turnover", r"\b(?:accounts )?receivables? turnover\b"),
    ("payables_turnover", r"\b(?:accounts )?payables? turnover\b"),
    ("roa", r"return on (?:average )?(?:total )?assets|\bROA\b"),
    ("roe", r"return on (?:average )?(?:(?:total |common )?(?:share|stock)holders'? )?equity"
            r"|\bROE\b"),
    ("capex", r"capital expenditures?|\bcapex\b"),
    ("free_cash_flow", r"free cash flows?(?! margin)|\bFCF\b(?! margin)"),
    ("free_cash_flow_margin", r"free cash flow margin|\bFCF margin\b"),
    ("effective_tax_rate", r"effective (?:income )?tax rate|\bETR\b"),
    ("interest_coverage", r"interest coverage(?: ratio)?|times interest earned"),
)
"""``(METRICS key, pattern)``, the longer names' keys after the shorter ones they contain."""
