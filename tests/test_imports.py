"""Imports run one way -- klondike_env (rules, env, solver) <- agents <- klondike_app -- and no
module of the three packages takes part in an import cycle.

The imports are read from the source (``ast``), so a lazy import inside a function counts as
much as one at the top of a module; only ``if TYPE_CHECKING:`` blocks, which never run, are
left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("klondike_env", "agents", "klondike_app")  # each may import only those before it


def package_modules() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the three packages."""
    modules = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _is_type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    for node in ast.iter_child_nodes(tree):
        if _is_type_checking_block(node):
            yield from (child for orelse in node.orelse for child in _import_nodes_of(orelse))
            continue
        yield from _import_nodes_of(node)


def _import_nodes_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    yield from _import_nodes(node)


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The project modules ``name`` imports -> the line of the first such import.

    ``from package import name`` counts as importing the submodule when ``package.name`` is one,
    else the package itself; the packages above a module (imported implicitly first) do not count.
    """
    found: dict[str, int] = {}
    is_package = path.name == "__init__.py"
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                module = ".".join(filter(None, (base, node.module)))
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                       for alias in node.names]
        for target in targets:
            if target in modules and target != name:
                found.setdefault(target, node.lineno)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, int]]:
    modules = package_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_the_walk_sees_every_package_and_known_imports(graph):
    # a guard against a walk that silently finds nothing
    assert {name.split(".")[0] for name in graph} == set(LAYERS)
    assert "klondike_env.core" in graph["klondike_env.game"]
    assert "agents.base" in graph["agents.evaluation"]


def test_imports_run_from_the_applications_down_to_the_rules(graph):
    rank = {package: index for index, package in enumerate(LAYERS)}
    upward = [
        f"{package_modules()[name].relative_to(ROOT)}:{line} imports {target}"
        for name, targets in graph.items() for target, line in targets.items()
        if rank[target.split(".")[0]] > rank[name.split(".")[0]]
    ]
    assert not upward, "imports against the layers (klondike_env <- agents <- klondike_app):\n" + "\n".join(upward)


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a cycle path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return components


def test_find_cycles_finds_a_cycle_and_only_one():
    made_up = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert find_cycles(made_up) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_module_takes_part_in_an_import_cycle(graph):
    cycles = find_cycles(graph)
    lines = [" <-> ".join(component) + ": " + "; ".join(
        f"{name} imports {target} (line {line})" for name in component
        for target, line in graph[name].items() if target in component) for component in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(lines)
