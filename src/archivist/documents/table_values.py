"""A grid of cell texts as a typed table: header row found, names normalized, numbers parsed.

Pure functions, no I/O. A grid is the rows of a table as cell texts, from a PDF page, a
Markdown table or a spreadsheet. :func:`data_table` finds its header (the rows above the
first row of figures, not simply the first row), names its columns for SQL, parses every
number as printed (``$ 1,234`` = 1234, ``(238,204)`` = -238204, ``10%`` = 10, ``—`` =
null) and takes the unit (``in thousands``) from the caption or header. Values are stored
as printed, never multiplied by the unit.
"""

from __future__ import annotations

import re

from archivist.types import Cell, DataTable

__all__ = [
    "data_table", "is_year", "markdown_tables", "name_tables", "names_the_rows", "parse_cell",
    "render_markdown", "sql_name", "unit_of",
]

_NULLS = frozenset({"", "—", "–", "-", "−", "— %", "—%", "n/a", "na", "nm", "n.m.", "*", "none"})
_CURRENCY = re.compile(r"US\$|USD|[$€£¥]")
_NUMBER = re.compile(
    r"^(?P<open>\()?\s*(?P<sign>[-−–])?\s*(?P<sign2>[-−–])?\s*"
    r"(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?\s*(?P<pct>%)?\s*"
    r"(?P<close>\))?\s*(?P<pct2>%)?$"
)
_YEAR = re.compile(r"^(?:FY\s?|fiscal\s)?(?:19|20)\d{2}$", re.IGNORECASE)
_UNIT = re.compile(
    r"\bin\s+(?:US\$\s*|\$\s*)?(thousands|millions|billions)\b"
    r"|(?:US)?\$\s*(thousand|million|billion)s?\b|\$(k|m|bn)\b",
    re.IGNORECASE,
)
_SHORT_UNITS = {"k": "thousands", "m": "millions", "bn": "billions"}
_SQL_WORDS = frozenset({
    "all", "and", "as", "asc", "between", "by", "case", "cast", "check", "create", "default",
    "delete", "desc", "distinct", "drop", "else", "end", "exists", "from", "group", "having",
    "in", "index", "insert", "is", "join", "key", "like", "limit", "not", "null", "offset",
    "on", "or", "order", "primary", "references", "select", "set", "table", "then", "union",
    "update", "values", "when", "where", "with",
})
_NAME_CHARS = re.compile(r"[^a-z0-9]+")
_PARENTHESES = re.compile(r"\([^)]*\)")
_PERIOD = re.compile(
    r"\b(?:as of\s*/?\s*)?(?:(?:three|six|nine|twelve) months|years?|quarters?|as of)"
    r"(?: ended| ending)?[^.:]*?(?:\d{1,2},?)?\s*(?:(?:19|20)\d{2})?,?\s*$",
    re.IGNORECASE,
)

_ROW_NAME_WORDS = 3
_NOT_ROW_NAME = re.compile(
    r"\d|\$|%|\b(?:thousands?|millions?|billions?|except|per|years?|months?|weeks?|quarters?|"
    r"ended|ending|fiscal|as of|january|february|march|april|may|june|july|august|september|"
    r"october|november|december)\b", re.IGNORECASE)


def parse_cell(text: str) -> Cell:
    """A cell's value: an int or float when the text is a number as printed, else the text.

    ``$ 1,234`` is 1234, ``(1,234)`` and ``-1,234`` are -1234, ``12.5%`` is 12.5, and a
    dash, ``n/a`` or an empty cell is ``None``.
    """
    clean = " ".join(text.replace("\u00a0", " ").split())
    bare = _CURRENCY.sub("", clean).strip()
    if clean.casefold() in _NULLS or bare and bare.casefold() in _NULLS:
        return None
    match = _NUMBER.match(bare)
    if not match or bool(match.group("open")) != bool(match.group("close")):
        return clean
    digits = match.group("digits").replace(",", "")
    negative = bool(match.group("open") or match.group("sign") or match.group("sign2"))
    fraction = match.group("fraction")
    value: int | float = float(digits + fraction) if fraction else int(digits)
    return -value if negative else value


def is_year(text: str) -> bool:
    """``2017``, ``FY2023``: a cell naming a year (a column header, not a figure)."""
    return bool(_YEAR.match(text.strip()))


