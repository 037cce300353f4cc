"""One shape for every rule package (issue 22 finding 5): the same module names for the
same concerns, so a reader who knows one system finds their way in the others."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "domain" / "rules"
PACKAGES = sorted(p for p in RULES.iterdir() if (p / "__init__.py").exists() and p.name != "common")
SHAPE = {
    "system.py": "the RuleSystem class",
    "settings.py": "SETTINGS, every Proposed default",
    "specs.py": "ACTIONS (and REACTIONS), the action specs",
    "tables.py": "the rules' numbers",
    "sheet.py": "sheets and presets",
    "options.py": "the options an act or react takes",
    "legal.py": "what the UI may offer",
    "payloads.py": "the facts a result event stores",
}
WHERE = {"SETTINGS": "settings.py", "ACTIONS": "specs.py", "REACTIONS": "specs.py"}


def _assigned(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def test_there_are_three_rule_packages() -> None:
    assert [p.name for p in PACKAGES] == ["d20_na", "ranks", "tcs"]


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_rule_package_has_the_same_modules_for_the_same_concerns(package: Path) -> None:
    missing = {name: why for name, why in SHAPE.items() if not (package / name).is_file()}
    assert missing == {}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_settings_and_action_specs_are_defined_in_their_modules(package: Path) -> None:
    for path in sorted(package.glob("*.py")):
        for name in _assigned(path) & set(WHERE):
            assert path.name == WHERE[name], f"{package.name}/{path.name} defines {name}"
    assert "SETTINGS" in _assigned(package / "settings.py")
    assert "ACTIONS" in _assigned(package / "specs.py")
