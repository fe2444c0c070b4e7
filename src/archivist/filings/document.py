"""A filing: what ingest keeps of it (metadata, statements), and how a document is named by it."""

from __future__ import annotations

from typing import Any

from archivist.filings.cover import filing_info
from archivist.filings.statements import statement_tables
from archivist.types import DocumentRecord, LoadedDocument

__all__ = ["document_about", "filing_label", "filing_of"]


def filing_label(record: DocumentRecord) -> str:
    """``Netflix, Inc. · NFLX · 10-K · FY2017 · period 2017-12-31``; "" for no filing."""
    if not record.form:
        return ""
    year = f"FY{record.fiscal_year}" if record.fiscal_year else ""
    quarter = f"Q{record.fiscal_quarter}" if record.fiscal_quarter else ""
    parts = [record.company or "?", record.ticker or "", record.form, f"{year} {quarter}".strip(),
             f"period {record.period}" if record.period else ""]
    return " · ".join(p for p in parts if p)


def document_about(record: DocumentRecord) -> str:
    """What a document is, from its own text: its title and its filing, if any.

    A file may be named ``1.pdf``; a passage of it is still known to be the Netflix 10-K's,
    which is what a question's subjects are checked against.
    """
    return " · ".join(p for p in (record.title.strip(), filing_label(record)) if p)


def filing_of(loaded: LoadedDocument) -> dict[str, Any]:
    """The filing fields of a loaded document (``{}`` when it is no filing).

    A filing's statements are added to ``loaded.tables`` as the tables ``income_statement``,
    ``balance_sheet`` and ``cash_flow_statement`` (its other tables stay as they are).
    """
    info = filing_info(loaded.markdown)
    if info is None:
        return {}
    taken = {table.name for table in loaded.tables}
    loaded.tables.extend(t for t in statement_tables(loaded) if t.name not in taken)
    return info.as_fields()
