"""Commit-reveal dice (CONTRACT section 6): standard library + msgspec, no I/O.

The server draws a secret seed per seed id, publishes only `commitment(seed)`, and turns
roll number `n` into faces with `draw`. Once the seed is revealed anyone can recompute
every roll (see `domain.verify`).

The domain never rolls on its own: a decider is handed a `Roller` and records the
`Drawn` faces in a `die_rolled` event; replay reads the faces and never rolls again.
`SeededRoller` is the server's roller, `ManualRoller` records physical dice a GM typed
in, `FixedRoller` gives tests faces chosen in advance.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import count
from typing import Final, Protocol

import msgspec

SEED_BYTES: Final = 32
SERVER: Final = "server"
MANUAL: Final = "manual"

_WORD: Final = 2**32
_MAX_COUNT: Final = 100
_MIN_SIDES: Final = 2
_MAX_SIDES: Final = 1000
_MAX_MODIFIER: Final = 1_000_000
_MAX_EXPR_LENGTH: Final = 100


class DiceError(ValueError):
    """A dice expression, a die size or a face that cannot be used."""

    code = "invalid"


# -- the contract: seeds, commitments and the word stream ---------------------------------


def new_seed() -> bytes:
    """A fresh secret seed of `SEED_BYTES` bytes from the OS CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """hex(sha256(seed)): published before any roll, checked when the seed is revealed."""
    return hashlib.sha256(seed).hexdigest()


# How the contributions are joined before hashing, as `encounter_opened` records it
# (`entropy_join`). CONCAT, with nothing between them, is what encounters opened before
# the field existed used: ["ab", "c"] and ["a", "bc"] give the same seed there. NETSTRING
# writes each value as `<its UTF-8 byte length in decimal>:<its UTF-8 bytes>,`.
CONCAT = "concat"
NETSTRING = "netstring"
JOINS = (CONCAT, NETSTRING)


def joined(contributions: Sequence[str], join: str = NETSTRING) -> bytes:
    """The bytes the client seed hashes: the contributions in order, joined by `join`."""
    if join == CONCAT:
        return "".join(contributions).encode("utf-8")
    if join != NETSTRING:
        raise DiceError(f"unknown entropy join {join!r}; known: {', '.join(JOINS)}")
    out = bytearray()
    for value in contributions:
        raw = value.encode("utf-8")
        out += b"%d:%b," % (len(raw), raw)
    return bytes(out)


def client_seed(contributions: Sequence[str], join: str = CONCAT) -> str:
    """The players' entropy as one string.

    `""` when nobody contributed; otherwise the hex SHA-256 of `joined(contributions,
    join)`: with NETSTRING, `sha256(b"".join(b"%d:%b," % (len(v), v) for v in utf8))`;
    with CONCAT (the default, and every encounter that records no join), of
    `"".join(values).encode("utf-8")`.
    """
    if not contributions:
        return ""
    return hashlib.sha256(joined(contributions, join)).hexdigest()


def dice_words(seed: bytes, encounter_id: str, client_seed: str, n: int) -> Iterator[int]:
    """The endless stream of 32-bit words behind roll `n`.

    The bytes are HMAC-SHA256(key=seed, msg=f"{encounter_id}:{client_seed}:{n}:{i}")
    for i = 0, 1, ... concatenated, read as 4-byte big-endian unsigned words.
    `encounter_id` must already be the uuid in canonical lower-case form.
    """
    if n < 1:
        raise DiceError(f"roll numbers start at 1, not {n}")
    for i in count():
        message = f"{encounter_id}:{client_seed}:{n}:{i}".encode()
        block = hmac.new(seed, message, hashlib.sha256).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset : offset + 4], "big")


def check_size(size: int) -> None:
    """Refuse a die size the word stream cannot serve (1 <= N <= 2**32)."""
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= _WORD:
        raise DiceError(f"a die must have between 1 and 2**32 faces, not {size!r}")


def draw(
    seed: bytes, encounter_id: str, client_seed: str, n: int, sizes: Sequence[int]
) -> list[int]:
    """The faces of roll `n`, one per die size, by rejection sampling.

    A die of N faces takes the next word u with u < 2**32 - (2**32 mod N) and shows
    (u mod N) + 1; words at or above that limit are skipped so every face is equally
    likely. All dice of the roll share one stream of words, in order.
    """
    for size in sizes:
        check_size(size)
    if n < 1:
        raise DiceError(f"roll numbers start at 1, not {n}")
    return _faces(hmac.new(seed, digestmod=hashlib.sha256), encounter_id, client_seed, n, sizes)


_BLOCK: Final = struct.Struct(">8I")  # one HMAC-SHA256 block: eight big-endian words


def _faces(
    keyed: hmac.HMAC, encounter_id: str, client_seed: str, n: int, sizes: Sequence[int]
) -> list[int]:
    """`draw` with the seed's HMAC key already set up (`keyed` is copied, never updated):
    the same words as `dice_words`, without a generator or a key schedule per block."""
    prefix = f"{encounter_id}:{client_seed}:{n}:"
    faces: list[int] = []
    words: tuple[int, ...] = ()
    block = 0
    at = 8
    for size in sizes:
        limit = _WORD - (_WORD % size)
        while True:
            if at == 8:
                mac = keyed.copy()
                mac.update(f"{prefix}{block}".encode())
                words = _BLOCK.unpack(mac.digest())
                block += 1
                at = 0
            u = words[at]
            at += 1
            if u < limit:
                break
        faces.append(u % size + 1)
    return faces


