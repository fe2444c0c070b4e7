"""Which metric a question asks for: its own formula, a standard metric, or a growth.

Pure functions over a question's text and the definitions given with it. A question asks
for a metric when it defines one ("DPO is defined as: 365 * ..."), names one of
:data:`archivist.filings.metrics.METRICS` ("days payable outstanding", "current ratio",
"EBITDA"), or names the growth of a line item ("revenue growth", "growth in net income").
A percent metric (a margin, a rate, a return) whose own formula gives a fraction is shown
in percent. It asks for one fiscal year's value, or the metric's change or mean across the
years :func:`archivist.filings.comparison.across_years` reads (then ``across`` says which); a
question about why a figure moved, an adjusted (non-GAAP) figure, another comparison, or
several years of a growth (two consecutive ones are one growth) asks for no computation, and
gets ``None`` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from archivist.filings.asked_items import item_of, item_words, line_item, without_owner
from archivist.filings.comparison import Across, across_years
from archivist.filings.concepts import concept_named
from archivist.filings.definitions import asked_definition, definitions_in, without_definitions
from archivist.filings.metric_names import METRIC_NAMES
from archivist.filings.metrics import METRICS
from archivist.filings.scope import named_years

__all__ = ["AskedMetric", "asked_metric", "standard_metric"]

_PATTERNS = [(key, re.compile(pattern, re.I)) for key, pattern in METRIC_NAMES]
_PATTERN = dict(_PATTERNS)
_NOT_A_VALUE = re.compile(
    r"^\W*(?:why|explain|describe|discuss|summari[sz]e)\b|\b(?:drove|drivers?|caused?|"
    r"reasons?|because|impact(?:ed)?|affect(?:ed)?|contribut\w*|which|highest|lowest|largest|"
    r"smallest|best|worst|rank\w*|segments?|divisions?|regions?|guidance|forecast\w*|"
    r"expect\w*|targets?)\b", re.I)
_ADJUSTED = re.compile(r"\b(?:adjusted|non-GAAP|normali[sz]ed|underlying|pro forma)\b", re.I)
#: A capitalised word inside a sentence: part of a name ("Best Buy", "Target", "Express");
#: a segment, division or region stays a segment when a name is written before it.
_NAME_WORD = re.compile(r"(?<![.?!:]\s)(?<=\s)(?!(?:Segments?|Divisions?|Regions?)\b)"
                        r"[A-Z][\w&'’.-]*")
_COMPARED = re.compile(
    r"\b(?:changes?|changed|compared?|comparison|differen\w*|trend|increased?|decreased?|"
    r"improved?|declined?|higher|lower|each year|per year|average|over the (?:last|past))\b",
    re.I)
_RATIO_OF = re.compile(
    r"\b(?:as an? (?:percent(?:age)?|%|share|proportion|fraction)|ratio|divided by|relative "
    r"to|per share|to (?:total )?(?:revenues?|sales|assets|equity))\b", re.I)
_TIMES_100 = re.compile(r"[*×x]\s*100\b(?!\s*[,.]?\d)", re.I)
_PERCENT_NAME = re.compile(r"\b(?:margin|rate|return|yield|growth|percent(?:age)?)\b", re.I)
_NOT_PERCENT_NAME = re.compile(r"\b(?:ratio|turnover|coverage|multiple|days?)\b", re.I)
_MULTI_YEAR = re.compile(r"\b(?:CAGR|compound(?:ed)? annual|average|each year|per year)\b",
                         re.I)
_WORD = r"[\w'’&.-]+"
_GROWTH_AFTER = re.compile(rf"((?:{_WORD}\s+){{0,6}}?{_WORD})\s+growth\b", re.I)
_GROWTH_BEFORE = re.compile(
    r"\b(?:growth(?: rate)?|percent(?:age)? (?:change|increase|decrease|growth)|"
    r"(?:year[- ]over[- ]year|yoy|annual) (?:change|increase|decrease|growth))\s+(?:in|of)\s+"
    r"(.+)", re.I)
_GROWTH_VERB = re.compile(
    r"\bby (?:what|how much) (?:percent(?:age)?|%) did (.+?)\s+(?:grow|increase|decrease|"
    r"decline|change|rise|fall)\b", re.I)
_LOOKUP = re.compile(r"^\s*what (?:is|was|were|are)\s+(?P<item>.+?)\s*\??\s*$", re.I)
_HOW_MUCH = re.compile(r"^\s*how much\s+(?P<item>.+?)\s+(?:did|does|do)\s+(?:[\w&.'’-]+\s+){1,4}?"
                       r"(?:report|record|have|hold|earn|generate|post|book|make)\b(?P<rest>.*)$",
                       re.I)
#: Instructions asking for a percentage ("Answer as a percentage change", "in %").
_PERCENT_ASKED = re.compile(r"\bpercent(?:age)?\b|%", re.I)
_CHANGE_BY = re.compile(r"^\s*by how much did\s+(?P<item>.+?)\s+(?:grow|increase|decrease|"
                        r"decline|change|rise|fall)\b", re.I)
_AVERAGE_ASKED = re.compile(r"^\s*what (?:is|was|were|are)\s+(?P<owner>.*?)\baverage\s+(?:of\s+)?"
                            r"(?:the\s+)?(?P<item>.+?)\s*\??\s*$", re.I)
_SHARE_OF = re.compile(r"^\s*what (?:percentage|percent|share|proportion|fraction) of\s+"
                       r"(?P<base>.+?)\s+(?:did|does|do|was|were|is|are|went)\s+(?P<rest>.+?)"
                       r"\s*\??\s*$", re.I)
_SPENT_ON = re.compile(r"\b(?:spen[dt]|used?|paid|pay|invest(?:ed)?|go|went|allocated?)\s+"
                       r"(?:on|to|for|in)\s+(?P<item>.+)$", re.I)
_RATIO_TO = re.compile(r"^\s*what (?:is|was|were|are)\s+(?:the\s+|its\s+)?(?:.+?\s+)?"
                       r"ratio\s+of\s+(?P<item>.+?)\s+(?:to|and)\s+(?P<base>.+?)\s*\??\s*$|"
                       r"^\s*what (?:is|was|were|are)\s+(?P<item2>.+?)\s+to\s+(?P<base2>.+?)\s+"
                       r"ratio\s*\??\s*$", re.I)
_AS_SHARE = re.compile(r"^\s*what (?:is|was|were|are)\s+(?P<item>.+?)\s+as an? (?:percent(?:age)?|"
                       r"share|proportion|%) of\s+(?P<base>.+?)\s*\??\s*$", re.I)
#: A yes/no question about a line item's movement ("Did X's net sales grow in FY2023?").
_MOVED_ITEM = re.compile(r"^\s*(?:did|has|have|had|was|were|is|are)\s+(?P<item>.+?)\s+(?:been\s+)?"
                         r"(?:grow|grown|grew|increased?|decreased?|declined?|rise|risen|rose|"
                         r"fall|fallen|fell|drop|dropped|higher|lower)\b", re.I)
_CHANGE_IN = re.compile(r"^(?:the\s+)?(?:change|difference|increase|decrease|decline|rise|"
                        r"fall|drop)\s+in\s+", re.I)
_PHRASE_END = re.compile(r"\s+(?:from|between|in|for|during|over|at|year[- ]over[- ]year|yoy|"
                         r"compared|versus|vs)\b.*$|[?,;:].*$", re.I)


@dataclass(frozen=True)
class AskedMetric:
    """A metric a question asks for, and the fiscal year it names (``None``: not named).

    ``formula`` is a :data:`METRICS` key or a formula as the question wrote it;
    ``growth_of`` the line item whose growth is asked (then ``formula`` is empty). ``unit``
    is the unit of a question's own formula (``%``, ``days``, ``amount`` or ``""``).
    ``across`` is set when its change or mean across fiscal years is asked (then ``year``
    is the last of them).
    """

    name: str
    formula: str = ""
    growth_of: str = ""
    unit: str = ""
    year: int | None = None
    across: Across | None = None


def standard_metric(text: str) -> str | None:
    """The :data:`METRICS` key ``text`` names, when it names exactly one."""
    found = {key for key, pattern in _PATTERNS if pattern.search(text)}
    return found.pop() if len(found) == 1 else None


def _formula_unit(name: str, formula: str) -> str:
    key = standard_metric(name)
    if key is not None:
        return METRICS[key][2]
    if re.search(r"/|÷|\bdivided by\b|\bover\b", formula, re.I):
        if _TIMES_100.search(formula) or (_PERCENT_NAME.search(name)
                                          and not _NOT_PERCENT_NAME.search(name)):
            return "%"
        return ""
    return "amount"


def _with_metrics(formula: str) -> str:
    """A formula with each amount metric it names (EBITDA, free cash flow) put as its formula."""
    for key in ("ebitda", "free_cash_flow", "working_capital"):
        replacement = f"({METRICS[key][1]})"
        formula = _PATTERN[key].sub(lambda _m: replacement, formula)  # noqa: B023
    return formula


def _in_percent(formula: str, unit: str) -> str:
    """A percent metric's formula that yields a fraction (no ``* 100``) made to yield percent."""
    return f"({formula}) * 100" if unit == "%" and not _TIMES_100.search(formula) else formula


