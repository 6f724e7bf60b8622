"""klondike_env.solver's modules import one another one way, and only by public names."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import klondike_env.solver

PACKAGE = Path(klondike_env.solver.__file__).resolve().parent
PREFIX = "klondike_env.solver"
MODULES = sorted(path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__")


def sibling_imports(module: str) -> list[tuple[str, str]]:
    """``(sibling module, name)`` for each name ``module`` imports from another module of the package."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            if node.module == PREFIX:  # from klondike_env.solver import <module>
                found += [(alias.name, "") for alias in node.names]
            else:
                found += [(node.module.removeprefix(PREFIX + "."), alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name.removeprefix(PREFIX + "."), "") for alias in node.names
                      if alias.name.startswith(PREFIX + ".")]
    return found


def test_no_private_name_is_imported_across_modules():
    private = [f"{module} imports {name} from {sibling}" for module in MODULES
               for sibling, name in sibling_imports(module) if name.startswith("_")]
    assert not private


def test_the_modules_import_each_other_without_a_cycle():
    graph = {module: {sibling for sibling, _ in sibling_imports(module)} for module in MODULES}
    assert set().union(*graph.values()) <= set(MODULES)
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, "import cycle: " + " -> ".join([*path[path.index(module):], module])
        if module in done:
            return
        for sibling in sorted(graph[module]):
            visit(sibling, [*path, module])
        done.add(module)

    for module in MODULES:
        visit(module, [])


def test_the_checks_see_a_cycle_and_a_private_import(tmp_path, monkeypatch):
    # the two checks above have teeth: a package whose modules do both fails them
    (tmp_path / "a.py").write_text("from klondike_env.solver.b import _hidden\n")
    (tmp_path / "b.py").write_text("from klondike_env.solver.a import shown\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "MODULES", ["a", "b"])
    for check in (test_no_private_name_is_imported_across_modules, test_the_modules_import_each_other_without_a_cycle):
        try:
            check()
        except AssertionError:
            continue
        raise AssertionError(f"{check.__name__} passed on a bad package")


def test_each_module_stays_short():
    lengths = {module: len((PACKAGE / f"{module}.py").read_text(encoding="utf-8").splitlines()) for module in MODULES}
    assert max(lengths.values()) <= 500, lengths