# -- dice expressions ---------------------------------------------------------------------


class DiceExpr(msgspec.Struct, frozen=True):
    """A parsed dice expression such as `2d6+3`, `d100`, `1d20-2` or `3d6+1d4+2`.

    `count` dice of `sides` faces, then `extra` groups `(count, sides)` added after them,
    then the constant `modifier` (every constant of the expression summed, with sign).
    """

    count: int
    sides: int
    modifier: int = 0
    extra: tuple[tuple[int, int], ...] = ()

    @property
    def sizes(self) -> list[int]:
        """One die size per die, in the order the dice are drawn."""
        groups = [(self.count, self.sides), *self.extra]
        return [sides for number, sides in groups for _ in range(number)]

    def __str__(self) -> str:
        groups = [(self.count, self.sides), *self.extra]
        text = "+".join(f"{number}d{sides}" for number, sides in groups)
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text


_TERM = re.compile(r"([+-]?)(?:([0-9]*)d([0-9]+)|([0-9]+))")


def parse(expr: str) -> DiceExpr:
    """Read a dice expression; raise `DiceError` saying what is wrong.

    Terms are `NdM` (N defaults to 1) or whole numbers, joined by `+` or `-`; dice may
    only be added. Case and spaces are ignored. Each group has 1..100 dice of 2..1000
    faces, at most 100 dice in all. A text read before is not read again (a weapon's
    damage dice, at every hit): the expression is frozen, so the one read is shared.
    """
    if type(expr) is str:
        return _parse(expr)
    return _read(expr)


@functools.lru_cache(maxsize=256)  # bounded: texts come from sheets and players
def _parse(expr: str) -> DiceExpr:
    return _read(expr)


def _read(expr: str) -> DiceExpr:
    if not isinstance(expr, str):
        raise DiceError(f"a dice expression is text, not {type(expr).__name__}")
    text = "".join(expr.split()).lower()
    if not text:
        raise DiceError("empty dice expression")
    if len(text) > _MAX_EXPR_LENGTH:
        raise DiceError(f"dice expression longer than {_MAX_EXPR_LENGTH} characters")
    groups: list[tuple[int, int]] = []
    modifier = 0
    position = 0
    while position < len(text):
        match = _TERM.match(text, position)
        if match is None or (position > 0 and not match.group(1)):
            raise DiceError(f"cannot read dice expression {expr!r} at {text[position:]!r}")
        sign, number, sides, constant = match.groups()
        if constant is not None:
            modifier += -int(constant) if sign == "-" else int(constant)
        else:
            if sign == "-":
                raise DiceError(f"dice can only be added, not subtracted, in {expr!r}")
            groups.append(_group(int(number) if number else 1, int(sides)))
        position = match.end()
    if not groups:
        raise DiceError(f"{expr!r} rolls no dice (write e.g. 1d20 or 2d6+3)")
    if sum(number for number, _ in groups) > _MAX_COUNT:
        raise DiceError(f"at most {_MAX_COUNT} dice per roll")
    if abs(modifier) > _MAX_MODIFIER:
        raise DiceError(f"the modifier must stay within ±{_MAX_MODIFIER}")
    (first_count, first_sides), *extra = groups
    return DiceExpr(first_count, first_sides, modifier, tuple(extra))


def _group(number: int, sides: int) -> tuple[int, int]:
    if not 1 <= number <= _MAX_COUNT:
        raise DiceError(f"roll between 1 and {_MAX_COUNT} dice at a time, not {number}")
    if not _MIN_SIDES <= sides <= _MAX_SIDES:
        raise DiceError(f"a die has between {_MIN_SIDES} and {_MAX_SIDES} faces, not {sides}")
    return number, sides


def total(expr: DiceExpr, faces: Sequence[int]) -> int:
    """The sum of the faces plus the modifier, after checking they fit the expression."""
    sizes = expr.sizes
    if len(faces) != len(sizes):
        raise DiceError(f"{expr} needs {len(sizes)} dice, got {len(faces)}")
    for face, size in zip(faces, sizes, strict=True):
        _check_face(face, size)
    return sum(faces) + expr.modifier


def _check_face(face: int, size: int) -> None:
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= size:
        raise DiceError(f"a d{size} shows 1 to {size}, not {face!r}")


# -- rollers ------------------------------------------------------------------------------


class Drawn(msgspec.Struct, frozen=True):
    """The dice of one roll, ready to become a `die_rolled` event's fields.

    `source` is "server" (drawn from seed `seed_id` as roll number `roll`) or "manual"
    (physical dice a GM entered: no seed, no roll number). `sizes` are the dice rolled.
    """

    faces: list[int]
    source: str
    seed_id: str | None
    roll: int | None
    client_seed: str
    sizes: list[int] = []


