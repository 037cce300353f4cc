"""What a ranks-d100 combatant may do now, for the web UI: each action with enabled,
reason, rule, targets and ranks (the rank caps of RK-35 and RK-49, the costs of RK-44,
RK-53 and RK-56 against the mana pool)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.rules.ranks_attack import ATTACKS
from domain.rules.ranks_bond import master_of, servants_of
from domain.rules.ranks_tables import LETTERS, Rank, parse_rank, value
from domain.state import Combatant, Game


def _entry(
    action: str,
    rule: str,
    reasons: list[tuple[bool, str, str]],
    targets: list[str],
    ranks: list[str] | None = None,
    choices: list[str] | None = None,
) -> dict[str, Any]:
    """The first failing (ok, reason, rule) decides; otherwise the action is enabled."""
    failing = next(((why, r) for ok, why, r in reasons if not ok), None)
    out: dict[str, Any] = {
        "action": action,
        "enabled": failing is None,
        "reason": failing[0] if failing else "",
        "rule": failing[1] if failing else rule,
        "targets": targets,
        "ranks": ranks or [],
    }
    if choices is not None:
        out["choices"] = choices
    return out


def _ranks(me: Combatant, action: str, cfg: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(affordable ranks, NP/spell names) for an attack action."""
    mana = me.resources.get("mana", 0)
    if action in ("attack_physical", "attack_weapon", "attack_magic"):
        own = parse_rank(me.sheet[ATTACKS[action][1]])
        ranks = [*LETTERS[: own.level], str(own)]
        if action == "attack_magic":
            ranks = [
                r
                for r in ranks
                if value("cost.magic", Rank(parse_rank(r).level), cfg["tables"], ()) <= mana
            ]
        return ranks, []
    field, cost = (
        ("noble_phantasms", "cost.np") if action == "noble_phantasm" else ("spells", "cost.spell")
    )
    items = [
        i
        for i in me.sheet.get(field, [])
        if value(cost, Rank(parse_rank(i["rank"]).level), cfg["tables"], ()) <= mana
    ]
    return [str(i["rank"]) for i in items], [str(i["name"]) for i in items]


def legal(game: Game, actor: str, cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    me = game.combatants.get(actor)
    if me is None:
        return []
    alive = (me.out is None, f"out of the fight ({me.out})", "RK-25")
    my_turn = (
        game.started and game.actor == actor and not game.pending,
        "not your attack phase",
        "RK-15",
    )
    slot = (
        game.uses(actor, "complex") < int(cfg["complex_actions_per_phase"]),
        "already made this phase's complex action",
        "RK-17",
    )
    foes = [c.id for c in game.combatants.values() if c.side != me.side and c.out is None]
    pending = next((p for p in game.pending if p.target == actor), None)
    out: list[dict[str, Any]] = []
    for action, (_, stat, cap, _) in ATTACKS.items():
        if stat not in me.sheet or (action == "noble_phantasm" and me.sheet["kind"] != "servant"):
            continue
        ranks, names = _ranks(me, action, cfg)
        reasons = [
            alive,
            (bool(foes), "no opponent left", "RK-21"),
            my_turn,
            slot,
            (not me.status.get("fleeing"), "fleeing this Tour", "RK-69"),
            (bool(ranks), "not enough mana", "RK-AMB-20"),
        ]
        out.append(
            _entry(
                action,
                cap or ATTACKS[action][3],
                reasons,
                foes,
                ranks,
                names if action in ("noble_phantasm", "advanced_spell") else None,
            )
        )
    out.append(
        _entry(
            "luck",
            "RK-50",
            [
                alive,
                (
                    (my_turn[0] and slot[0]) or pending is not None,
                    "Luck comes just before your own roll",
                    "RK-19",
                ),
                (not me.status.get("luck"), "a Luck result is waiting", "RK-AMB-15"),
                (me.resources.get("luck", 0) > 0, "no Luck uses left this War", "RK-51"),
            ],
            [],
        )
    )
    out.append(_entry("flee", "RK-68", [alive, my_turn, slot], []))
    partners = [
        c for c in [master_of(game, me), *servants_of(game, me)] if c is not None and c.out is None
    ]
    out.append(
        _entry(
            "transfer_mana",
            "RK-30",
            [
                alive,
                (bool(partners), "no Master or Servant here", "RK-30"),
                (me.resources.get("mana", 0) > 1, "must keep at least 1 mana", "RK-30"),
            ],
            [c.id for c in partners],
        )
    )
    if pending is not None:
        for option in pending.options:
            entry = _entry(
                option,
                "RK-59",
                [alive] if option != "none" else [],
                [pending.attacker],
                [pending.rank] if pending.rank else [],
            )
            if option == "counter":
                entry["choices"] = _counter_choices(pending.action, pending.rank)
            out.append(entry)
    return out


def _counter_choices(incoming: str, rank: str | None) -> dict[str, list[str]]:
    """What a counter may be: an attack of the same type (RK-61) of at least the same
    rank (RK-62); the Force/Mana caps are checked when it is declared."""
    kind = ATTACKS[incoming][0] if incoming in ATTACKS else None
    low = parse_rank(rank).level if rank else 0
    return {
        "action": [a for a, spec in ATTACKS.items() if spec[0] == kind],
        "rank": list(LETTERS[low:]),
    }