def _growth_of(question: str) -> str | None:
    """The line item whose growth ``question`` asks for, as it names it, or ``None``."""
    for match in _GROWTH_AFTER.finditer(question):
        found = line_item(match.group(1), from_end=True)
        if found:
            return found
    for pattern in (_GROWTH_BEFORE, _GROWTH_VERB):
        found_at = pattern.search(question)
        if found_at:
            phrase = _PHRASE_END.sub("", found_at.group(1))
            phrase = re.sub(r"^(?:the\s+|its\s+)?(?:[\w&.-]+\s+){0,3}?[\w&.-]+['’]s?\s+|"
                            r"^(?:the\s+|its\s+)", "", phrase, flags=re.I)
            found = line_item(phrase, from_end=pattern is _GROWTH_VERB)
            if found:
                return found
    return None


def _share_asked(asked: str, years: list[int]) -> AskedMetric | None:
    """A line item as a percentage of another in one year ("R&D as a percentage of sales").

    Asked as "What was X's R&D as a percentage of net sales?", "What percentage of its
    revenue did X spend on marketing?" or "What proportion of X's revenue was gross
    profit?" (then the part too must be a known line item); the base must be a known one.
    """
    found = _AS_SHARE.match(asked)
    if found is not None:
        item, base = found.group("item"), found.group("base")
    else:
        found = _SHARE_OF.match(asked)
        if found is None:
            return None
        spent = _SPENT_ON.search(found.group("rest"))
        item, base = spent.group("item") if spent else "", found.group("base")
        if spent is None:  # "what proportion of its revenue was gross profit": a known item
            item = found.group("rest") if item_of(found.group("rest")) else ""
    item_named, base_named = item_words(item), item_of(base)
    if item_named is None or base_named is None or len(years) > 1:
        return None
    return AskedMetric(f"{item_named} as a percentage of {base_named}",
                       _with_metrics(f"{item_named} / {base_named} * 100"), unit="%",
                       year=years[0] if years else None)


