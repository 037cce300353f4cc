"""Issue 22: server/ is in rooms whose imports follow the layers (.ci/rooms.py says which:
cli > app, bootstrap > http, live, webhooks > services > store), and only the composition
roots reach an adapter of the store."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _rooms() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rooms", ROOT / ".ci" / "rooms.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy_server(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "server", tmp_path / "server", ignore=shutil.ignore_patterns("static"))
    return tmp_path


def test_no_import_of_server_points_against_the_layers() -> None:
    assert _rooms().problems() == []


def test_every_room_of_server_is_in_a_layer() -> None:
    rooms = _rooms()
    found = {
        p.name for p in (ROOT / "server").iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }
    found |= {p.stem for p in (ROOT / "server").glob("*.py") if p.stem != "__init__"}
    for room in found:
        rooms.layer_of(room)  # KeyError for a room nobody placed


def test_a_store_importing_a_service_is_against_the_layers(tmp_path: Path) -> None:
    root = _copy_server(tmp_path)
    port = root / "server" / "store" / "port.py"
    port.write_text(port.read_text() + "\nfrom server.services import lru  # noqa\n")
    assert any("store -> services" in p for p in _rooms().problems(root))


def test_an_edge_importing_another_edge_is_against_the_layers(tmp_path: Path) -> None:
    root = _copy_server(tmp_path)
    hub = root / "server" / "live" / "hub.py"
    hub.write_text(hub.read_text() + "\nfrom server.http import requests  # noqa\n")
    assert any("live -> http" in p for p in _rooms().problems(root))


def test_a_route_reaching_the_postgresql_adapter_is_refused(tmp_path: Path) -> None:
    root = _copy_server(tmp_path)
    tokens = root / "server" / "http" / "tokens.py"
    tokens.write_text(tokens.read_text() + "\nfrom server.store import postgres  # noqa\n")
    found = _rooms().problems(root)
    assert any("adapter outside the composition root" in p and "postgres" in p for p in found)


def _copy_static(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "server" / "static", tmp_path / "server" / "static")
    return tmp_path


def test_the_page_scripts_follow_their_rooms() -> None:
    assert _rooms().static_problems() == []


def test_the_library_importing_a_page_part_is_against_the_layers(tmp_path: Path) -> None:
    root = _copy_static(tmp_path)
    dom = root / "server" / "static" / "lib" / "dom.js"
    dom.write_text('import { openAudit } from "../encounter/audit.js";\n' + dom.read_text())
    assert any("static lib -> encounter" in p for p in _rooms().static_problems(root))


def test_a_sibling_in_a_room_is_fine_and_words_using_the_library_are_not(tmp_path: Path) -> None:
    root = _copy_static(tmp_path)
    home = root / "server" / "static" / "pages" / "home.js"
    home.write_text('import { warPage } from "./war.js";\n' + home.read_text())
    found = _rooms().static_problems(root)
    assert found == []  # one room: a page may use a sibling page
    words = root / "server" / "static" / "i18n" / "index.js"
    words.write_text('import { api } from "../lib/api.js";\n' + words.read_text())
    assert any("static i18n -> lib" in p for p in _rooms().static_problems(root))


def test_a_page_script_outside_the_rooms_or_a_missing_import_is_refused(tmp_path: Path) -> None:
    root = _copy_static(tmp_path)
    static = root / "server" / "static"
    (static / "extra").mkdir()
    (static / "extra" / "x.js").write_text('import { t } from "../i18n/nowhere.js";\n')
    found = _rooms().static_problems(root)
    assert "server/static/extra/x.js is in no room" in found
    assert any("imports a missing ../i18n/nowhere.js" in p for p in found)
