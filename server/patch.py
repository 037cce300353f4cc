"""RFC 6902 JSON Patches from one board to the next (CONTRACT section 7, `patch=1`).

jsonpatch (python-json-patch) makes exact, small patches, but its list diff runs
difflib over a sorted copy of every member: 1.2 ms for the 30-line log window alone,
paid once per role per update. Here equal subtrees are skipped with `==` (C speed),
dicts and same-length lists recurse, a list that slid (the log tail: lines drop off
the front, new ones come at the end) becomes removes at 0 and appends, a dict key that
was renamed a move and a small patch, and only a list
that changed length otherwise is handed to jsonpatch. The output is plain
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


def _diff(path: str, old: Any, new: Any, out: list[Op]) -> None:
    if type(old) is type(new) and old == new:
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
    if len(old) == len(new) and not _slid(old, new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _diff(f"{path}/{i}", a, b, out)
        return
    shift = _shift(old, new)
    if shift is not None:
        out.extend({"op": "remove", "path": f"{path}/0"} for _ in range(shift))
        kept = len(old) - shift
        out.extend({"op": "add", "path": f"{path}/-", "value": v} for v in new[kept:])
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


def _shift(old: list[Any], new: list[Any]) -> int | None:
    """k if `new` is `old[k:]` followed by new items (k may be 0: appends only)."""
    if not new:
        return None
    for k in range(len(old)):  # at least one item kept: else a replace is shorter
        kept = len(old) - k
        if kept <= len(new) and old[k] == new[0] and old[k:] == new[:kept]:
            return k if k or kept < len(new) else None
    return None


def _slid(old: list[Any], new: list[Any]) -> bool:
    """A window of the same length moved on by some items (cheaper as removes + adds)."""
    return bool(old) and old[0] != new[0] and _shift(old, new) not in (None, 0)
