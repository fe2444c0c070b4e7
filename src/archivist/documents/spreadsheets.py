"""CSV, TSV and XLSX files as documents: one table per sheet, and a short Markdown for search.

Every sheet becomes a typed table (header row found as in any table, numbers parsed);
the document's Markdown names each sheet with its columns and row count and shows its
first rows as a Markdown table, so that search finds the file and the table path can
query every row.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from archivist.documents.table_values import data_table, name_tables, render_markdown
from archivist.types import DataTable, LoadedDocument, LoadError

__all__ = ["SHEET_SUFFIXES", "load_sheet_file"]

SHEET_SUFFIXES = frozenset({".csv", ".tsv", ".xlsx"})
MARKDOWN_ROWS = 30  # rows of each sheet shown in the indexed Markdown
MAX_CELLS = 2_000_000  # cells in one file (a larger one is refused with a clear message)
_MAX_XLSX_UNPACKED = 256 * 1024 * 1024


def load_sheet_file(path: Path, data: bytes, text: str | None) -> LoadedDocument:
    """A spreadsheet file as a document with its sheets as tables.

    ``text`` is the decoded file for CSV and TSV (``None`` for XLSX). Raises ``LoadError``
    naming the file and the reason.
    """
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        sheets = _xlsx_sheets(path, data)
    else:
        assert text is not None
        sheets = [(path.stem, _delimited(path, text, "\t" if suffix == ".tsv" else None))]
    named: list[tuple[str, DataTable]] = []
    for name, grid in sheets:
        table = data_table(grid)
        if table is not None:
            table.caption = " ".join([name, table.caption]).strip()
            table.name = name
            named.append((name, table))
    tables = [table for _, table in named]
    name_tables(tables)
    parts = [f"# {path.stem}", *(_sheet_markdown(name, table) for name, table in named)]
    if not tables:
        raise LoadError(f"{path}: no table in the file (no rows with values)")
    return LoadedDocument(path=str(path), markdown="\n\n".join(parts), title=path.stem,
                          tables=tables)


def _sheet_markdown(name: str, table: DataTable) -> str:
    described = ", ".join(
        f"{column} ({label})" if label and label != column else column
        for column, label in zip(table.columns, table.labels, strict=True)
    )
    shown = min(len(table.rows), MARKDOWN_ROWS)
    lines = [f"## {name}", "",
             f"Table `{table.name}`: {len(table.rows)} rows; columns: {described}."]
    if table.unit:
        lines.append(f"Values in {table.unit}.")
    lines += ["", render_markdown(table, MARKDOWN_ROWS)]
    if shown < len(table.rows):
        lines += ["", f"({len(table.rows) - shown} more rows in the table.)"]
    return "\n".join(lines)


def _delimited(path: Path, text: str, delimiter: str | None) -> list[list[str]]:
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise LoadError(f"{path}: not a readable CSV file ({exc})") from None
    if sum(len(row) for row in rows) > MAX_CELLS:
        raise LoadError(f"{path}: refused, more than {MAX_CELLS:,} cells")
    return rows


def _xlsx_sheets(path: Path, data: bytes) -> list[tuple[str, list[list[str]]]]:
    import openpyxl

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(entry.file_size for entry in archive.infolist())
    except zipfile.BadZipFile:
        raise LoadError(f"{path}: not an .xlsx workbook (corrupt ZIP archive)") from None
    if unpacked > _MAX_XLSX_UNPACKED:
        raise LoadError(f"{path}: refused, the workbook unpacks to {unpacked // 2**20} MB")
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises assorted errors on damaged workbooks
        raise LoadError(f"{path}: corrupt or unreadable .xlsx ({type(exc).__name__})") from None
    sheets = []
    cells = 0
    try:
        for sheet in book.worksheets:
            grid = [["" if v is None else _cell_text(v) for v in row]
                    for row in sheet.iter_rows(values_only=True)]
            cells += sum(len(row) for row in grid)
            if cells > MAX_CELLS:
                raise LoadError(f"{path}: refused, more than {MAX_CELLS:,} cells")
            sheets.append((str(sheet.title), grid))
    finally:
        book.close()
    return sheets


def _cell_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
