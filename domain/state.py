"""The encounter's state: what replaying its events gives.

Two parts. The `Ledger` holds what is never undone (dice counters, seeds, disputes, the
tree of steps); the `Game` holds what an `undo` may revert (combatants, resources,
turn order, pending reactions, limits). `evolve` owns the state it folds into: it mutates
and returns it. `decide` never mutates; it works on a `clone()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from domain.events import Event

Role = Literal["gm", "player", "spectator"]


@dataclass(frozen=True)
class Principal:
    """Who sends a command: a role and, for a player, the combatants they control."""

    role: Role
    combatants: frozenset[str] = frozenset()
    name: str = ""

    def controls(self, combatant_id: str) -> bool:
        return self.role == "gm" or combatant_id in self.combatants


GM = Principal("gm", name="gm")
SPECTATOR = Principal("spectator", name="spectator")


@dataclass(frozen=True)
class Condition:
    """A condition on a combatant: `left` turn edges of kind `until` to go (None: until
    removed). Frozen, so a clone shares it; evolve replaces it as it counts down."""

    name: str
    until: str
    rounds: int | None
    left: int | None
    note: str = ""
    modifier: int | None = None
    rule: str | None = None
    by_gm: bool = False


@dataclass
class Combatant:
    """One combatant as it stands now."""

    id: str
    name: str
    side: str
    sheet: dict[str, Any]
    resources: dict[str, int]
    maxima: dict[str, int]
    controller: str | None = None
    gm_only: list[str] = field(default_factory=list)
    status: dict[str, Any] = field(default_factory=dict)
    out: str | None = None  # why the combatant is out of the fight, if it is
    out_rule: str | None = None  # the rule that put it out
    character: str | None = None  # the War character it is, in a War's encounter
    conditions: dict[str, Condition] = field(default_factory=dict)

    def clone(self) -> Combatant:
        return Combatant(
            self.id,
            self.name,
            self.side,
            self.sheet,  # sheets are never mutated after validation
            dict(self.resources),
            self.maxima,
            self.controller,
            self.gm_only,
            dict(self.status),
            self.out,
            self.out_rule,
            self.character,
            dict(self.conditions),
        )


@dataclass
class Pending:
    """An attack waiting for its target's reaction."""

    id: int
    attacker: str
    target: str
    action: str
    rank: str | None
    damage: int
    options: list[str]
    detail: dict[str, Any]


@dataclass
class Game:
    """The part of the state that an undo can revert."""

    combatants: dict[str, Combatant] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)
    started: bool = False
    round: int = 0
    actor: str | None = None
    phase: str = ""
    pending: list[Pending] = field(default_factory=list)
    next_pending: int = 1
    # (combatant, key) -> (scope, uses)
    limits: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    added: int = 0  # combatants ever added: ids are c1, c2, ...
    last: str | None = None  # whose turn ended last
    continued: bool = False  # the GM went on although only one side was left standing

    def clone(self) -> Game:
        return Game(
            {k: c.clone() for k, c in self.combatants.items()},
            list(self.order),
            dict(self.scores),
            self.started,
            self.round,
            self.actor,
            self.phase,
            list(self.pending),
            self.next_pending,
            dict(self.limits),
            self.added,
            self.last,
            self.continued,
        )

    def uses(self, combatant_id: str, key: str) -> int:
        entry = self.limits.get((combatant_id, key))
        return entry[1] if entry else 0

    def active(self) -> list[str]:
        """Combatants still in the fight, in initiative order (then insertion order)."""
        ids = self.order or list(self.combatants)
        return [i for i in ids if i in self.combatants and self.combatants[i].out is None]


