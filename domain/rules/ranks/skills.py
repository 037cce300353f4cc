"""ranks-d100 skills (Compétences, RK-16) and their durations in Tours (RK-14).

What the source quantifies, and all that is implemented here (seed 000, lines 35, 38, 40):

- "Pour les Compétences, en plus du Rang, elle possède la mention d'Active ou de Passive
  [...] une Compétence Passive est utilisé en permanence et ne peut être désactivé."
  A skill entry has a `rank` and a `mode` (`active` | `passive`).
- "Certaines Compétences [...] possèdent la mention de "Tour", où elles ne sont valables ou
  utilisables que durant X Tours. [...] une Compétence durant 1 Tour sera effective
  jusqu'à votre prochain Tour !" An optional whole `tours` X: activating the skill puts a
  condition of its name on its bearer for X edges `start_of_turn` of the bearer's own
  turns (the condition mechanism counts them): 1 Tour ends at the start of your next turn.
- "actions gratuites, qui se font sans qu'il y ait besoin d'un lancé de dés [...] activer
  une compétence (active ou passive)": `act {action: "skill", options: {name}}` is free
  (RK-18): no die, no complex action, allowed outside one's own turn.

What has NO numbers in the source and stays out (RK-AMB-26, RK-48):

- every skill **effect**: no skill of the source names a bonus, a damage, a reduction or a
  threshold. The only skill magnitude mentioned is qualitative, "avec leurs Compétences
  de Classe, les Attaques Magiques des Caster restent largement supérieur à celles de tout
  autre Classe de Servant" (line 94, RK-48). A sheet entry carrying `effect`, `bonus`,
  `modifier` or any other field is refused, so nothing unquantified looks enforced; the GM
  applies an effect by hand (`adjust`, `apply_condition`).
- "EX obtained through a Skill" (line 130-131, RK-31) is the existing `boosted` field.
- the Tours of combat weapons ("ainsi que des Armes de Combat"): weapons are not sheet
  entries in this engine.
- a passive skill's Tours: a passive skill is "utilisé en permanence", and the source does
  not say when its X Tours would start, so `tours` on a passive skill is refused.
- how often an active skill may be used: the source is silent; it may be activated again
  once its previous activation has run out (or been removed by the GM).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.commands import Act
from domain.context import Ctx
from domain.errors import Invalid, Refused
from domain.rules.ranks.tables import parse_rank
from domain.state import Combatant

MAX_SKILLS = 16
MAX_TOURS = 99
MODES = ("active", "passive")
FIELDS = frozenset({"name", "rank", "mode", "tours"})


def validate_skills(raw: Any) -> list[dict[str, Any]]:
    """`skills: [{name, rank, mode, tours?}]` (RK-16, RK-14); anything else is refused."""
    if not isinstance(raw, list) or len(raw) > MAX_SKILLS:
        raise Invalid(
            rule="RK-16", reason="sheet_skills_must_list_most", params={"max": MAX_SKILLS}
        )
    out: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict):
            raise Invalid(rule="RK-16", reason="each_sheet_skills")
        name = item.get("name")
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
            raise Invalid(rule="RK-16", reason="each_skill_needs_name_1")
        extra = sorted(set(item) - FIELDS)
        if extra:
            raise Invalid(
                rule="RK-AMB-26",
                reason="skill_cannot_declared_source_gives",
                params={"name": name, "extra": extra},
            )
        if item.get("mode") not in MODES:
            raise Invalid(rule="RK-16", reason="skill_mode_active_passive", params={"name": name})
        entry: dict[str, Any] = {
            "name": name.strip(),
            "rank": str(parse_rank(item.get("rank"))),
            "mode": item["mode"],
        }
        if "tours" in item:
            tours = item["tours"]
            if type(tours) is not int or not 1 <= tours <= MAX_TOURS:
                raise Invalid(
                    rule="RK-14",
                    reason="skill_tours_whole_number_1",
                    params={"name": name, "max": MAX_TOURS},
                )
            if entry["mode"] == "passive":
                raise Invalid(
                    rule="RK-16", reason="skill_passive_skill_always_on", params={"name": name}
                )
            entry["tours"] = tours
        out.append(entry)
    names = [s["name"] for s in out]
    if len(set(names)) != len(names):
        raise Invalid(rule="RK-16", reason="two_skills_share_name")
    return out


def find(me: Combatant, name: Any) -> dict[str, Any]:
    """The sheet's skill of that name."""
    for skill in me.sheet.get("skills", []):
        if skill["name"] == name:
            return dict(skill)
    known = [s["name"] for s in me.sheet.get("skills", [])]
    raise Invalid(
        rule="RK-16",
        reason="has_no_skill_known",
        params={"actor": me, "name": name, "known": known},
    )


def refusal(me: Combatant, skill: Mapping[str, Any]) -> Refused | None:
    """Why the skill cannot be activated now, or None (shared by `activate` and `legal`)."""
    if skill["mode"] == "passive":
        return Refused(
            "rule_violation",
            rule="RK-16",
            reason="skill_is_passive",
            params={"skill": skill["name"]},
        )
    if skill["name"] in me.conditions:
        return Refused(
            "rule_violation",
            rule="RK-14",
            reason="skill_in_effect",
            params={"skill": skill["name"]},
        )
    return None


def activate(ctx: Ctx, me: Combatant, command: Act) -> None:
    """RK-16, RK-18: a free action with no die; its Tours run from now (RK-14)."""
    skill = find(me, command.options.get("name"))
    why = refusal(me, skill)
    if why is not None:
        raise why
    tours = skill.get("tours")
    ctx.condition(
        me.id,
        skill["name"],
        rounds=tours,
        until="start_of_turn",  # "effective jusqu'à votre prochain Tour"
        rule="RK-14" if tours is not None else "RK-16",
    )
