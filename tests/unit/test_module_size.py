"""No module of ``src/archivist`` is over 400 lines: a module that grows past that is two."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "archivist"
LIMIT = 400


def test_every_module_is_at_most_400_lines() -> None:
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }
    assert len(sizes) > 50  # the walk found the package
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
