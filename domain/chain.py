"""The hash chain of a stream (CONTRACT section 5), standard library only.

`canonical` is the envelope without `position`, `prev_hash` and `hash`, as UTF-8 JSON
with keys sorted at every level, no spaces and non-ASCII unescaped. Floats are refused:
they have no single canonical text, so no event may carry one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

GENESIS = "0" * 64
_LEFT_OUT = frozenset({"position", "prev_hash", "hash"})


# What json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False) builds at
# every call, built once: the same bytes, without the per-call construction.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_LEAVES = (str, int, bool, type(None))


def _no_floats(value: Any) -> None:
    # Exact type tests first: isinstance against the Mapping ABC costs ~1 us a call, and
    # this walks every value of every event appended (17 us for a small event before).
    kind = type(value)
    if kind in _LEAVES:
        return
    if kind is dict:
        for item in value.values():
            _no_floats(item)
        return
    if kind is list or kind is tuple:
        for item in value:
            _no_floats(item)
        return
    if isinstance(value, float):
        raise ValueError("events may not carry floats (no canonical form)")
    if isinstance(value, Mapping):
        for item in value.values():
            _no_floats(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _no_floats(item)


def canonical(envelope: Mapping[str, Any]) -> bytes:
    """The bytes that are hashed for one envelope."""
    body = {k: v for k, v in envelope.items() if k not in _LEFT_OUT}
    _no_floats(body)
    return _ENCODER.encode(body).encode("utf-8")


def link(prev_hash: str, envelope: Mapping[str, Any]) -> str:
    """hash = hex(sha256(bytes.fromhex(prev_hash) + canonical))."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical(envelope)).hexdigest()


class Row(TypedDict):
    """One event ready to store: what `fracas_append` inserts, and what any store keeps."""

    type: str
    data: dict[str, Any]
    meta: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str


def chain_rows(
    stream: str,
    expected_version: int,
    prev_hash: str,
    events: Sequence[tuple[str, dict[str, Any]]],
    meta: Mapping[str, Any],
    recorded_at: str,
) -> list[Row]:
    """The rows of one append: versions expected_version+1.., each linked to the last.

    `events` are (type, data) pairs of plain JSON values; `recorded_at` is added to
    `meta` (so it is hashed) and every row shares that one meta. Pure: the caller picks
    the time, so the same inputs always give the same hashes. Raises ValueError for a
    float anywhere (see `canonical`).
    """
    full_meta = {**meta, "recorded_at": recorded_at}
    rows: list[Row] = []
    previous = prev_hash
    for version, (kind, data) in enumerate(events, start=expected_version + 1):
        envelope = {"stream": stream, "version": version, "type": kind, "data": data}
        digest = link(previous, {**envelope, "meta": full_meta})
        rows.append(
            Row(
                type=kind,
                data=data,
                meta=full_meta,
                recorded_at=recorded_at,
                prev_hash=previous,
                hash=digest,
            )
        )
        previous = digest
    return rows


def first_break(envelopes: Iterable[Mapping[str, Any]]) -> str | None:
    """None if the chain of one stream's envelopes (in version order) holds, else why not."""
    prev = GENESIS
    expected_version = 1
    for env in envelopes:
        version = env.get("version")
        if version != expected_version:
            return f"version {version} where {expected_version} was expected"
        if env.get("prev_hash") != prev:
            return f"version {version}: prev_hash does not match the previous hash"
        if link(prev, env) != env.get("hash"):
            return f"version {version}: hash does not match its content"
        prev = str(env["hash"])
        expected_version += 1
    return None