def _ratio_term(phrase: str) -> str | None:
    """A line item, or an amount metric as its formula ("EBITDA"), a ratio's term names."""
    item = item_of(phrase)
    if item is not None:
        return item
    key = standard_metric(phrase)
    return f"({METRICS[key][1]})" if key and METRICS[key][2] == "amount" else None


def _ratio_asked(asked: str, years: list[int]) -> AskedMetric | None:
    """One amount divided by another in one year ("the ratio of capex to revenue").

    Asked as "What is the ratio of X's FY2024 capital expenditures to its revenue?" or
    "What is X's FY2024 capex to revenue ratio?"; both must be known line items or amount
    metrics (EBITDA, free cash flow), else no ratio is read.
    """
    found = _RATIO_TO.match(asked)
    if found is None or len(years) > 1:
        return None
    item = found.group("item") or found.group("item2")
    base = found.group("base") or found.group("base2")
    item_term, base_term = _ratio_term(item), _ratio_term(base)
    if item_term is None or base_term is None:
        return None
    return AskedMetric(f"ratio of {item_term.strip('()')} to {base_term.strip('()')}",
                       f"{item_term} / {base_term}", unit="", year=years[0] if years else None)


def _average_asked(asked: str, years: list[int]) -> AskedMetric | None:
    """A balance's average over a fiscal year and the one before ("average total assets")."""
    found = _AVERAGE_ASKED.match(asked)
    item = item_of(found.group("item")) if found else None
    if item is None or not years or len(years) > 2 or years[-1] - years[0] > 1:
        return None
    return AskedMetric(f"average {item}", f"average {item}", unit="amount", year=years[-1])


