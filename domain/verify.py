"""The audit verifier (CONTRACT sections 5 and 6) over plain envelope dicts.

It needs no database and no server: give it the `events` of an audit bundle (or call
`verify_bundle` on the whole bundle) and it checks, per stream:

- the hash chain (`domain.chain.first_break`, events taken in version order);
- every revealed seed against its commitment: sha256(bytes.fromhex(seed)) == commitment;
- roll numbers of each seed are 1, 2, 3... with no gap and no repeat (a missing number
  is a discarded roll; a discarded *last* roll cannot be seen this way), every roll comes
  after its seed's commitment and before its reveal;
- every server roll uses the client seed the `entropy_added {value}` events make
  (`domain.dice.client_seed` of their values in order, "" without any, joined as the
  stream's `encounter_opened` says in `entropy_join`: "netstring" for encounters opened
  since bundle format fracas-audit/2, "concat" when the field is absent), and no entropy
  is added after the first roll;
- every server roll of a revealed seed, recomputed with `domain.dice.draw` from the
  die sizes in its `sizes` field (or its `expr` when the event has no `sizes`);
- every roll's `total` is what its `expr` gives: the sum of the faces plus the
  expression's constant (rule modifiers belong in `check`, not in `total`).

Manual rolls (dice a GM entered) and rolls of seeds not revealed yet are counted, not
recomputed. A seed id may be committed again once its seed was revealed (a rotation);
the rolls after the new commitment are numbered from 1 again. The encounter id used in
the HMAC message is the `encounter_id` argument, else the stream name after its first
`-` (`encounter-<uuid>` gives `<uuid>`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict, TypeGuard

from domain.chain import first_break
from domain.dice import CONCAT, JOINS, DiceError, check_size, client_seed, draw, parse, total

# The bundle format the server writes, and every one this verifier reads: /2 bundles
# may hold encounters whose `encounter_opened` records a length-prefixed entropy join;
# /1 bundles predate it, and their encounters join by plain concatenation.
BUNDLE_FORMAT = "fracas-audit/2"
BUNDLE_FORMATS = ("fracas-audit/1", "fracas-audit/2")
_HEX_DIGITS = frozenset("0123456789abcdef")


class Report(TypedDict):
    """What the verifier found; `chain` and `dice` are True only if all of it holds."""

    chain: bool
    dice: bool
    rolls_checked: int
    first_problem: str | None
    manual: int
    unrevealed: int
    problems: list[str]
    # How the entropy was joined (the stream's `encounter_opened`; "concat" without it)
    # and, from verify_bundle, the bundle format read.
    entropy_join: str
    format: NotRequired[str]


@dataclass
class _Seed:
    """One commitment of a seed id, the rolls drawn from it and its reveal."""

    seed_id: str
    commitment: str
    next_roll: int = 1
    seen: set[int] = field(default_factory=set)
    rolls: list[tuple[int, Any, Mapping[str, Any]]] = field(default_factory=list)
    revealed: bool = False
    seed: bytes | None = None  # set only when the revealed seed matches the commitment


@dataclass
class _Entropy:
    """The players' contributions, and the client seed they made once rolling began."""

    values: list[str] = field(default_factory=list)
    client_seed: str | None = None  # fixed by the first roll
    join: str = CONCAT  # as encounter_opened records it


@dataclass
class _Tally:
    problems: list[str] = field(default_factory=list)
    rolls_checked: int = 0
    manual: int = 0
    unrevealed: int = 0


def verify(envelopes: Sequence[Mapping[str, Any]], encounter_id: str | None = None) -> Report:
    """Check every stream's hash chain and every roll the envelopes hold."""
    streams: dict[str, list[Mapping[str, Any]]] = {}
    chain_problems: list[str] = []
    if not envelopes:
        chain_problems.append("there are no events to verify")
    for index, envelope in enumerate(envelopes):
        stream = envelope.get("stream") if isinstance(envelope, Mapping) else None
        if not isinstance(stream, str):
            chain_problems.append(f"entry {index} is not an envelope naming its stream")
            continue
        streams.setdefault(stream, []).append(envelope)
    dice = _Tally()
    joins: list[str] = []
    for name, events in streams.items():
        events.sort(key=_version_order)
        try:
            why = first_break(events)
        except (ValueError, TypeError, KeyError) as error:
            why = f"an envelope cannot be hashed ({error})"
        if why is not None:
            chain_problems.append(f"the hash chain of {name} breaks: {why}")
        joins.append(_check_dice(events, encounter_id or name.partition("-")[2], dice))
    problems = chain_problems + dice.problems
    return Report(
        chain=not chain_problems,
        dice=not dice.problems,
        rolls_checked=dice.rolls_checked,
        first_problem=problems[0] if problems else None,
        manual=dice.manual,
        unrevealed=dice.unrevealed,
        problems=problems,
        entropy_join=",".join(dict.fromkeys(joins)) or CONCAT,
    )


