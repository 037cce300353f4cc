"""The rooms of server/ and the imports between them (issue 22): prints the graph, and with
`--check` exits 1 on any arrow against the layers.

Layers, top to bottom; a room may import its own modules and any room of a lower layer,
never one of its own layer or above:

    cli        the `fracas` command line (starts the app, runs offline commands)
    app        server/app.py, the composition root of `fracas serve`: with bootstrap (that of
               the offline commands), the only modules that pick adapters
    http live webhooks   the edges: HTTP routes, live sockets, webhook delivery
    services   the application: load -> decide -> append; no starlette, no SQL
    store      port.py (the port) and its adapters (PostgreSQL, memory, LISTEN, embedded)

Outside `store` itself and the composition root, `server.store` is reached through its
port (`server.store.port`) alone. domain/ and projections/ are below every room (tests/
unit/test_import_cycles.py keeps them free of server/).

The page scripts under server/static/ have rooms too, checked the same way:

    entry      app.js (the encounter, home, War and resolver pages' router)
    pages      pages/: home, War, resolver, API docs (one module per page)
    encounter  encounter/: the board, the GM console and the player's controls, audit, alerts
    lib        lib/: the small library (DOM, API calls, live socket, patch, storage, charts,
               dialogs)
    i18n       i18n/: every word the pages say, English and French

Usage: python .ci/rooms.py [--check]
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS: list[tuple[str, ...]] = [
    ("cli",),
    ("app", "bootstrap"),
    ("http", "live", "webhooks"),
    ("services",),
    ("store",),
]
# Arrows between rooms of one layer that are there on purpose, each with its reason.
ALLOWED: dict[tuple[str, str], str] = {
    ("http", "live"): "the API documents (http/openapi.py) describe the websocket frames too",
    ("http", "webhooks"): "the GM's webhook route vets a URL with delivery's own address rules",
}
PORT = "server.store.port"
STATIC_LAYERS: list[tuple[str, ...]] = [("entry",), ("pages",), ("encounter",), ("lib",), ("i18n",)]
_JS_IMPORT = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*)["'](\.{1,2}/[^"']+\.js)["']""")


def room_of(module: str) -> str | None:
    """`server.http.tokens` -> `http`; `server.app` -> `app`; not server/ -> None."""
    parts = module.split(".")
    if parts[0] != "server" or len(parts) < 2:
        return None
    return parts[1]


def layer_of(room: str) -> int:
    for i, rooms in enumerate(LAYERS):
        if room in rooms:
            return i
    raise KeyError(f"server/{room} is in no layer: add it to LAYERS in .ci/rooms.py")


def imports(path: Path, module: str) -> set[str]:
    """Every module `path` imports (absolute names), TYPE_CHECKING and local ones too."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules(root: Path = ROOT) -> dict[str, Path]:
    out = {}
    for path in sorted((root / "server").rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        out[name] = path
    return out


def edges(root: Path = ROOT) -> dict[tuple[str, str], set[str]]:
    """(from room, to room) -> the module pairs making that arrow."""
    known = modules(root)
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, path in known.items():
        src = room_of(name)
        if src is None or name == "server":
            continue
        for target in imports(path, name):
            if target not in known or target == "server":
                continue
            dst = room_of(target)
            if dst is not None and dst != src:
                out[(src, dst)].add(f"{name} -> {target}")
    return out


def problems(root: Path = ROOT) -> list[str]:
    found = []
    for (src, dst), pairs in sorted(edges(root).items()):
        a, b = layer_of(src), layer_of(dst)
        if a < b or (src, dst) in ALLOWED:
            pass
        else:
            found += [f"against the layers ({src} -> {dst}): {p}" for p in sorted(pairs)]
        if dst == "store" and src not in ("app", "bootstrap"):
            found += [
                f"an adapter outside the composition root: {p}"
                for p in sorted(pairs)
                if p.split(" -> ")[1] != PORT
            ]
    return found


def static_room(path: Path, static: Path) -> str:
    rel = path.relative_to(static)
    return rel.parts[0] if len(rel.parts) > 1 else "entry"


def static_edges(root: Path = ROOT) -> dict[tuple[str, str], set[str]]:
    """The page scripts' arrows between rooms: (from, to) -> the file pairs."""
    static = root / "server" / "static"
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in sorted(static.rglob("*.js")):
        src = static_room(path, static)
        for target in _JS_IMPORT.findall(path.read_text()):
            dst_path = (path.parent / target).resolve()
            dst = static_room(dst_path, static)
            if dst != src:
                pair = f"{path.relative_to(static)} -> {dst_path.relative_to(static)}"
                out[(src, dst)].add(pair)
    return out


def static_problems(root: Path = ROOT) -> list[str]:
    static = root / "server" / "static"
    layer = {room: i for i, rooms in enumerate(STATIC_LAYERS) for room in rooms}
    found = []
    for path in sorted(static.rglob("*.js")):
        room = static_room(path, static)
        if room not in layer:
            found.append(f"server/static/{path.relative_to(static)} is in no room")
        for target in _JS_IMPORT.findall(path.read_text()):
            if not (path.parent / target).is_file():
                found.append(f"server/static/{path.relative_to(static)} imports a missing {target}")
    for (src, dst), pairs in sorted(static_edges(root).items()):
        if layer.get(src, -1) >= layer.get(dst, -1):
            found += [f"against the layers (static {src} -> {dst}): {p}" for p in sorted(pairs)]
    return found


def main(argv: list[str]) -> int:
    graph = edges()
    for i, rooms in enumerate(LAYERS):
        print(f"layer {i}: {' '.join(rooms)}")
    print()
    for (src, dst), pairs in sorted(graph.items(), key=lambda kv: (layer_of(kv[0][0]), kv[0])):
        mark = "  (allowed: " + ALLOWED[(src, dst)] + ")" if (src, dst) in ALLOWED else ""
        print(f"{src:>9} -> {dst:<9} {len(pairs):3} imports{mark}")
    print()
    print("server/static/: " + " > ".join(" ".join(rooms) for rooms in STATIC_LAYERS))
    for (src, dst), pairs in sorted(static_edges().items()):
        print(f"{src:>9} -> {dst:<9} {len(pairs):3} imports")
    found = problems() + static_problems()
    if found:
        print()
        print("\n".join(found))
    if "--check" in argv and found:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
