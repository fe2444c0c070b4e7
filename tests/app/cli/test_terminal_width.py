"""``list`` and ``search`` fit an 80-column terminal (COLUMNS=80, the real entry point).

``list`` keeps every file name whole on one line, shows the day a document was added, and
drops its least useful columns first when the names need the room. ``search`` names each
hit's document, pages and section once, and wraps its text at words under the rank.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from archivist.application import Application
from archivist.settings import Settings

LONG_NAME = "greenhouse-maintenance-handbook-for-the-spring.md"  # 49 characters
DOCS = {  # invented
    LONG_NAME: "# Greenhouse handbook\n\n## Watering schedule\n\nWater the tomato beds every "
               "second morning before nine, and water the seedlings daily with a fine rose "
               "so the soil never dries out between the rows of young plants.\n\n"
               "## Heating\n\nKeep the night temperature above twelve degrees in March.\n",
    "notes.md": "# Notes\n\nThe shed key hangs behind the door.\n",
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    root = tmp_path_factory.mktemp("terminal")
    docs = root / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    pdf = pymupdf.open()
    for words in ("Potting compost is mixed from loam and sand.", "Sow the beans in May."):
        pdf.new_page().insert_text((72, 72), words)
    pdf.save(str(docs / "compost.pdf"))
    with Application(Settings(data_dir=root / "lib"), embedder=embedder) as application:
        assert application.ingest.files([docs]).counts["added"] == 3
    return root / "lib"


def archivist(columns: int, *args: str) -> list[str]:
    """The lines ``archivist *args`` prints in a terminal ``columns`` wide."""
    env = {**os.environ, "COLUMNS": str(columns), "HF_HUB_OFFLINE": "1"}
    env.pop("FORCE_COLOR", None)
    code = f"import sys\nsys.argv = ['archivist', *{list(args)!r}]\n" \
           "from archivist.app.cli import main\nmain()\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_list_keeps_names_whole_and_shows_dates_at_80_columns(data_dir: Path) -> None:
    lines = archivist(80, "list", "--data-dir", str(data_dir))
    assert all(len(line) <= 80 for line in lines), lines
    for name in [*DOCS, "compost.pdf"]:
        assert sum(name in line for line in lines) == 1, (name, lines)
    assert lines[0].split() == ["name", "added", "pages"]  # parents, chunks, id dropped
    row = next(line for line in lines if "compost.pdf" in line)
    assert re.search(r"\b\d{4}-\d{2}-\d{2}\b", row) and not re.search(r"T\d\d:", row)
    assert " 2 " in f"{row} "  # its pages are still shown

    wide = archivist(200, "list", "--data-dir", str(data_dir))[0].split()
    assert wide == ["name", "added", "pages", "id", "chunks", "parents"]


def test_search_names_document_pages_and_section_once_at_80_columns(data_dir: Path) -> None:
    lines = archivist(80, "search", "when to water the tomato beds", "-k", "3",
                      "--data-dir", str(data_dir))
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("1. ") and LONG_NAME in lines[0]
    first = lines[:next(i for i, line in enumerate(lines) if line.startswith("2. "))]
    block = " ".join(line.strip() for line in first)
    assert block.count("Watering schedule") == 1 and block.count(LONG_NAME) == 1
    assert f"{LONG_NAME}, § Greenhouse handbook › Watering schedule" in block
    assert "score" in block and "tomato beds every second morning" in block
    assert all(line.startswith("   ") for line in first[1:])  # wrapped under the rank
    pdf = [line for line in lines if "compost.pdf" in line]
    assert pdf and re.search(r"compost\.pdf, pp?\. [\d-]+, § compost  score", pdf[0])
