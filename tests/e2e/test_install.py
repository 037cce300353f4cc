"""A non-editable install works: the wheel holds every package, the static UI and the rule
texts, and a process that imports only from it serves them (issue 10: packages are found,
not listed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
from pathlib import Path
site = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(site))  # ahead of the editable install's finder
from domain.rules import REGISTRY
import domain, projections.log, server.app, server.services.ruletext
for module in (domain, projections.log, server.app):
    assert Path(module.__file__).resolve().is_relative_to(site), module.__file__
from server.app import STATIC
assert (STATIC / "index.html").is_file() and (STATIC / "app.js").is_file()
assert server.services.ruletext.rule_texts()["RK-60"][0] == "ranks-d100"
print(" ".join(sorted(REGISTRY)))
"""


def test_a_built_wheel_holds_every_package_and_serves_the_ui_and_rule_texts(
    tmp_path: Path,
) -> None:
    # A copy of the project's files: building in the checkout would reuse its build/.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "screenshots", "tests"))  # fmt: skip
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (tmp_path / "dist").glob("fracas-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    packages = {
        str(p.parent.relative_to(ROOT)).replace("/", ".")
        for top in ("domain", "projections", "server")
        for p in (ROOT / top).rglob("__init__.py")
    }
    for package in packages:
        assert f"{package.replace('.', '/')}/__init__.py" in names, package
    assert "server/static/index.html" in names and "server/ruletexts/d20-na.md" in names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-I", str(probe), str(site)],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.split() == ["d100-tcs", "d20-na", "plain-d100", "ranks-d100"]
