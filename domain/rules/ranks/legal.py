"""What a ranks-d100 combatant may do now, for the web UI: each action with enabled,
reason, rule, targets and ranks (the rank caps of RK-35 and RK-49, the costs of RK-44,
RK-53 and RK-56 against the mana pool)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import conditions
from domain.errors import Refused
from domain.rules.common.base import percent_under
from domain.rules.ranks import skills
from domain.rules.ranks.attack import ATTACKS, plan, short_of_mana
from domain.rules.ranks.bond import master_of, servants_of
from domain.rules.ranks.react import REDUCE, counter_refusal, elemental_refusal
from domain.rules.ranks.tables import LETTERS, Rank, health_malus, parse_rank, threshold
from domain.state import Combatant, Game, Pending
from domain.terms import Cost, HalfRank, LegalAction


def odds(me: Combatant, stat: str, cfg: Mapping[str, Any],
         action_rank: Rank | None = None) -> dict[str, Any]:  # fmt: skip
    """RK-3, RK-4 the d100 test on `stat` with RK-5's modifiers as they stand (RK-7 a
    negative half-rank, RK-6 a positive one only once switched on, RK-50 a Luck result
    waiting, RK-70 health, RK-72/73 a critical's carry), RK-AMB-1 critical ranges: the
    chance with no half-rank switched on by this action."""
    if stat not in me.sheet:
        return {}
    rank = parse_rank(me.sheet[stat])
    if cfg["threshold_source"] == "action_rank" and action_rank is not None:
        rank = action_rank  # RK-AMB-5 alternative
    final = threshold(rank, cfg["tables"])
    switched = bool(me.status.get(f"half_rank.{stat}"))
    if rank.half > 0 and switched:
        final += 10 * rank.half
    if rank.half < 0 and not switched:
        final -= 10
    final += int(me.status.get("luck") or 0) + int(me.status.get("crit_now", 0))
    final += sum(m.delta for m in conditions.modifiers(me, "RK-5"))
    reads = []
    if stat in cfg["health_malus.stats"]:
        final += health_malus(me.resources["hp"])
        reads.append("hp")
    if cfg["threshold.clamp"]:
        final = min(100, max(1, final))
    chance = percent_under(final, 100, always=int(cfg["crit.success_max"]),
                           never_from=int(cfg["crit.fail_min"]))  # fmt: skip
    return {"chance": chance, "stat": stat, "threshold": final, "die": "d100", "reads": reads}


def half_rank(game: Game, me: Combatant, stat: str, cfg: Mapping[str, Any],
              ranked: bool = False) -> HalfRank | None:  # fmt: skip
    """RK-6..RK-8: the switch a roll on `stat` may use (a positive half-rank to activate, the
    negative one to deactivate) and its once-per-RP state, as `half_rank_terms` reads it:
    `on` while a rest-of-RP switch holds (RK-AMB-10), `used` once the RP's use is spent
    (RK-8, per stat), else `ready` with what it would add to the threshold."""
    if stat not in me.sheet:
        return None
    rank = parse_rank(me.sheet[stat])
    if rank.half == 0:
        return None
    key = f"half_rank.{stat}"
    state = "on" if me.status.get(key) else "used" if game.uses(me.id, key) >= 1 else "ready"
    action_rank = ranked and cfg["threshold_source"] == "action_rank"
    return HalfRank(
        stat=stat,
        rank=str(rank),
        option="activate" if rank.half > 0 else "deactivate",
        state=state,
        delta=(10 * rank.half if rank.half > 0 else 10) if state == "ready" else 0,
        rule="RK-8" if state == "used" else "RK-6" if rank.half > 0 else "RK-7",
        only_at=rank.letter if action_rank else None,
    )


def switch_choices(switch: HalfRank | None) -> dict[str, Any]:
    """The option a ready switch adds to an entry's choices: `{"activate": [["STR"]]}`,
    one value, the list of the one stat the roll is on (RK-AMB-10: a switch lasts one roll
    and names the stat rolled)."""
    if switch is None or switch.state != "ready":
        return {}
    return {switch.option: [[switch.stat]]}


def _attack_extras(me: Combatant, action: str, cfg: Mapping[str, Any],
                   ranks: list[str], names: list[str]) -> dict[str, Any]:  # fmt: skip
    """The mana (RK-44, RK-53, RK-56) and odds of an attack at the rank the UI picks first
    (the highest affordable, or the first NP / spell listed)."""
    if not ranks:
        return odds(me, ATTACKS[action][1], cfg)
    option: dict[str, Any] = {"name": names[0]} if names else {}
    attack = plan(me, action, None if names else ranks[-1], option, cfg)
    ranked = attack.type in ("physical", "weapon", "magic")
    out = odds(me, attack.stat, cfg, attack.rank if ranked else None)
    if attack.cost:
        left = me.resources.get("mana", 0) - attack.cost
        out["cost"] = [Cost(amount=attack.cost, unit="mana", left=left)]
    return out


def _entry(
    action: str,
    rule: str,
    reasons: list[tuple[bool, str | Refused, str | None]],
    targets: list[str],
    ranks: list[str] | None = None,
    choices: dict[str, Any] | list[str] | None = None,
    reaction: bool = False,
    **extras: Any,
) -> LegalAction:
    """The first failing (ok, reason, rule) decides; otherwise the action is enabled. A
    reason is a key, or a refusal whose key and params it takes."""
    failing = next(((why, r) for ok, why, r in reasons if not ok), None)
    why = failing[0] if failing else ""
    return LegalAction(
        action=action,
        enabled=failing is None,
        reason=why.reason if isinstance(why, Refused) else why,
        params=why.params if isinstance(why, Refused) else {},
        rule=failing[1] if failing else rule,
        targets=targets,
        ranks=ranks or [],
        choices=choices,
        reaction=reaction,
        **extras,
    )


def _candidates(me: Combatant, action: str) -> list[dict[str, Any]]:
    """The options an attack may be made with: each rank letter up to the governing stat's
    (RK-35, RK-49), or each NP / spell by name. At the stat's own letter the attack carries
    the stat's half-ranks, whose value shift is always on (RK-12); their +10s on the
    threshold come only with the switch (RK-6), so the letter is offered plain, never as a
    "B+" the roll would not use."""
    if action in ("attack_physical", "attack_weapon", "attack_magic"):
        own = parse_rank(me.sheet[ATTACKS[action][1]])
        return [{"rank": r} for r in LETTERS[: own.level + 1]]
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


def legal(game: Game, actor: str, cfg: Mapping[str, Any]) -> list[LegalAction]:
    me = game.combatants.get(actor)
    if me is None:
        return []
    out_of_it = Refused(
        "rule_violation", reason="out_of_the_fight", params={"who": me, "out": me.out}
    )
    alive: tuple[bool, str | Refused, str | None] = (me.out is None, out_of_it, "RK-25")
    # Whose turn it is, and an attack waiting for its answer, are the core's refusals,
    # which name no rule: nor does the entry then (legal is refused as it says).
    my_turn: tuple[bool, str | Refused, str | None] = (
        game.started and game.actor == actor and not game.pending,
        "waiting_for_defense" if game.actor == actor and game.pending else "not_your_attack_phase",
        None,
    )
    slot: tuple[bool, str | Refused, str | None] = (
        game.uses(actor, "complex") < int(cfg["complex_actions_per_phase"]),
        "complex_action_made",
        "RK-17",
    )
    foes = [c.id for c in game.combatants.values() if c.side != me.side and c.out is None]
    pending = next((p for p in game.pending if p.target == actor), None)
    out: list[LegalAction] = []
    for action, (_, stat, cap, _) in ATTACKS.items():
        if stat not in me.sheet or (action == "noble_phantasm" and me.sheet["kind"] != "servant"):
            continue
        ranks, names = _ranks(me, action, cfg)
        ranked = action in ("attack_physical", "attack_weapon", "attack_magic")
        switch = half_rank(game, me, stat, cfg, ranked)
        named = {"name": names} if action in ("noble_phantasm", "advanced_spell") else {}
        choices: dict[str, Any] | None = {**named, **switch_choices(switch)}
        reasons = [
            alive,
            (bool(foes), "no_opponent_left", "RK-21"),
            my_turn,
            slot,
            (not me.status.get("fleeing"), "fleeing_this_tour", "RK-69"),
            _known(me, action),
            (bool(ranks), "not_enough_mana", "RK-AMB-20"),
        ]
        out.append(
            _entry(
                action,
                cap or ATTACKS[action][3],
                reasons,
                foes,
                ranks,
                choices or None,
                half_rank=switch,
                **_attack_extras(me, action, cfg, ranks, names),
            )
        )
    out.append(
        _entry(
            "luck",
            "RK-50",
            [
                alive,
                # As the decider checks it (ranks/actions.py luck): one's own attack
                # phase or a defence of one's own (RK-50), before the action's die (RK-19).
                (my_turn[0] or pending is not None, "luck_before_own_action", "RK-50"),
                (
                    not my_turn[0] or game.uses(actor, "complex") == 0,
                    "luck_before_action_die",
                    "RK-19",
                ),
                (not me.status.get("luck"), "luck_result_waiting", "RK-AMB-15"),
                (me.resources.get("luck", 0) > 0, "no_luck_uses_left", "RK-51"),
            ],
            [],
            choices=switch_choices(half_rank(game, me, "LCK", cfg)) or None,
            cost=[Cost(amount=1, unit="luck", left=me.resources.get("luck", 0) - 1)],
            half_rank=half_rank(game, me, "LCK", cfg),
            **odds(me, "LCK", cfg),
        )
    )
    flee = half_rank(game, me, "AGI", cfg)
    out.append(
        _entry(
            "flee",
            "RK-68",
            [alive, my_turn, slot],
            [],
            choices=switch_choices(flee) or None,
            half_rank=flee,
            **odds(me, "AGI", cfg),
        )
    )
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
                (bool(partners), "no_partner_with_room", "RK-30"),
                (me.resources.get("mana", 0) > 1, "keep_one_mana", "RK-30"),
            ],
            [c.id for c in partners],
        )
    )
    active = [k for k in me.sheet.get("skills", []) if k["mode"] == "active"]
    if active:  # RK-16, RK-18: free, at any time; one not already in effect (RK-14)
        ready = [k["name"] for k in active if skills.refusal(me, k) is None]
        out.append(
            _entry(
                "skill",
                "RK-16",
                [alive, (bool(ready), "every_skill_in_effect", "RK-14")],
                [],
                choices={"name": ready},
            )
        )
    if pending is not None:
        for option in pending.options:
            reasons = [alive] if option != "none" else []
            if option == "intercept":
                keepers = [s for s in servants_of(game, me) if s.out is None]
                reasons.append((bool(keepers), "no_servant_left", "RK-39"))
            choices = None
            if option == "counter":
                choices = _counter_choices(me, pending, cfg)
            extras = odds(me, REDUCE[option], cfg) if option in REDUCE else {}
            switch = _reaction_switch(game, me, option, choices, cfg)
            if switch_choices(switch):
                choices = {**(choices or {}), **switch_choices(switch)}
            elemental = elemental_refusal(me, cfg) if option == "counter" else None
            if elemental is not None:
                reasons.append((False, elemental, "RK-64"))
            elif option == "counter" and choices is not None:
                reasons.append(
                    (
                        bool(choices["action"]),
                        Refused(
                            "rule_violation",
                            reason="no_counter_fits",
                            params={"rank": pending.rank},
                        ),
                        "RK-62",
                    )
                )
            out.append(
                _entry(
                    option,
                    "RK-59",
                    reasons,
                    [pending.attacker],
                    [pending.rank] if pending.rank else [],
                    choices,
                    reaction=True,
                    half_rank=switch,
                    **extras,
                )
            )
    return out


def _reaction_switch(game: Game, me: Combatant, option: str, choices: Mapping[str, Any] | None,
                     cfg: Mapping[str, Any]) -> HalfRank | None:  # fmt: skip
    """The half-rank switch of a reaction's roll: the defender's Endurance or Agility
    (RK-59), the intercepting Servant's Endurance (RK-39), the blocker's Agility (RK-68), or
    a counter's stat when every counter listed rolls the same one (RK-60)."""
    if option in REDUCE:
        return half_rank(game, me, REDUCE[option], cfg)
    if option == "block_flight":
        return half_rank(game, me, "AGI", cfg)
    if option == "intercept":
        keeper = next((s for s in servants_of(game, me) if s.out is None), None)
        return half_rank(game, keeper, "END", cfg) if keeper is not None else None
    if option == "counter" and choices and choices.get("action"):
        stats = {ATTACKS[a][1] for a in choices["action"]}
        if len(stats) == 1:
            ranked = all(
                a in ("attack_physical", "attack_weapon", "attack_magic") for a in choices["action"]
            )
            return half_rank(game, me, stats.pop(), cfg, ranked)
    return None


def _known(me: Combatant, action: str) -> tuple[bool, str | Refused, str | None]:
    """An NP or Advanced Spell attack needs one on the sheet (RK-52, RK-55)."""
    if action == "noble_phantasm":
        return bool(me.sheet.get("noble_phantasms")), "knows_no_np", "RK-52"
    if action == "advanced_spell":
        return bool(me.sheet.get("spells")), "knows_no_spell", "RK-55"
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
