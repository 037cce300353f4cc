"""RFC 6902 JSON Patches from one board to the next (CONTRACT section 7, `patch=1`).

jsonpatch (python-json-patch) makes exact, small patches, but its list diff runs
difflib over a sorted copy of every member: 1.2 ms for the 30-line log window alone,
paid once per role per update. Here equal subtrees are skipped with `==` (C speed; a
container it finds equal is checked once more as encoded text, 1 and True being equal),
dicts and same-length lists recurse, a list that slid (the log tail: lines drop off
the front, new ones come at the end or between kept ones, as when a narrated line lands
before a later one) becomes removes at 0 and adds, whichever of the two is shorter, a
dict key that was renamed a move and a small patch, and only a list that changed
length otherwise is handed to jsonpatch. The output is plain
`{"op", "path", "value"?}` dicts, checked against jsonpatch.apply_patch in the tests.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import msgspec

__all__ = ["diff", "escape"]

_encode = msgspec.json.Encoder().encode

Op = dict[str, Any]


def diff(old: Any, new: Any) -> list[Op]:
    """The operations that turn `old` into `new` (both plain JSON values)."""
    out: list[Op] = []
    _diff("", old, new, out)
    return out


def escape(key: str) -> str:
    """One JSON Pointer reference token (RFC 6901: `~` is `~0`, `/` is `~1`)."""
    return key.replace("~", "~0").replace("/", "~1")


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: Python's `==` holds 1 and True (and 0 and False) equal, at any
    depth, so containers it finds equal are compared once more as encoded text."""
    if type(a) is not type(b) or a != b:
        return False
    return type(a) not in (dict, list) or _encode(a) == _encode(b)


def _diff(path: str, old: Any, new: Any, out: list[Op]) -> None:
    if _same(old, new):
        return
    if type(old) is dict and type(new) is dict:
        _diff_dict(path, old, new, out)
    elif type(old) is list and type(new) is list:
        _diff_list(path, old, new, out)
    else:
        out.append({"op": "replace", "path": path, "value": new})


def _diff_dict(path: str, old: dict[str, Any], new: dict[str, Any], out: list[Op]) -> None:
    gone = [key for key in old if key not in new]
    came = [key for key in new if key not in old]
    for key, value in old.items():
        if key in new:
            _diff(f"{path}/{escape(key)}", value, new[key], out)
    # A key renamed (the board's `legal` when the turn passes: one combatant's actions
    # out, the next one's in, mostly alike) is a move and a small patch when that is
    # shorter than removing one and adding the other whole.
    moved: set[int] = set()
    for i, (was, now) in enumerate(zip(gone, came, strict=False)):
        a, b = old[was], new[now]
        if type(a) is type(b) and type(a) in (dict, list):
            where = f"{path}/{escape(now)}"
            sub: list[Op] = []
            _diff(where, a, b, sub)
            if len(_encode(sub)) < len(_encode(b)):
                out.append({"op": "move", "from": f"{path}/{escape(was)}", "path": where})
                out.extend(sub)
                moved.add(i)
    for i, key in enumerate(gone):
        if i not in moved:
            out.append({"op": "remove", "path": f"{path}/{escape(key)}"})
    for i, key in enumerate(came):
        if i not in moved:
            out.append({"op": "add", "path": f"{path}/{escape(key)}", "value": new[key]})


def _diff_list(path: str, old: list[Any], new: list[Any], out: list[Op]) -> None:
    if len(old) == len(new):
        # In place, each changed item costs an op or more; a window that slid costs its
        # removes and adds: the window when it is fewer ops (the log tail), else in place.
        changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if not _same(a, b)]
        slid = _window(path, old, new) if len(changed) > 1 else None
        if slid is None or len(slid) >= len(changed):
            for i in changed:
                _diff(f"{path}/{i}", old[i], new[i], out)
            return
    else:
        slid = _window(path, old, new)
    if slid is not None:
        out.extend(slid)
        return
    if not old or not new:
        out.append({"op": "replace", "path": path, "value": new})
        return
    for op in jsonpatch.make_patch(old, new).patch:
        op = dict(op)
        op["path"] = path + op["path"]
        if "from" in op:
            op["from"] = path + op["from"]
        out.append(op)


WINDOW = 200  # longer lists are not searched for a slid window (quadratic at worst)


def _window(path: str, old: list[Any], new: list[Any]) -> list[Op] | None:
    """`new` as `old` less its first k items (k as small as can be) with new items added
    at the end or between the kept ones: k removes at 0, then the adds. None when no
    such k keeps an item (a replace of the whole list is then as short)."""
    if not old or not new or len(old) > WINDOW or len(new) > WINDOW:
        return None
    for k in range(len(old)):
        kept = old[k:]
        if len(kept) > len(new):
            continue
        at = _placed(kept, new)
        if at is None:
            continue
        ops: list[Op] = [{"op": "remove", "path": f"{path}/0"} for _ in range(k)]
        last = max(at)
        for j, item in enumerate(new):
            if j not in at:  # past the last kept item it is an append
                where = "-" if j > last else str(j)
                ops.append({"op": "add", "path": f"{path}/{where}", "value": item})
        return ops
    return None


def _placed(kept: list[Any], new: list[Any]) -> set[int] | None:
    """The indexes of `new` where `kept`'s items stand, in order (greedy), or None."""
    at: set[int] = set()
    i = 0
    for j, item in enumerate(new):
        if i < len(kept) and _same(item, kept[i]):
            at.add(j)
            i += 1
    return at if i == len(kept) else None
