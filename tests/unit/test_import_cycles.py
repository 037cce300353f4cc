"""Issue 10.3: `domain/`, `projections/` and `server/` have no import cycle, not even through
an import inside a function or one that only names a type.

The graph is read with `ast` from the source: every `import` and `from ... import` at any
depth (module level, in a function, in a branch, under `if TYPE_CHECKING:`) is an edge, to
the module it names (for `from pkg import name`, to `pkg.name` when that is a module, else
to `pkg`). A type-only import never runs, but a cycle through one is still two modules that
need each other to be understood (and checked): `Ctx` and the `RuleSystem` Protocol name
each other, so they share domain/context.py. A parent package is not an edge of its
submodules (the usual convention of import linters).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, here: str, is_package: bool, known: set[str]) -> set[str]:
    out: set[str] = set()

    def resolve(base: str, names: list[str]) -> None:
        for name in names:
            full = f"{base}.{name}" if base else name
            out.add(full if full in known else base)

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                out.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = here if is_package else here.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                resolve(base, [alias.name for alias in child.names])
            walk(child)

    walk(tree)
    return {m for m in out if m in known and m != here}


def graph(root: Path, *packages: str) -> dict[str, set[str]]:
    """Module -> the modules of `packages` it imports, read from the source under `root`."""
    files = {_module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    known = set(files)
    return {
        name: _imports(ast.parse(path.read_text()), name, path.name == "__init__.py", known)
        for name, path in files.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first walk, each as the path that closes it."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_domain_has_no_import_cycle_even_through_function_level_or_type_only_imports() -> None:
    edges = graph(ROOT, "domain")
    assert "domain.encounter" in edges and "domain.rules.d20_na.attack" in edges
    assert "domain.terms" in edges["domain.context"]  # a plain edge the walk must see
    assert cycles(edges) == []


def test_domain_projections_and_server_have_no_import_cycle_across_the_three() -> None:
    edges = graph(ROOT, "domain", "projections", "server")
    assert "projections.board" in edges and "server.app" in edges
    assert "domain.encounter" in edges["server.services.encounters"]  # edges cross the packages
    assert cycles(edges) == []


def test_the_walk_sees_an_import_inside_a_function_and_the_cycle_it_closes(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "encounter.py").write_text("from pkg.rules import REGISTRY\n")
    (pkg / "rules" / "__init__.py").write_text("from pkg.rules.system import System\n")
    (pkg / "rules" / "system.py").write_text(
        "def end(ctx):\n    from pkg.encounter import end_turn\n    end_turn(ctx)\n"
    )
    edges = graph(tmp_path, "pkg")
    assert edges["pkg.rules.system"] == {"pkg.encounter"}
    assert cycles(edges) == [["pkg.encounter", "pkg.rules", "pkg.rules.system", "pkg.encounter"]]


def test_the_walk_counts_an_import_under_type_checking_and_the_cycle_it_closes(
    tmp_path: Path,
) -> None:
    """The two cycles this walk once let through: `Ctx` typing its rules with a Protocol
    whose module imports `Ctx`, and one across two packages, each typed on the other."""
    for name in ("pkg", "other"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    guarded = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from {} import {}\n"
    (tmp_path / "pkg" / "context.py").write_text(guarded.format("pkg.base", "RuleSystem"))
    (tmp_path / "pkg" / "base.py").write_text("from pkg.context import Ctx\n")
    (tmp_path / "pkg" / "board.py").write_text(
        "import typing\n\nif typing.TYPE_CHECKING:\n    import other.hub\n"
    )
    (tmp_path / "other" / "hub.py").write_text(guarded.format("pkg", "board"))
    edges = graph(tmp_path, "pkg", "other")
    assert edges["pkg.context"] == {"pkg.base"}
    assert edges["pkg.board"] == {"other.hub"}
    assert cycles(edges) == [
        ["other.hub", "pkg.board", "other.hub"],
        ["pkg.base", "pkg.context", "pkg.base"],
    ]
    assert cycles(graph(tmp_path, "pkg")) == [["pkg.base", "pkg.context", "pkg.base"]]


def test_the_encounter_and_the_board_probe_no_rule_system_hook() -> None:
    """Every hook is in the RuleSystem Protocol: nothing is looked up by name."""
    for path in ("domain/encounter.py", "projections/board.py", "domain/context.py"):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        probes = [
            ast.unparse(node)
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
            and "rules" in ast.unparse(node.args[0])
        ]
        assert probes == [], path
