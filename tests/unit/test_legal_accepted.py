"""RK-49 / RK-35 (issue 14): in every rule system, whatever `legal` offers as enabled is
accepted by `decide`. Scripted fights with random choices: at each step every enabled
entry of every combatant (actions and reactions, with each target, rank and option
value it lists) is tried on the current state, then one of them is played.

How an entry reads: each listed target and each listed rank is accepted on its own; an
entry's `choices` are the UI's selects, so a command takes one value of each (the
first by default), and each value of each choice is accepted for at least one of the
listed targets (choices are not per target, e.g. a shield to aim at). A ranks-d100
counter's choices are accepted in any pair (action, rank or name).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain.dice import Drawn
from domain.encounter import decide
from domain.encounter import open_encounter as opened
from domain.errors import Refused
from domain.evolve import evolve, replay
from domain.rules import REGISTRY
from domain.state import GM, EncounterState

ENCOUNTER = "7d3c2b1a-0f9e-4d8c-b7a6-5e4f3d2c1b0a"
SPELLS = [{"name": "Bolt", "rank": "C"}, {"name": "Nova", "rank": "A"}]
FLURRY = {"name": "Flurry", "rank": "D", "chain": 3, "hit_damage": 15, "chain_bonus": 5}

# (name, side, preset, sheet)
Roster = list[tuple[str, str, str | None, dict[str, Any]]]
ROSTERS: dict[str, Roster] = {
    "plain-d100": [("G", "a", "guard", {}), ("B1", "b", "bandit", {}), ("B2", "b", "bandit", {})],
    "ranks-d100": [
        ("J1", "a", "J1", {"spells": SPELLS}),
        ("L", "a", "Lancer", {"master": "J1", "MAGIC": "D", "spells": SPELLS[:1]}),
        ("J2", "b", "J2", {"mana": 30}),
        ("S", "b", "Lancer", {"master": "J2", "MANA_STAT": "A", "noble_phantasms": [FLURRY]}),
    ],
    "d20-na": [
        ("M", "a", "milicien", {}),
        ("F1", "b", "fangeux", {}),
        ("F2", "b", "fangeux", {}),
    ],
    "d100-tcs": [
        ("D", "a", "duelist", {}),
        ("Mg", "a", "mage", {}),
        ("Sh", "b", "shield_bearer", {}),
        ("Ar", "b", "archer", {}),
    ],
}


class _Random:
    """Server-looking dice drawn from a seeded generator, any size."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.n = rng, 0

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn:
        self.n += 1
        faces = [self.rng.randint(1, size) for size in sizes]
        return Drawn(faces, "server", "hidden" if hidden else "main", self.n, "", list(sizes))

    def reveal(self, seed_id: str) -> bytes | None:
        return None  # no seed behind these dice


def _dice(rng: random.Random) -> _Random:
    return _Random(random.Random(rng.random()))


def _fold(state: EncounterState, command: cmd.Command, rng: random.Random) -> None:
    for event in decide(state, command, _dice(rng), GM):
        evolve(state, event)


def _is_reaction(ruleset: str, state: EncounterState, cid: str, entry: dict[str, Any]) -> bool:
    if entry.get("reaction"):
        return True
    rules = REGISTRY[ruleset]
    waiting = any(p.target == cid for p in state.game.pending)
    return waiting and entry["action"] not in rules.actions


def _offers(ruleset: str, state: EncounterState, cid: str,
            entry: dict[str, Any]) -> list[list[cmd.Command]]:  # fmt: skip
    """Groups of commands an enabled entry stands for: every command of a group of one
    must be accepted; of a larger group (one choice value over the targets), one."""
    action = entry["action"]
    choices = entry.get("choices")
    if _is_reaction(ruleset, state, cid, entry):
        if action == "counter" and isinstance(choices, dict):
            pairs = [{"action": a, **({"rank": r} if r else {}), **({"name": n} if n else {})}
                     for a in choices["action"] for r in choices.get("rank") or [None]
                     for n in choices.get("name") or [None]]  # fmt: skip
            return [[cmd.React(actor=cid, reaction="counter", options=o)] for o in pairs]
        return [[cmd.React(actor=cid, reaction=action)]]
    targets: list[str | None] = list(entry.get("targets") or []) or [None]
    if isinstance(choices, list):  # ranks-d100 NPs and spells: a name each
        return [[cmd.Act(actor=cid, action=action, target=t, options={"name": n})]
                for t in targets for n in choices]  # fmt: skip
    selects = {k: v for k, v in (choices or {}).items() if isinstance(v, list) and v}
    base = {k: v[0] for k, v in selects.items()}
    if action == "transfer_mana":
        base["amount"] = 1
    ranks: list[str | None] = list(entry.get("ranks") or []) or [None]
    groups: list[list[cmd.Command]] = [
        [cmd.Act(actor=cid, action=action, target=t, rank=r, options=dict(base))]
        for t in targets for r in ranks
    ]  # fmt: skip
    for key, values in selects.items():
        for value in values[1:]:
            groups.append([cmd.Act(actor=cid, action=action, target=t, rank=ranks[-1],
                                   options={**base, key: value}) for t in targets])  # fmt: skip
    return groups


def _accepted(state: EncounterState, command: cmd.Command, rng: random.Random) -> str | None:
    try:
        decide(state, command, _dice(rng), GM)
    except Refused as why:
        return f"{why.code} {why.rule}: {why.message}"
    return None


def play(ruleset: str, seed: int, steps: int = 60) -> int:
    """A scripted fight; returns how many offered commands were tried."""
    rng = random.Random(seed)
    state = replay(opened(ENCOUNTER, ruleset, "legal", {}, {}))
    for name, side, preset, sheet in ROSTERS[ruleset]:
        _fold(state, cmd.AddCombatant(name=name, side=side, sheet=sheet, preset=preset), rng)
    _fold(state, cmd.StartCombat(), rng)
    rules, tried = REGISTRY[ruleset], 0
    for _ in range(steps):
        playable: list[cmd.Command] = []
        for cid in list(state.game.combatants):
            for entry in msgspec.to_builtins(rules.legal(state.game, cid, state.ledger.settings)):
                if not entry["enabled"]:
                    continue
                for group in _offers(ruleset, state, cid, entry):
                    why = [_accepted(state, c, rng) for c in group]
                    tried += len(group)
                    bad = (
                        [w for w in why if w]
                        if len(group) == 1
                        else ([] if any(w is None for w in why) else [w for w in why if w])
                    )
                    assert not bad, (ruleset, seed, cid, entry, group, bad)
                    playable += [c for c, w in zip(group, why, strict=True) if w is None]
        actor = state.game.actor
        if actor is not None and not state.game.pending:
            playable.append(cmd.EndTurn(actor=actor))
        if state.game.pending and not playable:  # a system that lists no defenses
            playable.append(cmd.React(actor=state.game.pending[0].target, reaction="none"))
        if not playable:
            break
        _fold(state, rng.choice(playable), rng)
    return tried


@pytest.mark.parametrize("ruleset", sorted(ROSTERS))
@pytest.mark.parametrize("seed", range(12))
def test_RK_49_RK_35_every_enabled_legal_entry_is_accepted(ruleset: str, seed: int) -> None:
    assert play(ruleset, seed) > 0
