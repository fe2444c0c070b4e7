"""``--where key=value`` filters over documents' filing metadata.

A filter names a catalog field (``company``, ``ticker``, ``form``, ``fiscal_year``,
``fiscal_quarter``, ``fiscal_year_end``, ``period``) and a value; a document matches when
every filter matches it. ``company`` matches a word-start of the registrant's name or its
ticker, case-insensitively (``company=amcor`` finds ``Amcor plc``); ``form`` compares
without case (``earnings`` finds an earnings release); years and quarters compare as
numbers (``fiscal_year=FY2023``, ``fiscal_quarter=Q4``); ``period`` and
``fiscal_year_end`` match from their start (``period=2023`` finds ``2023-06-30``). A
document with no filing metadata matches no filter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from archivist.types import FILING_FIELDS, DocumentRecord

__all__ = ["MAX_FILTERS", "WHERE_HELP", "filtered_ids", "matches", "parse_where"]

MAX_FILTERS = 8
WHERE_HELP = ("Only documents whose filing metadata matches, as key=value (repeatable; keys: "
              + ", ".join(FILING_FIELDS) + "), e.g. company=Amcor, form=10-K, fiscal_year=2023.")


def parse_where(items: Iterable[str]) -> dict[str, str]:
    """``["company=Amcor", ...]`` as ``{"company": "Amcor", ...}``.

    Raises ``ValueError`` naming the filter and the reason: no ``=``, an unknown key, an
    empty value, a key given twice, or a year or quarter that is not a number.
    """
    where: dict[str, str] = {}
    for item in items:
        key, sign, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sign:
            raise ValueError(f"filter '{item}' is not key=value")
        if key not in FILING_FIELDS:
            raise ValueError(f"unknown filter key '{key}' (use {', '.join(FILING_FIELDS)})")
        if not value:
            raise ValueError(f"filter '{item}' has no value")
        if key in where:
            raise ValueError(f"filter key '{key}' is given twice")
        if key in ("fiscal_year", "fiscal_quarter") and _number(value) is None:
            raise ValueError(f"filter '{item}': {key} must be a number (2023, FY2023, Q4)")
        where[key] = value
    if len(where) > MAX_FILTERS:
        raise ValueError(f"at most {MAX_FILTERS} filters")
    return where


def _number(value: str) -> int | None:
    digits = re.fullmatch(r"(?:FY|Q)?\s*'?(\d{1,4})", value.strip(), re.I)
    return int(digits.group(1)) if digits else None


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w&]+", " ", text.casefold()).split())


def _field_matches(key: str, wanted: str, value: object) -> bool:
    if value is None or value == "":
        return False
    if key in ("fiscal_year", "fiscal_quarter"):
        return _number(wanted) == value
    if key == "form":
        return _words(str(value)).startswith(_words(wanted))
    if key in ("period", "fiscal_year_end", "ticker"):
        return str(value).casefold().startswith(wanted.casefold())
    words, name = _words(wanted), _words(str(value))
    return bool(words) and (name == words or name.startswith(words + " "))


def matches(record: DocumentRecord, where: dict[str, str]) -> bool:
    """Whether ``record``'s filing metadata matches every filter."""
    for key, wanted in where.items():
        if key == "company" and _field_matches("ticker", wanted, record.ticker) \
                and len(wanted) == len(record.ticker or ""):
            continue
        if not _field_matches(key, wanted, getattr(record, key)):
            return False
    return True


def filtered_ids(records: Sequence[DocumentRecord], where: dict[str, str]) -> list[str]:
    """The ids of the documents matching every filter, in catalog order."""
    return [r.document_id for r in records if matches(r, where)]