def unit_of(text: str) -> str:
    """``"thousands"``, ``"millions"`` or ``"billions"`` when ``text`` names a scale, or ``""``."""
    match = _UNIT.search(text)
    if not match:
        return ""
    word = (match.group(1) or match.group(2) or "").lower()
    if word:
        return word if word.endswith("s") else word + "s"
    return _SHORT_UNITS[(match.group(3) or "").lower()]


def names_the_rows(header: str) -> bool:
    """Whether the header over a table's row labels names what the rows are (``Segment``).

    A unit note (``In millions``), a period over the figures' columns (``Fiscal Years
    Ended``, ``June 30``) or a caption run into the corner cell names nothing the rows
    hold: such a label column is called ``item``, as every unnamed one is, so that one
    name finds the row labels of any table. The header stays the column's label.
    """
    words = header.split()
    return 0 < len(words) <= _ROW_NAME_WORDS and not _NOT_ROW_NAME.search(header)


def sql_name(text: str, fallback: str, used: set[str]) -> str:
    """A lower-case SQL identifier for ``text``, unique in ``used`` (which it joins).

    A year becomes ``y2017``, other names starting with a digit get ``c_``, SQL words get
    a trailing ``_``, ``%`` becomes ``pct``.
    """
    raw = text.strip().lower().replace("%", " pct ").replace("&", " and ").replace("∆", "change")
    name = _NAME_CHARS.sub("_", raw).strip("_")[:48].strip("_") or fallback
    if is_year(text):
        name = "y" + re.sub(r"\D", "", text)
    elif name[0].isdigit():
        name = "c_" + name
    if name in _SQL_WORDS:
        name += "_"
    unique, n = name, 2
    while unique in used:
        unique, n = f"{name}_{n}", n + 1
    used.add(unique)
    return unique


def _title(caption: str) -> str:
    """The part of a caption that names the table: its last clause that is not a period."""
    text = _PARENTHESES.sub(" ", caption)
    for piece in reversed(re.split(r"(?<=[A-Za-z0-9])\.\s+|:\s*|\.\s*$", text)):
        piece = _PERIOD.sub("", piece.strip()).strip(" ,.;")
        if sum(c.isalpha() for c in piece) >= 4:
            return " ".join(piece.split()[:6])
    return ""


def name_tables(tables: list[DataTable]) -> None:
    """Give each table a SQL name, unique among ``tables``: from its name, else its caption."""
    used: set[str] = set()
    for position, table in enumerate(tables, start=1):
        source = table.name or _title(table.caption)
        table.name = sql_name(source, f"table_{position}", used)
        if table.name[0].isdigit() or table.name.startswith("c_"):
            table.name = "t_" + table.name


def _is_figure(text: str) -> bool:
    value = parse_cell(text)
    return isinstance(value, int | float) and not is_year(text)


def _is_data_row(row: list[str]) -> bool:
    """A row with a figure beyond its first cell (a row of years is a header)."""
    return any(_is_figure(cell) for cell in row[1:])


def _filled(row: list[str]) -> int:
    return sum(1 for cell in row if cell.strip())


def data_table(grid: list[list[str]], caption: str = "", pages: tuple[int | None, int | None]
               = (None, None)) -> DataTable | None:
    """The grid as a typed table, or ``None`` when it holds no row of figures or values.

    The header is the run of rows above the first row of figures; a header row with fewer
    cells than the last one (``Year ended December 31,`` over the years) joins the caption,
    as do one-cell title rows above it. A text-only grid takes its first wide row as the
    header. Rows with only a first cell (``Earnings per share:``) become the ``section`` of
    the rows under them.
    """
    width = max((len(row) for row in grid), default=0)
    rows = [[" ".join(c.split()) for c in row] + [""] * (width - len(row)) for row in grid]
    rows = [row for row in rows if _filled(row)]
    if width < 2 or len(rows) < 2:
        return None
    first_data = next((i for i, row in enumerate(rows) if _is_data_row(row)), None)
    if first_data is None:
        top = next((i for i, row in enumerate(rows) if _filled(row) >= 2), 0)
        header_rows, body = [rows[top]], rows[top + 1:]
    else:
        start = first_data  # "Current assets:" over the first rows belongs to the body
        while start > 0 and rows[start - 1][0] and not any(rows[start - 1][1:]):
            start -= 1
        top = start  # the header: the rows above, each with a cell past the first
        while top > 0 and any(rows[top - 1][1:]):
            top -= 1
        if top == start:
            start = top = first_data
        header_rows, body = rows[top:start], rows[start:]
    titles = [row for row in rows[:top] if _filled(row)]
    notes = [" ".join(c for c in row if c) for row in titles]
    labels = [""] * width
    if header_rows:
        last = header_rows[-1]
        for row in header_rows[:-1]:
            if _filled(row) < _filled(last):
                notes.append(" ".join(c for c in row if c))
            else:
                labels = [f"{a} {b}".strip() for a, b in zip(labels, row, strict=True)]
        labels = [f"{a} {b}".strip() for a, b in zip(labels, last, strict=True)]
    if labels[0].startswith("(") and unit_of(labels[0]):  # "($ million)" over the labels
        notes.append(labels[0])
        labels[0] = ""
    caption = " ".join([caption.strip(), *notes]).strip()
    if not body:
        return None
    return _typed(caption, labels, body, pages, unit_of(" ".join([caption, *labels])))


