"""The import graph of ``src/archivist`` has no cycle, and lower layers never import higher ones.

Every import statement counts: top-level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "archivist"


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    names = {}
    for path in (SRC / PACKAGE).rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                if not is_package:
                    anchor = anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in known:
                    out.add(child)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    known = module_names()
    return {name: imports_of(path, name, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_checker_finds_a_cycle_and_resolves_relative_imports() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    graph = import_graph()
    assert "archivist.index.store" in graph["archivist.index.search"]
    assert "archivist.application" in graph["archivist.app.cli.common"]


def test_src_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_lower_layers_never_import_higher_ones() -> None:
    higher = {
        "archivist.documents": ("archivist.index", "archivist.ingest", "archivist.application",
                                "archivist.agent", "archivist.app", "archivist.evaluation"),
        "archivist.index": ("archivist.ingest", "archivist.application", "archivist.agent",
                            "archivist.app", "archivist.evaluation"),
        "archivist.ingest": ("archivist.application", "archivist.agent", "archivist.app"),
        "archivist.agent": ("archivist.application", "archivist.app", "archivist.ingest",
                            "archivist.testing"),
        "archivist.application": ("archivist.app", "archivist.evaluation"),
    }
    wrong = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        for layer, banned in higher.items()
        if module == layer or module.startswith(layer + ".")
        for target in targets
        if any(target == b or target.startswith(b + ".") for b in banned)
    ]
    assert wrong == []
