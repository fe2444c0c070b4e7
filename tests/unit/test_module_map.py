"""The module map in docs/architecture.md names every module of ``src/archivist``.

A package ``__init__`` that only carries a docstring is not a module worth a line.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "archivist"


def test_the_module_map_lists_every_module() -> None:
    page = REPO.joinpath("docs", "architecture.md").read_text(encoding="utf-8")
    section = page.split("\n## Module map\n", 1)[1]
    modules = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "__init__.py" or len(path.read_text(encoding="utf-8").splitlines()) > 3
    ]
    assert len(modules) > 50
    missing = [m for m in modules if f"`{m}`" not in section]
    assert missing == []