def verify_bundle(bundle: Mapping[str, Any]) -> Report:
    """Verify an audit bundle `{"format": "fracas-audit/2" (or /1), "encounter", "events"}`;
    the report's `format` says which format was read."""
    problems: list[str] = []
    encounter = bundle.get("encounter")
    events = bundle.get("events")
    form = bundle.get("format")
    if form not in BUNDLE_FORMATS:
        problems.append(f"the bundle's format is {form!r}, not one of {', '.join(BUNDLE_FORMATS)}")
    if not isinstance(encounter, str) or not isinstance(events, list):
        problems.append("the bundle needs an 'encounter' id and a list of 'events'")
        encounter, events = None, []
    else:
        stream = f"encounter-{encounter}"
        strays = {e.get("stream") for e in events if isinstance(e, Mapping)} - {stream}
        if strays:
            problems.append(f"the bundle of {stream} holds events of {sorted(map(str, strays))}")
    report = verify(events, encounter)
    report["format"] = str(form)
    if form == "fracas-audit/1" and report["entropy_join"] != CONCAT:
        problems.append("a fracas-audit/1 bundle joins entropy by plain concatenation only")
    if problems:
        report["problems"] = problems + report["problems"]
        report["first_problem"] = problems[0]
        report["chain"] = False
    return report


def _version_order(envelope: Mapping[str, Any]) -> tuple[int, int]:
    # Envelopes without a usable version sort first so first_break names them.
    version = envelope.get("version")
    return (1, version) if _is_int(version) else (0, 0)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_DICE_KINDS = ("encounter_opened", "seed_committed", "seed_revealed", "die_rolled", "entropy_added")


def _check_dice(events: Sequence[Mapping[str, Any]], encounter_id: str, tally: _Tally) -> str:
    """Walk one stream in version order, then recompute the rolls of revealed seeds;
    answers the entropy join the stream used."""
    current: dict[str, _Seed] = {}
    every: list[_Seed] = []
    entropy = _Entropy()
    for envelope in events:
        kind, data, version = envelope.get("type"), envelope.get("data"), envelope.get("version")
        if kind not in _DICE_KINDS:
            continue
        if not isinstance(data, Mapping):
            tally.problems.append(f"the {kind} event at version {version} carries no data")
            continue
        if kind == "encounter_opened":
            entropy.join = str(data.get("entropy_join", CONCAT))
            if entropy.join not in JOINS:
                tally.problems.append(f"unknown entropy join {entropy.join!r} at version {version}")
                entropy.join = CONCAT
            continue
        if kind == "die_rolled" and entropy.client_seed is None:
            entropy.client_seed = client_seed(entropy.values, entropy.join)
        if kind == "entropy_added":
            _add_entropy(data, version, entropy, tally)
        elif kind == "seed_committed":
            _commit(data, version, current, every, tally)
        elif kind == "seed_revealed":
            _reveal(data, version, current, tally)
        elif data.get("source") == "manual":
            tally.manual += 1
            _check_total(f"the manual roll at version {version}", data, tally)
        else:
            _server_roll(data, version, current, entropy.client_seed or "", tally)
    for seed in every:
        if seed.seed is not None:
            for n, version, data in seed.rolls:
                where = f"roll {n} of seed {seed.seed_id} (version {version})"
                _recompute(seed.seed, n, where, data, encounter_id, tally)
        elif not seed.revealed:
            tally.unrevealed += len(seed.rolls)
    return entropy.join


def _add_entropy(data: Mapping[str, Any], version: Any, entropy: _Entropy, tally: _Tally) -> None:
    value = data.get("value")
    if entropy.client_seed is not None:
        tally.problems.append(f"entropy was added at version {version}, after the first roll")
    elif not isinstance(value, str):
        tally.problems.append(f"the entropy added at version {version} is not text")
    else:
        entropy.values.append(value)


def _commit(
    data: Mapping[str, Any],
    version: Any,
    current: dict[str, _Seed],
    every: list[_Seed],
    tally: _Tally,
) -> None:
    seed_id, digest = data.get("seed_id"), data.get("commitment")
    if not isinstance(seed_id, str) or not _is_hex(digest, 32):
        tally.problems.append(f"the seed commitment at version {version} is malformed")
        return
    previous = current.get(seed_id)
    if previous is not None and not previous.revealed:
        tally.problems.append(
            f"seed {seed_id} was committed again at version {version} before its seed was "
            "revealed, so its earlier rolls can never be checked"
        )
    current[seed_id] = _Seed(seed_id, str(digest))
    every.append(current[seed_id])


