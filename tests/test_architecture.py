"""The package's shape, read from its source so that it stays true: no import cycle, no
module over 500 lines, no module reaching into another object's private attributes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tsid_py"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """The tsid_py modules ``path`` imports at module level or in a function (absolute names)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("tsid_py"):
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("tsid_py"))
    known = {module_name(p) for p in MODULES}
    return {target for target in found if target in known and target != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a list of nodes (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles():
    graph = {module_name(path): imported_modules(path) for path in MODULES}
    # A package's __init__ re-exports its modules: an edge into a package stands for its
    # modules, and the edges out of an __init__ are its re-exports, not code that runs on them.
    packages = {module_name(p) for p in MODULES if p.name == "__init__.py"}
    graph = {node: {t for t in targets if t not in packages} for node, targets in graph.items()
             if node not in packages}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_is_at_most_500_lines(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_attribute_of_another_object(path):
    """``x._name`` only with ``x`` being ``self``, ``cls`` or ``super()`` (dunders are public
    protocol)."""
    offending = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                and not (isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "super")):
            offending.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert not offending, offending


def test_the_checks_see_what_they_look_for(tmp_path):
    """The readers above find a private access and a relative import (so that an empty
    result means something)."""
    sample = PACKAGE / "solver.py"
    assert "tsid_py.assembly" in imported_modules(sample)
    tree = ast.parse("other._hidden\nself._own\n")
    private = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")
               and not (isinstance(n.value, ast.Name) and n.value.id == "self")]
    assert len(private) == 1
    assert find_cycle({"qp": {"reduced"}, "reduced": {"qp"}}) == ["qp", "reduced", "qp"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