class Roller(Protocol):
    """Where a decider gets dice: `dice.roll([100])` gives one d100 face."""

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn: ...

    def reveal(self, seed_id: str) -> bytes | None: ...


class SeededRoller:
    """The server's roller: the secret seeds and the next roll number of each seed.

    Public rolls use `public_seed_id`, hidden GM rolls `hidden_seed_id`. `next_roll`
    is the number the next roll of a seed takes (1 for a seed not rolled yet, i.e. one
    more than the number of `die_rolled` events of that seed in the stream).
    """

    def __init__(
        self,
        encounter_id: str,
        seeds: Mapping[str, bytes],
        next_roll: Mapping[str, int],
        client_seed: str,
        public_seed_id: str = "main",
        hidden_seed_id: str = "hidden",
    ) -> None:
        self.encounter_id = encounter_id
        self.client_seed = client_seed
        self.public_seed_id = public_seed_id
        self.hidden_seed_id = hidden_seed_id
        self._seeds = dict(seeds)
        self._next = dict(next_roll)
        self._keyed: dict[str, hmac.HMAC] = {}  # the seeds' HMAC keys, set up once

    def __repr__(self) -> str:
        # Never show the seeds: a repr can end up in a log.
        return (
            f"SeededRoller(encounter_id={self.encounter_id!r}, seeds=<{len(self._seeds)} "
            f"hidden>, next_roll={self._next!r}, client_seed={self.client_seed!r})"
        )

    @property
    def next_roll(self) -> dict[str, int]:
        """A copy of the next roll number per seed id."""
        return dict(self._next)

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn:
        """Draw the next roll of the public (or hidden) seed."""
        dice = _checked_sizes(sizes)
        seed_id = self.hidden_seed_id if hidden else self.public_seed_id
        seed = self._seeds.get(seed_id)
        if seed is None:
            raise DiceError(f"no seed {seed_id!r} to roll with")
        n = self._next.get(seed_id, 1)
        if n < 1:
            raise DiceError(f"roll numbers start at 1, not {n}")
        keyed = self._keyed.get(seed_id)
        if keyed is None:
            keyed = self._keyed[seed_id] = hmac.new(seed, digestmod=hashlib.sha256)
        faces = _faces(keyed, self.encounter_id, self.client_seed, n, dice)
        self._next[seed_id] = n + 1
        return Drawn(faces, SERVER, seed_id, n, self.client_seed, dice)

    def reveal(self, seed_id: str) -> bytes | None:
        """None: this roller keeps its seeds (the server's own subclass reveals at close)."""
        return None


class FixedRoller:
    """Faces chosen in advance, for tests; by default they look like server dice.

    With `source="server"` rolls are numbered 1, 2, 3... per seed ("main", or "hidden"
    for hidden rolls) and the client seed is ""; with `source="manual"` they carry no
    seed and no number. A face outside its die or too few faces raise `DiceError`.
    """

    def __init__(self, faces: Iterable[int], source: str = SERVER) -> None:
        if source not in (SERVER, MANUAL):
            raise DiceError(f"source is {SERVER!r} or {MANUAL!r}, not {source!r}")
        self.source = source
        self._faces = list(faces)
        self._next: dict[str, int] = {}

    @property
    def remaining(self) -> list[int]:
        """The faces not used yet."""
        return list(self._faces)

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn:
        """Take the next faces, one per die."""
        dice = _checked_sizes(sizes)
        faces = _take(self._faces, dice)
        if self.source == MANUAL:
            return Drawn(faces, MANUAL, None, None, "", dice)
        seed_id = "hidden" if hidden else "main"
        n = self._next.get(seed_id, 1)
        self._next[seed_id] = n + 1
        return Drawn(faces, SERVER, seed_id, n, "", dice)

    def reveal(self, seed_id: str) -> bytes | None:
        """None: fixed faces come from no seed."""
        return None


class ManualRoller:
    """Physical dice a GM entered at the table: recorded as "manual", never numbered."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)

    @property
    def remaining(self) -> list[int]:
        """The entered faces no roll has used (the server may refuse leftovers)."""
        return list(self._faces)

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn:
        """Take the next entered faces, checking each is 1..N for its die."""
        dice = _checked_sizes(sizes)
        return Drawn(_take(self._faces, dice), MANUAL, None, None, "", dice)

    def reveal(self, seed_id: str) -> bytes | None:
        """None: physical dice have no seed."""
        return None


def _checked_sizes(sizes: Sequence[int]) -> list[int]:
    dice = list(sizes)
    if not dice:
        raise DiceError("a roll needs at least one die")
    for size in dice:
        check_size(size)
    return dice


def _take(queue: list[int], sizes: list[int]) -> list[int]:
    """Pop one face per die, or nothing at all if any face is missing or out of range."""
    if len(queue) < len(sizes):
        raise DiceError(f"{len(sizes)} dice to roll but only {len(queue)} faces left")
    faces = queue[: len(sizes)]
    for face, size in zip(faces, sizes, strict=True):
        _check_face(face, size)
    del queue[: len(sizes)]
    return faces
