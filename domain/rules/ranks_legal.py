"""What a ranks-d100 combatant may do now, for the web UI: each action with enabled,
reason, rule, targets and ranks (the rank caps of RK-35 and RK-49, the costs of RK-44,
RK-53 and RK-56 against the mana pool)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Refused
from domain.rules.ranks_attack import ATTACKS, plan, short_of_mana
from domain.rules.ranks_bond import master_of, servants_of
from domain.rules.ranks_react import counter_refusal
from domain.rules.ranks_tables import LETTERS, parse_rank
from domain.state import Combatant, Game, Pending


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


def _candidates(me: Combatant, action: str) -> list[dict[str, Any]]:
    """The options an attack may be made with: each rank up to the governing stat's
    (RK-35, RK-49; the stat's own letter with its half-ranks), or each NP / spell by name."""
    if action in ("attack_physical", "attack_weapon", "attack_magic"):
        own = parse_rank(me.sheet[ATTACKS[action][1]])
        return [{"rank": r} for r in [*LETTERS[: own.level], str(own)]]
    field = "noble_phantasms" if action == "noble_phantasm" else "spells"
    return [{"rank": None, "name": str(i["name"])} for i in me.sheet.get(field, [])]


def _fits(me: Combatant, action: str, option: Mapping[str, Any], cfg: Mapping[str, Any]) -> bool:
    """What `act` would accept: the attack can be planned and paid for."""
    try:
        attack = plan(me, action, option.get("rank"), option, cfg)
    except Refused:
        return False
    return short_of_mana(me, attack, cfg) is None


def _ranks(me: Combatant, action: str, cfg: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(affordable ranks, NP/spell names) for an attack action."""
    fit = [o for o in _candidates(me, action) if _fits(me, action, o, cfg)]
    if action in ("noble_phantasm", "advanced_spell"):
        field = "noble_phantasms" if action == "noble_phantasm" else "spells"
        rank = {str(i["name"]): str(i["rank"]) for i in me.sheet.get(field, [])}
        return [rank[o["name"]] for o in fit], [o["name"] for o in fit]
    return [str(o["rank"]) for o in fit], []


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
            _known(me, action),
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
    partners = [  # 1 given is 1 received: a full pool takes nothing (RK-30)
        c
        for c in [master_of(game, me), *servants_of(game, me)]
        if c is not None and c.out is None and c.resources["mana"] < c.maxima["mana"]
    ]
    out.append(
        _entry(
            "transfer_mana",
            "RK-30",
            [
                alive,
                (bool(partners), "no Master or Servant here with room for mana", "RK-30"),
                (me.resources.get("mana", 0) > 1, "must keep at least 1 mana", "RK-30"),
            ],
            [c.id for c in partners],
        )
    )
    if pending is not None:
        for option in pending.options:
            reasons = [alive] if option != "none" else []
            if option == "intercept":
                keepers = [s for s in servants_of(game, me) if s.out is None]
                reasons.append((bool(keepers), "no Servant left to intercept", "RK-39"))
            choices = _counter_choices(me, pending, cfg) if option == "counter" else None
            if choices is not None:
                reasons.append(
                    (
                        bool(choices["action"]),
                        f"no counter of the same type at rank {pending.rank} or higher "
                        "within your caps and mana",
                        "RK-62",
                    )
                )
            entry = _entry(
                option,
                "RK-59",
                reasons,
                [pending.attacker],
                [pending.rank] if pending.rank else [],
            )
            if choices is not None:
                entry["choices"] = choices
            out.append(entry)
    return out


def _known(me: Combatant, action: str) -> tuple[bool, str, str]:
    """An NP or Advanced Spell attack needs one on the sheet (RK-52, RK-55)."""
    if action == "noble_phantasm":
        return bool(me.sheet.get("noble_phantasms")), "knows no Noble Phantasm", "RK-52"
    if action == "advanced_spell":
        return bool(me.sheet.get("spells")), "knows no advanced spell", "RK-55"
    return True, "", ""


def _counter_choices(me: Combatant, pending: Pending, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The counters `react` would accept (RK-61 type, RK-62 rank, RK-66 chains, the caps of
    RK-35/RK-49 and the mana pool): any listed action with any listed rank (or name).

    A special attack is countered by an NP or an Advanced Spell; their names are listed
    for the first of the two that has a valid one, so that every pair listed is accepted.
    """
    out: dict[str, Any] = {"action": [], "rank": []}
    for action in ATTACKS:
        if ATTACKS[action][1] not in me.sheet:
            continue
        fit = [
            o
            for o in _candidates(me, action)
            if counter_refusal(me, pending, {"action": action, **o}, cfg)[1] is None
        ]
        if not fit:
            continue
        if "name" in fit[0]:
            out["action"], out["name"] = [action], [o["name"] for o in fit]
            out.pop("rank", None)
            break
        out["action"].append(action)
        out["rank"] = [str(o["rank"]) for o in fit]
    return out
