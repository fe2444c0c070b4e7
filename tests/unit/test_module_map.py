"""The README's module map names every module of ``src/archivist``.

A package ``__init__`` that only carries a docstring is not a module worth a line.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "archivist"


def test_readme_module_map_lists_every_module() -> None:
    readme = REPO.joinpath("README.md").read_text(encoding="utf-8")
    section = readme.split("### Module map", 1)[1]
    modules = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "__init__.py" or len(path.read_text(encoding="utf-8").splitlines()) > 3
    ]
    assert len(modules) > 50
    missing = [m for m in modules if f"`{m}`" not in section]
    assert missing == []
