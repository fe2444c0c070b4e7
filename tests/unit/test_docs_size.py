"""The README and the results page stay short enough to read, and every figure can be
reproduced.

A *figure row* is a body row of a Markdown table in docs/results.md (not its header or
separator line) with a digit in any cell other than its ``measured`` cell (dates and
commits are not figures). Every table there has a ``command`` column, and a figure row's
command cell holds a command in backticks that starts with a program a reader can run.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 250
RESULTS_MAX_LINES = 350
#: What a reproducing command may start with (after environment assignments).
PROGRAMS = ("python", "archivist", "make", "pytest")


def table_rows(text: str) -> list[tuple[list[str], list[str]]]:
    """Each body row of each Markdown table in ``text``, with its table's header cells."""
    rows: list[tuple[list[str], list[str]]] = []
    header: list[str] | None = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            header = None
            continue
        cells = split_row(line)
        if header is None:
            following = lines[i + 1] if i + 1 < len(lines) else ""
            assert re.fullmatch(r"\|( *:?-+:? *\|)+", following.strip()), f"not a table: {line}"
            header = cells
        elif not re.fullmatch(r"\|( *:?-+:? *\|)+", line.strip()):
            rows.append((header, cells))
    return rows


def split_row(line: str) -> list[str]:
    """The cells of a table line (a ``|`` inside backticks does not split a cell)."""
    cells, cell, quoted = [], "", False
    for char in line.strip()[1:-1]:
        if char == "`":
            quoted = not quoted
        if char == "|" and not quoted:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    return [*cells, cell.strip()]


def names_a_command(cell: str) -> bool:
    """Whether ``cell`` holds a backticked command that starts with a program in PROGRAMS."""
    for code in re.findall(r"`([^`]+)`", cell):
        words = [w for w in code.split() if not re.fullmatch(r"[A-Z][A-Z0-9_]*=\S*", w)]
        if words and words[0] in PROGRAMS:
            return True
    return False


def figure_rows(text: str) -> list[tuple[list[str], list[str]]]:
    """The figure rows of ``text`` (see the module docstring)."""
    return [
        (header, cells) for header, cells in table_rows(text)
        if any(re.search(r"\d", cell) for name, cell in zip(header, cells, strict=False)
               if name not in ("measured", "command"))
    ]


def test_the_readme_and_the_results_page_stay_short() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    results = (REPO / "docs" / "results.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= README_MAX_LINES, len(readme)
    assert len(results) <= RESULTS_MAX_LINES, len(results)


def test_every_figure_row_of_the_results_page_names_its_command() -> None:
    text = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    rows = figure_rows(text)
    assert len(rows) >= 30  # the page holds its figures in tables
    tables = {tuple(header) for header, _ in table_rows(text)}
    assert all("command" in header for header in tables), tables
    missing = [" | ".join(cells) for header, cells in rows
               if not names_a_command(dict(zip(header, cells, strict=False))["command"])]
    assert missing == []


def test_a_row_without_its_command_is_caught() -> None:
    page = ("| figure | current | measured | command |\n| --- | --- | --- | --- |\n"
            "| nDCG@10 | 0.72 | 2026-12-02 | `python bench/retrieval_bench.py` |\n"
            "| Recall@5 | 0.81 | 2026-12-02 | run it by hand |\n"
            "| MuSiQue | not measured | - | `ARCHIVIST_X=1 archivist eval answers F` |\n")
    rows = figure_rows(page)
    assert [cells[0] for _, cells in rows] == ["nDCG@10", "Recall@5"]
    assert [names_a_command(cells[3]) for _, cells in rows] == [True, False]
    assert names_a_command(split_row(page.splitlines()[4])[3])
