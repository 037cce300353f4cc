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
        raise Invalid(f"sheet.skills must be a list of at most {MAX_SKILLS} entries", "RK-16")
    out: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict):
            raise Invalid("each of sheet.skills is {name, rank, mode, tours?}", "RK-16")
        name = item.get("name")
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
            raise Invalid("each skill needs a name of 1 to 80 characters", "RK-16")
        extra = sorted(set(item) - FIELDS)
        if extra:
            raise Invalid(
                f"skill {name}: {extra} cannot be declared: the source gives skills a rank, "
                "active or passive and a duration in Tours, and no numbers for their effects "
                "(RK-AMB-26)",
                "RK-AMB-26",
            )
        if item.get("mode") not in MODES:
            raise Invalid(f"skill {name}: mode is active or passive", "RK-16")
        entry: dict[str, Any] = {
            "name": name.strip(),
            "rank": str(parse_rank(item.get("rank"))),
            "mode": item["mode"],
        }
        if "tours" in item:
            tours = item["tours"]
            if type(tours) is not int or not 1 <= tours <= MAX_TOURS:
                raise Invalid(f"skill {name}: tours is a whole number, 1 to {MAX_TOURS}", "RK-14")
            if entry["mode"] == "passive":
                raise Invalid(
                    f"skill {name}: a passive skill is always on; the source does not say "
                    "when its Tours would start",
                    "RK-16",
                )
            entry["tours"] = tours
        out.append(entry)
    names = [s["name"] for s in out]
    if len(set(names)) != len(names):
        raise Invalid("two skills share a name", "RK-16")
    return out


def find(me: Combatant, name: Any) -> dict[str, Any]:
    """The sheet's skill of that name."""
    for skill in me.sheet.get("skills", []):
        if skill["name"] == name:
            return dict(skill)
    known = [s["name"] for s in me.sheet.get("skills", [])]
    raise Invalid(f"{me.name} has no skill {name!r}; known: {known}", "RK-16")


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