def _typed(caption: str, labels: list[str], body: list[list[str]],
           pages: tuple[int | None, int | None], unit: str) -> DataTable:
    width = len(labels)
    sections: list[str] = []
    kept: list[list[str]] = []
    section = ""
    for row in body:
        if row[0] and not any(row[1:]) and len(body) > 2:
            section = row[0].rstrip(":")
            continue
        sections.append(section)
        kept.append(row)
    values = [[parse_cell(cell) for cell in row] for row in kept]
    kinds = []
    for column in range(width):
        filled = [row[column] for row in values if row[column] is not None]
        numbers = sum(1 for v in filled if isinstance(v, int | float))
        kinds.append("number" if filled and numbers >= 0.6 * len(filled) else "text")
    for column, kind in enumerate(kinds):  # text columns keep their cells as written
        if kind == "text":
            for typed, raw in zip(values, kept, strict=True):
                typed[column] = raw[column] or None
    labels = list(labels)
    for column in range(1, width):  # "10%" under no header of its own: the change before it
        texts = [raw[column] for raw in kept if raw[column]]
        if not labels[column] and texts and sum("%" in c for c in texts) >= 0.6 * len(texts):
            labels[column] = f"{labels[column - 1]} %".strip()
    used: set[str] = set()
    names = []
    for index, label in enumerate(labels):
        if index == 0 and kinds[0] == "text":
            names.append(sql_name(label if names_the_rows(label) else "", "item", used))
            continue
        names.append(sql_name(label, f"col{index + 1}", used))
    if any(sections):
        names.insert(1, sql_name("section", "section", used))
        labels = [labels[0], "section", *labels[1:]]
        kinds.insert(1, "text")
        values = [[row[0], sections[i] or None, *row[1:]] for i, row in enumerate(values)]
    return DataTable(caption=caption, columns=names, labels=labels, kinds=kinds, rows=values,
                     unit=unit, page_start=pages[0], page_end=pages[1])


_PIPE = re.compile(r"(?<!\\)\|")


def markdown_tables(markdown: str) -> list[DataTable]:
    """The Markdown tables of a text (Word, HTML, Markdown files) as typed tables, named.

    A table's caption is the last heading or short line above it.
    """
    from archivist.documents.tables import blocks, is_delimiter_row

    tables = []
    for block in blocks(markdown):
        if not block.is_table:
            continue
        lines = markdown[block.start:block.end].split("\n")
        grid = [[cell.strip().replace("\\|", "|") for cell in _PIPE.split(line.strip())[1:-1]]
                for line in lines if line.strip() and not is_delimiter_row(line)]
        above = [line.strip().lstrip("#").strip() for line in
                 markdown[:block.start].rstrip().split("\n")[-3:] if line.strip()]
        caption = above[-1] if above and len(above[-1]) <= 120 else ""
        table = data_table(grid, caption)
        if table is not None:
            tables.append(table)
    name_tables(tables)
    return tables


def render_markdown(table: DataTable, max_rows: int | None = None) -> str:
    """The table as a Markdown table under its SQL columns (the first ``max_rows`` rows)."""
    shown = table.rows if max_rows is None else table.rows[:max_rows]

    def cell(value: Cell) -> str:
        if value is None:
            return ""
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in shown]
    return "\n".join(lines)