def without_names(question: str) -> str:
    """``question`` with its capitalised words inside a sentence blanked out.

    A company's name is made of words ("Best Buy", "Target", "Expedia"), and the words of
    a name never ask for a ranking, a reason or a segment: only the question's own words
    are read for what it asks.
    """
    return _NAME_WORD.sub("_", question)


def _asks_more(asked: str) -> bool:
    """Whether a question asks for more than a value: a reason, a ranking, an adjusted figure."""
    return bool(_NOT_A_VALUE.search(without_names(asked)) or _ADJUSTED.search(asked))


def _line_item_across(across: Across) -> AskedMetric | None:
    """A line item's change, mean or sum across the years ``across`` names.

    Asked as "What was X's cumulative operating income over fiscal 2019 through 2021?",
    "What is the average net income of X from 2019 to 2021?", "What was the change in X's
    operating income from 2019 to 2021?", "By how much did X's net sales grow from 2019
    to 2021?" or "Did X's net sales grow in 2021?" (from the year before). A balance
    (total assets) is never summed or averaged so: only its change is.
    """
    if across.kind == "each":  # each year's line item: the table path lists them
        return None
    change = across.kind == "change"
    by = (_CHANGE_BY.search(across.question) or _MOVED_ITEM.match(across.question)) \
        if change else None
    found = by or _LOOKUP.match(across.question)
    phrase = found.group("item") if found else ""
    if change and by is None:  # "what was the change in X ...", not "what was X ... vs ..."
        # "X's FY2022 to FY2023 change in ...": the owner and the span come first
        start = phrase if _CHANGE_IN.match(phrase) else without_owner(phrase)
        stripped = _CHANGE_IN.sub("", start)
        phrase = "" if stripped == start else stripped
    item = item_of(phrase)
    concept = concept_named(item or "") or concept_named(re.sub(r"^net\s+", "", item or ""))
    if item is None or (concept and concept.statement == "balance_sheet" and not change):
        return None
    return replace(AskedMetric(item, item, unit="amount"), across=across,
                   year=across.years[-1] if across.years else None)


