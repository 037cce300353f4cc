"""ranks-d100 attacks: what an attack is (type, governing stat, rank, hits, cost) under
RK-32..RK-58, the rank caps (RK-35, RK-49), mana (RK-44, RK-45, RK-54, RK-57, RK-AMB-20),
chains (RK-65..RK-67) and how a defense changes the damage (RK-59, RK-AMB-13)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.context import Ctx
from domain.errors import Refused
from domain.rules.ranks.payloads import AttackDetail
from domain.rules.ranks.tables import Rank, order_key, parse_rank, value
from domain.state import Combatant

# action -> (attack type for RK-61, governing stat, rank-cap rule or None, failure rule)
ATTACKS: dict[str, tuple[str, str, str | None, str]] = {
    "attack_physical": ("physical", "STR", "RK-35", "RK-34"),
    "attack_weapon": ("weapon", "STR", "RK-35", "RK-34"),
    "attack_magic": ("magic", "MANA_STAT", "RK-49", "RK-45"),
    "noble_phantasm": ("special", "NP", None, "RK-54"),
    "advanced_spell": ("special", "MAGIC", None, "RK-57"),
}


@dataclass(frozen=True)
class Attack:
    """An attack ready to roll: its numbers and the rules they come from."""

    action: str
    type: str
    stat: str
    rank: Rank
    hits: list[int]
    bonus: int = 0  # a chain bonus, added once after the total (RK-67)
    cost: int = 0
    rules: list[str] = field(default_factory=list)
    name: str = ""

    @property
    def total(self) -> int:
        return sum(self.hits) + self.bonus

    def detail(self) -> AttackDetail:
        """The attack's facts, as events carry them."""
        return AttackDetail(type=self.type, stat=self.stat, rank=str(self.rank),
                            hits=list(self.hits), bonus=self.bonus, cost=self.cost,
                            name=self.name, rules=list(self.rules))  # fmt: skip


def _capped(me: Combatant, stat: str, wanted: Any, cap_rule: str) -> Rank:
    """The attack rank: at most the stat's rank (RK-35, RK-49); at the stat's own letter it
    carries the stat's half-ranks, whose value shift is always on (RK-12)."""
    own = parse_rank(me.sheet[stat])
    if wanted is None:
        return own
    rank = parse_rank(wanted)
    if order_key(rank) > order_key(own):
        raise Refused(
            "rule_violation",
            rule=cap_rule,
            reason="rank_above_cap",
            params={"actor": me, "own": own, "stat": stat, "rank": rank},
        )
    return own if rank.level == own.level else rank


def _ability(
    me: Combatant, field_name: str, options: Mapping[str, Any], rule: str
) -> dict[str, Any]:
    items: list[dict[str, Any]] = me.sheet.get(field_name, [])
    wanted = options.get("name")
    for item in items:
        if wanted is None or item["name"] == wanted:
            return item
    reason = "no_noble_phantasm" if field_name == "noble_phantasms" else "no_advanced_spell"
    raise Refused("rule_violation", rule=rule, reason=reason, params={"actor": me, "name": wanted})


def plan(
    me: Combatant, action: str, rank: Any, options: Mapping[str, Any], cfg: Mapping[str, Any]
) -> Attack:
    """The attack `me` would make with `action` at `rank` (options.name picks an NP/spell)."""
    kind = me.sheet["kind"]
    tables, families = cfg["tables"], cfg["half_rank.value_tables"]
    atype, stat, _, _ = ATTACKS[action]
    if action in ("attack_physical", "attack_weapon"):
        r = _capped(me, stat, rank, "RK-35")
        dmg = value(f"damage.physical.{kind}", r, tables, families)
        return Attack(action, atype, stat, r, [dmg], rules=["RK-33", "RK-35"])
    if action == "attack_magic":
        r = _capped(me, stat, rank, "RK-49")
        dmg = value(f"damage.magic.{kind}", r, tables, families)
        cost = value("cost.magic", r, tables, ())  # costs take no half-rank shift (RK-AMB-4)
        return Attack(action, atype, stat, r, [dmg], cost=cost, rules=["RK-43", "RK-44", "RK-49"])
    if action == "noble_phantasm":
        if kind != "servant":
            raise Refused("rule_violation", rule="RK-52", reason="servants_only_np")
        np = _ability(me, "noble_phantasms", options, "RK-52")
        r = parse_rank(np["rank"])  # the NP's own rank sets damage and cost (RK-52)
        dmg = value("damage.np", r, tables, families)
        cost = value("cost.np", r, tables, ())
        hits = [int(np.get("hit_damage", dmg))] * int(np.get("chain", 1))
        rules = ["RK-52", "RK-53"] + (["RK-65", "RK-67"] if len(hits) > 1 else [])
        return Attack(
            action, atype, stat, r, hits, int(np.get("chain_bonus", 0)), cost, rules, np["name"]
        )
    if "MAGIC" not in me.sheet:
        raise Refused("rule_violation", rule="RK-55", reason="no_magic_stat", params={"actor": me})
    spell = _ability(me, "spells", options, "RK-55")
    r = parse_rank(spell["rank"])
    dmg = value(f"damage.spell.{kind}", r, tables, families)  # +10 for a Servant (RK-58)
    cost = value("cost.spell", r, tables, ())
    rule = "RK-58" if kind == "servant" else "RK-56"
    return Attack(
        action, atype, stat, r, [dmg], cost=cost, rules=["RK-55", rule], name=spell["name"]
    )


def short_of_mana(me: Combatant, attack: Attack, cfg: Mapping[str, Any]) -> Refused | None:
    """Why the pool cannot pay for `attack` (RK-AMB-20), or None."""
    if not attack.cost:
        return None
    mana = me.resources.get("mana", 0)
    short = attack.cost > mana or (attack.cost == mana and not cfg["mana.allow_spend_to_zero"])
    if not short:
        return None
    return Refused(
        "insufficient_mana",
        rule="RK-AMB-20",
        reason="mana_short",
        params={
            "actor": me,
            "mana": mana,
            "action": attack.action,
            "rank": attack.rank,
            "cost": attack.cost,
        },
    )


def pay(ctx: Ctx, me: Combatant, attack: Attack, cfg: Mapping[str, Any]) -> None:
    """Spend the mana before the roll: it is lost if the roll fails (RK-45, RK-54, RK-57)."""
    refused = short_of_mana(me, attack, cfg)
    if refused is not None:
        raise refused
    if attack.cost:
        ctx.change(me.id, "mana", -attack.cost, f"{attack.action} {attack.rank}", attack.rules[1])


def reduced(hits: list[int], bonus: int, reduction: int, cfg: Mapping[str, Any]) -> int:
    """Damage after one reduction per hit (RK-59, RK-65), the chain bonus added once after
    the total (RK-67); clamped per hit or on the total (RK-AMB-13)."""
    if cfg["chain.clamp"] == "per_hit":
        return sum(max(0, h - reduction) for h in hits) + bonus
    return max(0, sum(hits) - reduction * len(hits)) + bonus
