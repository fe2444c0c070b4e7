"""Which tables a question is asked of: the table path's choice, in pure functions.

A computation, a count, a ranking or a comparison takes the table path
(:func:`asks_for_computation`), and so does any question whose evidence is a spreadsheet's
(:func:`holds_sheet_rows`): its passage shows the first rows only. A PDF page's table is
in the page's text, which the writer reads, so its rows send no question. The tables
shown to the model are those that share words with the question, near the evidence, and
name what a count counts (:func:`relevant_tables`); a table that names no year the
question asks about is left out (:func:`names_a_year`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from archivist.agent.state import Evidence
from archivist.agent.text import YEAR
from archivist.documents.spreadsheets import SHEET_SUFFIXES
from archivist.index.table_store import StoredTable
from archivist.stopwords import DATE_WORDS, STOP_WORDS, content_words, singular

__all__ = ["MAX_TABLES", "asks_for_computation", "counted_things",
           "goes_to_tables", "holds_sheet_rows", "names_a_year", "relevant_tables"]

MAX_TABLES = 3
_COMPUTE = re.compile(
    r"\b(?:how (?:many|much)|by how|total|sum(?:s|med|ming)?|combined|altogether|"
    r"add(?:ed|ing)? (?:together|up)|plus|difference|differ\w*|"
    r"grow|grew|growth|increase\w*|decrease\w*|decline\w*|change\w*|highest|lowest|"
    r"largest|smallest|biggest|most|least|top|rank\w*|compare\w*|comparison|higher|lower|"
    r"more|less|average|mean|median|ratio|percent\w*|share|margin|count|number of)\b",
    re.IGNORECASE,
)
#: A reason or an account asked for ("What drove the increase ...", "Why did ... fall"):
#: the answer is in the text that explains the figures, not in a query over them.
_REASON = re.compile(r"^\W*(?:why|explain|describe|discuss|summari[sz]e)\b|\b(?:drove|drivers?|"
                     r"driven|caused?|causes|reasons?|explains?|explanation|attributed|"
                     r"factors?)\b", re.IGNORECASE)
_COUNT = re.compile(r"\b(?:how (?:many|much)|number of)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9']*|[^\sA-Za-z-]")  # a hyphen joins words


def asks_for_computation(question: str) -> bool:
    """Whether the question asks for a sum, difference, count, ranking or comparison.

    Not when it asks why a figure moved or what drove it: a reason is read, not computed.
    """
    return bool(_COMPUTE.search(question)) and not _REASON.search(question)


def counted_things(question: str) -> set[str]:
    """What a count question counts, in the singular ("employee"); empty if nothing.

    The words after "how many", "how much" or "number of" up to a stop word, and those
    after an "of" that follows ("how many categories of obligations"): of each run its
    first plural ("How many total employees did ...", "How many segments serve ..."), or
    all its words when none is plural ("How much free cash flow ..."). A table must name
    one of them. Nothing when no word follows ("How much did revenues grow?").
    """
    found: set[str] = set()

    def counted(run: list[str]) -> set[str]:
        plural = [w for w in run if len(w) > 3 and w.endswith("s") and not w.endswith("ss")]
        return {singular(plural[0])} if plural else set(run)

    for match in _COUNT.finditer(question):
        run: list[str] = []
        for token in _TOKEN.findall(question[match.end():]):
            word = token.lower()
            if token[0].isalpha() and word not in STOP_WORDS:
                run.append(word)
                continue
            found |= counted(run)
            if word != "of" or not run:
                break
            run = []
        else:
            found |= counted(run)
    return found


def _words(table: StoredTable) -> set[str]:
    text = " ".join([table.name.replace("_", " "), table.caption, *table.heading_path,
                     *table.labels, *table.row_labels])
    return content_words(text)


def _pages_meet(table: StoredTable, item: Evidence) -> bool:
    start, end = item.get("page_start"), item.get("page_end")
    if table.page_start is None or start is None:
        return False
    return start <= (table.page_end or table.page_start) and table.page_start <= (end or start)


def relevant_tables(question: str, tables: list[StoredTable], evidence: list[Evidence],
                    limit: int = MAX_TABLES) -> list[StoredTable]:
    """The tables that match the question best: shared words, then the evidence's pages.

    A table on a page the evidence came from scores 3 more, one of a document the
    evidence came from 1 more, and one with a row the question names in full ("total
    revenues" names the row "Revenues") 3 more: in a 10-K every small table near the
    evidence has a row "As a percentage of revenues", and the row that answers is in the
    statement pages away. A table must share two words with the question, or one when the
    evidence came from its document: years never count (every table has them), and other
    dates count toward its rank but not toward these two ("December 31" heads every
    statement of a 10-K, "June 30" tells a fiscal year's from another's). A count
    question's table must name what it counts (:func:`counted_things`): a 10-K's balance
    sheet shares "Brightwave", "total" and "December 31" with "How many total staff did
    Brightwave count on December 31?" and counts no one.
    """
    wanted = {w for w in content_words(question) if not YEAR.fullmatch(w)}  # every table
    counted = counted_things(question)
    scored = []
    for position, table in enumerate(tables):
        words = _words(table)
        if counted and not counted & {singular(w) for w in words}:
            continue
        common = wanted & words
        qualifying = {w for w in common if not w.isdigit() and w not in DATE_WORDS}
        same = [e for e in evidence if e.get("document_id") == table.document_id]
        if len(qualifying) < 2 and not (qualifying and same):
            continue
        bonus = 3 if any(_pages_meet(table, e) for e in same) else (1 if same else 0)
        if any(named <= wanted for named in map(content_words, table.row_labels) if named):
            bonus += 3
        scored.append((len(common) + bonus, -position, table))
    scored.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    return [table for _, _, table in scored[:limit]]


def names_a_year(question: str, table: StoredTable, cells: Sequence[Any] = ()) -> bool:
    """Whether the table names a year the question asks about (or the question names none).

    Its name, caption, headings, columns and cells count: a 10-K's statements have a
    column per year (``y2017``), a press release's a "2023" in a column label.
    """
    years = set(YEAR.findall(question))
    if not years:
        return True
    text = " ".join(map(str, [table.name, table.caption, *table.heading_path, *table.columns,
                              *table.labels, *table.row_labels, *cells]))
    return bool(years & set(YEAR.findall(text)))


def holds_sheet_rows(evidence: list[Evidence], tables: list[StoredTable]) -> bool:
    """Whether a passage of the evidence is a spreadsheet's whose table is stored."""
    return any(PurePath(item.get("document_name", "")).suffix.lower() in SHEET_SUFFIXES
               and any(t.document_id == item.get("document_id") for t in tables)
               for item in evidence)


def goes_to_tables(question: str, evidence: list[Evidence], tables: list[StoredTable]) -> bool:
    """Whether the table path runs: tables to ask, and a computation asked or a sheet read."""
    return bool(tables) and (asks_for_computation(question)
                             or holds_sheet_rows(evidence, tables))