def _line_item_asked(asked: str, years: list[int], in_percent: bool = False,
                     across: Across | None = None) -> AskedMetric | None:
    """A line item's value in one year, its change from the year before, or ``across`` years.

    "What was X's operating income in 2023?" or "How much revenue did X report in 2023?"
    asks the value, "By how much did X's net
    sales grow from 2022 to 2023?" the change, its growth when ``in_percent`` (the
    instructions ask for a percentage). A sum or a mean across years, or a change between
    years further apart, is :func:`_line_item_across`. Only a question naming the line item
    alone (no segment, no other qualifier) is one.
    """
    if _asks_more(asked):
        return None
    average, change = _average_asked(asked, years), _CHANGE_BY.search(asked)
    if average is None and across is not None and (
            change is None or len(years) > 2 or years[-1] - years[0] > 1):
        return _line_item_across(across)
    if average is not None or _RATIO_OF.search(asked) or _MULTI_YEAR.search(asked):
        return average
    if change is not None:
        item = item_of(change.group("item"))
        if item is None or not years or len(years) > 2 or years[-1] - years[0] > 1:
            return None
        if in_percent:
            return AskedMetric(f"{item} growth", growth_of=item, unit="%", year=years[-1])
        return AskedMetric(f"change in {item}", f"{item} - prior {item}", unit="amount",
                           year=years[-1])
    lookup = _LOOKUP.match(asked) or _HOW_MUCH.match(asked)
    if lookup is None or len(years) != 1 or _COMPARED.search(asked):
        return None
    # "how much cash did X generate from operations": the words after the verb may finish
    # the item's name; any other words narrow it, and then no item is named
    item = item_of(lookup.group("item") + (lookup.groupdict().get("rest") or ""))
    return AskedMetric(item, item, unit="amount", year=years[0]) if item else None


def asked_metric(question: str, definitions: str = "") -> tuple[AskedMetric | None, str]:
    """The metric ``question`` asks for (``definitions``: the instructions given with it).

    Returns ``(metric, "")``, ``(None, reason)`` when a metric is named but no single
    fiscal year's value of it is asked, or ``(None, "")`` when no metric is named.
    """
    asked = without_definitions(question)
    defined = asked_definition(definitions_in(f"{definitions} {question}"), asked)
    key = standard_metric(asked)
    if defined is not None and _defines_a_part(defined[0], key, asked):
        defined = None
    years = sorted(named_years(asked))
    plain = not _asks_more(asked)
    across = across_years(asked, years) if plain else None
    if across is not None and across.kind == "average" and not defined:
        share = _share_asked(across.question, [])
        if share is not None:
            return _across(share, across), ""
    share = _share_asked(asked, years) or _ratio_asked(asked, years) \
        if plain and not defined and across is None else None
    if share is not None:
        return share, ""
    growth = None if defined or key else _growth_of(asked)
    if not (defined or key or growth):
        return _line_item_asked(asked, years, bool(_PERCENT_ASKED.search(definitions)),
                                across), ""
    if not plain:
        return None, "the question asks about more than the metric's value"
    if growth:
        if _MULTI_YEAR.search(asked) or len(years) > 2 or (len(years) == 2
                                                            and years[1] - years[0] != 1):
            return None, "the question asks for a growth over more than one year"
        return AskedMetric(f"{growth} growth", growth_of=growth, unit="%",
                           year=years[-1] if years else None), ""
    if across is None and (_COMPARED.search(asked) or len(years) > 1):
        return None, "the question asks for a change or comparison, not one year's value"
    year = years[0] if years and across is None else None
    if defined:
        name, formula = defined
        formula = _with_metrics(formula)
        unit = _formula_unit(name, formula)
        return _across(AskedMetric(name, _in_percent(formula, unit), unit=unit, year=year),
                       across), ""
    assert key is not None
    if METRICS[key][2] == "amount" and _RATIO_OF.search(asked):
        return None, "the question asks for a ratio of the metric, not its value"
    return _across(AskedMetric(METRICS[key][0], key, year=year), across), ""


def _defines_a_part(name: str, key: str | None, asked: str) -> bool:
    """Whether a definition is of a part of the standard metric asked, not of that metric.

    "EBITDA" defined when the EBITDA margin is asked, "debt" of the debt-to-equity ratio:
    the standard metric is computed.
    """
    found = _PATTERN[key].search(asked) if key is not None else None
    named, whole = name.strip().casefold(), found.group(0).casefold() if found else ""
    return bool(whole) and named != whole and re.search(rf"\b{re.escape(named)}\b", whole) \
        is not None


def _across(metric: AskedMetric, across: Across | None) -> AskedMetric:
    """``metric`` asked across fiscal years, its ``year`` the last of them."""
    if across is None:
        return metric
    return replace(metric, across=across, year=across.years[-1] if across.years else None)