@dataclass(eq=False)
class Step:
    """One command's batch of events that changed the game: what an undo reverts whole.

    Steps form a tree: `before` is the step in effect when this one began, so an undo to
    any version moves to the step then in effect (even one an earlier undo reverted) and
    the game is the fold of that chain. A step grows only while its batch folds (`last`,
    `events`); once the next batch begins it is never changed again, so clones share it.
    """

    first: int  # the version of the batch's first event
    last: int  # the version of the batch's last event (so far)
    events: list[tuple[int, Event]]  # its game events, with their versions
    before: Step | None

    def __eq__(self, other: object) -> bool:
        # Iterative: a long fight's chain is deeper than the recursion limit.
        a: Step | None = self
        b = other
        while isinstance(a, Step) and isinstance(b, Step):
            if a is b:
                return True
            if (a.first, a.last, a.events) != (b.first, b.last, b.events):
                return False
            a, b = a.before, b.before
        return a is None and b is None

    __hash__ = None  # type: ignore[assignment]

    def chain(self) -> list[Step]:
        """The steps in effect with this one, oldest first."""
        out: list[Step] = []
        step: Step | None = self
        while step is not None:
            out.append(step)
            step = step.before
        return out[::-1]


@dataclass(frozen=True)
class Disputed:
    """A dispute of roll `seq`, and the GM's answer once there is one."""

    seq: int
    by: str
    reason: str
    answer: str | None = None


@dataclass
class Ledger:
    """What no undo touches: identity, dice, disputes, history."""

    version: int = 0
    encounter_id: str = ""
    ruleset: str = ""
    name: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    campaign: str | None = None
    rules_version: str = "1"
    commitments: dict[str, str] = field(default_factory=dict)
    hidden_seeds: set[str] = field(default_factory=set)
    revealed: dict[str, str] = field(default_factory=dict)
    next_roll: dict[str, int] = field(default_factory=dict)
    rolls: int = 0
    hidden_rolls: set[int] = field(default_factory=set)
    entropy: list[str] = field(default_factory=list)
    disputes: list[Disputed] = field(default_factory=list)
    closed: bool = False
    # The step tree: the last step in effect, and at each version that ended a batch
    # (a valid undo target) the step then in effect.
    head: Step | None = None
    ends: dict[int, Step | None] = field(default_factory=dict)
    batch: int = 0  # the version where the batch being folded began
    undone: list[tuple[int, int]] = field(default_factory=list)  # steps reverted now
    entropy_join: str = "concat"  # as encounter_opened records it (domain/dice.py)
    # Every combatant id ever issued, undone arrivals included: an id is never issued
    # twice, so a player link bound to one can never control another combatant.
    issued: set[str] = field(default_factory=set)
    # Turn deadlines (domain/deadline.py): the waits (by the version they began at) that
    # were reminded or passed, and the version of the last undo (a wait an undo brings
    # back starts again from it).
    reminded: set[int] = field(default_factory=set)
    passed: set[int] = field(default_factory=set)
    last_undo: int = 0
    # Who sent each entry of `entropy` ("gm", "player:c1,c2"), in the same order: the GM's
    # board says which players contributed before the first roll, never their values.
    entropy_by: list[str] = field(default_factory=list)

    @property
    def steps(self) -> list[int]:
        """The first versions of the steps in effect, oldest first."""
        return [s.first for s in self.head.chain()] if self.head is not None else []

    def next_combatant_id(self, added: int) -> str:
        """The id for the next combatant (`added`: the game's count still in effect):
        `c<n>` for the first n past it that was never issued."""
        n = added + 1
        while f"c{n}" in self.issued:
            n += 1
        return f"c{n}"

    def clone(self) -> Ledger:
        return Ledger(
            self.version,
            self.encounter_id,
            self.ruleset,
            self.name,
            self.settings,
            self.campaign,
            self.rules_version,
            dict(self.commitments),
            set(self.hidden_seeds),
            dict(self.revealed),
            dict(self.next_roll),
            self.rolls,
            set(self.hidden_rolls),
            list(self.entropy),
            list(self.disputes),
            self.closed,
            self.head,
            dict(self.ends),
            self.batch,
            list(self.undone),
            self.entropy_join,
            set(self.issued),
            set(self.reminded),
            set(self.passed),
            self.last_undo,
            list(self.entropy_by),
        )


@dataclass
class EncounterState:
    """Ledger plus game: everything `decide` needs."""

    ledger: Ledger = field(default_factory=Ledger)
    game: Game = field(default_factory=Game)

    def clone(self) -> EncounterState:
        return EncounterState(self.ledger.clone(), self.game.clone())

    @property
    def version(self) -> int:
        return self.ledger.version
