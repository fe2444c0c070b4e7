"""What ingest keeps of a filing: its metadata, and its statements among its tables."""

from __future__ import annotations

from typing import Any

from archivist.filings.cover import filing_info
from archivist.filings.statements import statement_tables
from archivist.types import LoadedDocument

__all__ = ["filing_of"]


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
