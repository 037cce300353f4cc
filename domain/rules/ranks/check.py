"""ranks-d100 success tests: the threshold of RK-3..RK-13 with every modifier of RK-5
(and, added the same way, a GM-declared condition modifier, `condition: <name>`)
recorded in the `Check` with its rule id, judged roll-under (RK-4) with criticals (RK-71,
RK-AMB-1) that carry over to the actor's next Tour (RK-72, RK-73, RK-AMB-18).

Half-ranks are switched per roll through the act/react options
`{"activate": ["STR"]}` (positive half-ranks, RK-6) or `{"deactivate": ["AGI"]}` (the
negative one, RK-7); either spends the stat's once-per-RP use (RK-8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import conditions
from domain import events as ev
from domain.context import Ctx
from domain.errors import Invalid, RuleViolation
from domain.rules.common.judge import criticals_win, roll_under
from domain.rules.ranks.tables import Rank, health_malus, parse_rank, threshold


def _switches(options: Mapping[str, Any], key: str) -> list[str]:
    raw = options.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise Invalid(rule="RK-8", reason="options_list_stat_codes", params={"key": key})
    return list(raw)


def half_rank_terms(
    ctx: Ctx, cid: str, stat: str, rank: Rank, options: Mapping[str, Any], cfg: Mapping[str, Any]
) -> list[ev.Modifier]:
    """The half-rank modifiers of one roll, spending the once-per-RP switch if asked."""
    activate, deactivate = _switches(options, "activate"), _switches(options, "deactivate")
    for other in {*activate, *deactivate} - {stat}:
        raise RuleViolation(
            rule="RK-AMB-10", reason="switch_not_rolled_here", params={"other": other}
        )
    key = f"half_rank.{stat}"
    switched = bool(ctx.combatant(cid).status.get(key))  # rest_of_rp switches stay on
    if stat in activate and rank.half <= 0:
        raise RuleViolation(
            rule="RK-6", reason="no_positive_half_rank", params={"stat": stat, "rank": rank}
        )
    if stat in deactivate and rank.half >= 0:
        raise RuleViolation(
            rule="RK-7", reason="no_negative_half_rank", params={"stat": stat, "rank": rank}
        )
    if (stat in activate or stat in deactivate) and not switched:
        ctx.use(cid, key, "session", 1, "RK-8", f"the half-ranks of {stat} this RP")
        switched = True
        if cfg["half_rank.activation_scope"] == "rest_of_rp":
            ctx.status(cid, key, True, "RK-AMB-10")
    if rank.half > 0 and switched:
        return [ev.Modifier(source=f"{stat} {rank} activated", rule="RK-6", delta=10 * rank.half)]
    if rank.half < 0 and not switched:
        return [ev.Modifier(source=f"{stat} {rank}", rule="RK-7", delta=-10)]
    return []


def check_roll(
    ctx: Ctx,
    cid: str,
    stat: str,
    cfg: Mapping[str, Any],
    *,
    purpose: str,
    options: Mapping[str, Any],
    action_rank: Rank | None = None,
) -> ev.DieRolled:
    """Roll d100 under the threshold of `stat` (RK-3, RK-4) with all RK-5 modifiers."""
    me = ctx.combatant(cid)
    rank = parse_rank(me.sheet[stat])
    if cfg["threshold_source"] == "action_rank" and action_rank is not None:
        rank = action_rank  # RK-AMB-5 alternative: the die of the action's rank
    mods = half_rank_terms(ctx, cid, stat, rank, options, cfg)
    luck = me.status.get("luck")
    if luck:
        mods.append(ev.Modifier(source="luck die", rule="RK-50", delta=int(luck)))
    if stat in cfg["health_malus.stats"]:
        malus = health_malus(me.resources["hp"])
        if malus:
            mods.append(
                ev.Modifier(source=f"health ({me.resources['hp']} HP)", rule="RK-70", delta=malus)
            )
    carry = int(me.status.get("crit_now", 0))
    if carry:
        rule = "RK-72" if carry > 0 else "RK-73"
        mods.append(ev.Modifier(source="critical last Tour", rule=rule, delta=carry))
    mods += conditions.modifiers(me, "RK-5")  # a GM-declared condition term, additive too
    base = threshold(rank, cfg["tables"])
    final = base + sum(m.delta for m in mods)
    if cfg["threshold.clamp"]:
        final = min(100, max(1, final))  # RK-AMB-17 (off by default)

    # RK-AMB-1: a critical wins whatever the threshold.
    verdict = criticals_win(int(cfg["crit.success_max"]), int(cfg["crit.fail_min"]))
    judge = roll_under(stat, base, mods, "RK-4", verdict, threshold=final)
    rolled = ctx.roll([100], expr="d100", purpose=purpose, actor=cid, judge=judge)
    if luck:
        ctx.status(cid, "luck", None, "RK-AMB-15")  # spent on this roll
    assert rolled.check is not None
    _carry(ctx, cid, rolled.check.outcome, cfg)
    return rolled


def _carry(ctx: Ctx, cid: str, outcome: str, cfg: Mapping[str, Any]) -> None:
    """RK-72/73: a critical gives ±10 to every threshold of the actor's next Tour."""
    delta = {"critical_success": 10, "critical_failure": -10}.get(outcome)
    if delta is None:
        return
    before = int(ctx.combatant(cid).status.get("crit_next", 0))
    after = before + delta
    if cfg["crit.carry_stack"] == "single":
        after = max(-10, min(10, after))
    rule = "RK-72" if delta > 0 else "RK-73"
    ctx.status(cid, "crit_next", after or None, rule)