def _reveal(
    data: Mapping[str, Any], version: Any, current: dict[str, _Seed], tally: _Tally
) -> None:
    seed_id, text = data.get("seed_id"), data.get("seed")
    seed = current.get(seed_id) if isinstance(seed_id, str) else None
    if seed is None:
        tally.problems.append(
            f"seed {seed_id} was revealed at version {version} but never committed"
        )
    elif seed.revealed:
        tally.problems.append(f"seed {seed_id} was revealed twice (again at version {version})")
    elif not isinstance(text, str) or not _is_hex(text.lower()):
        seed.revealed = True
        tally.problems.append(f"the seed revealed for {seed_id} at version {version} is not hex")
    else:
        seed.revealed = True
        secret = bytes.fromhex(text)
        if hashlib.sha256(secret).hexdigest() != seed.commitment:
            tally.problems.append(
                f"the seed revealed for {seed_id} at version {version} does not match its "
                "commitment"
            )
        else:
            seed.seed = secret


def _server_roll(
    data: Mapping[str, Any],
    version: Any,
    current: dict[str, _Seed],
    expected_client: str,
    tally: _Tally,
) -> None:
    n, seed_id, source = data.get("roll"), data.get("seed_id"), data.get("source")
    where = f"roll {n} of seed {seed_id} (version {version})"
    if source != "server":
        tally.problems.append(f"the roll at version {version} has an unknown source {source!r}")
        return
    if not _is_int(n) or n < 1 or not isinstance(seed_id, str):
        tally.problems.append(
            f"the server roll at version {version} has no valid roll number and seed id"
        )
        return
    seed = current.get(seed_id)
    if seed is None:
        tally.problems.append(f"{where} uses a seed that was never committed before it")
        return
    _check_numbering(seed, n, where, tally)
    if seed.revealed:
        tally.problems.append(f"{where} was drawn after its seed was revealed")
    client = data.get("client_seed")
    if client != expected_client:
        tally.problems.append(
            f"{where} uses client seed {client!r} but the entropy added before the first "
            f"roll makes {expected_client!r}"
        )
    seed.rolls.append((n, version, data))
    _check_total(where, data, tally)


def _check_numbering(seed: _Seed, n: int, where: str, tally: _Tally) -> None:
    if n in seed.seen:
        tally.problems.append(f"{where} repeats a roll number: the same roll drawn twice")
    elif n < seed.next_roll:
        tally.problems.append(f"{where} comes after a later roll of the same seed")
    for missing in range(seed.next_roll, n):
        tally.problems.append(f"roll {missing} of seed {seed.seed_id} is missing: a discarded roll")
    seed.seen.add(n)
    seed.next_roll = max(seed.next_roll, n + 1)


def _check_total(where: str, data: Mapping[str, Any], tally: _Tally) -> None:
    """The faces fit the dice and `total` is what `expr` makes of them."""
    text, faces = data.get("expr"), data.get("faces")
    if not isinstance(text, str):
        tally.problems.append(f"{where} records no dice expression")
        return
    try:
        expr = parse(text)
    except DiceError as error:
        tally.problems.append(f"{where}: its expression {text!r} cannot be read ({error})")
        return
    sizes = data.get("sizes", expr.sizes)
    if sizes != expr.sizes:
        tally.problems.append(f"{where}: {expr} does not roll the dice recorded, {sizes}")
        return
    if not isinstance(faces, list):
        tally.problems.append(f"{where} records no faces")
        return
    try:
        expected = total(expr, faces)
    except DiceError as error:
        tally.problems.append(f"{where}: {error}")
        return
    if data.get("total") != expected:
        tally.problems.append(
            f"{where}: the total is {data.get('total')!r} but {expr} showing {faces} "
            f"makes {expected}"
        )


def _recompute(
    secret: bytes, n: int, where: str, data: Mapping[str, Any], encounter_id: str, tally: _Tally
) -> None:
    sizes, text = data.get("sizes"), data.get("expr")
    if sizes is None and isinstance(text, str):
        try:
            sizes = parse(text).sizes
        except DiceError:
            sizes = None  # already reported by _check_total
    client = data.get("client_seed")
    if not isinstance(sizes, list) or not isinstance(client, str):
        tally.problems.append(f"{where} cannot be recomputed: its die sizes are unknown")
        return
    try:
        for size in sizes:
            check_size(size)
    except DiceError as error:
        tally.problems.append(f"{where} cannot be recomputed: {error}")
        return
    tally.rolls_checked += 1
    expected = draw(secret, encounter_id, client, n, sizes)
    if data.get("faces") != expected:
        tally.problems.append(
            f"{where} shows {data.get('faces')} but the revealed seed gives {expected}"
        )


def _is_hex(value: Any, length: int | None = None) -> bool:
    """Lower-case hex digits only (bytes.fromhex would also let spaces through)."""
    return (
        isinstance(value, str)
        and len(value) % 2 == 0
        and (length is None or len(value) == 2 * length)
        and set(value) <= _HEX_DIGITS
    )
