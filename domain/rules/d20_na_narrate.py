"""d20-na fights told as text, in English or French (NA-38: save the outcome as text).

Reads only events: the names from `combatant_added`, the numbers from the `detail` of
`action_resolved` and `reaction_resolved`, so any stored d20-na encounter can be told.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain import events as ev
from domain.rules.d20_na_tables import zone_en

_ZONES_FR = {
    "head": "à la tête", "torso": "au torse", "back": "au dos",
    "arm_left": "au bras gauche", "arm_right": "au bras droit",
    "leg_left": "à la jambe gauche", "leg_right": "à la jambe droite",
    "hand_left": "à la main gauche", "hand_right": "à la main droite",
    "foot_left": "au pied gauche", "foot_right": "au pied droit",
}  # fmt: skip

_TEXT = {
    "en": {
        "round": "Round {n}",
        "miss": "{a} {verb} {b}: {roll} against {thr}, a miss.",
        "hit": "{a} {verb} {b}: {roll} against {thr}, a hit (margin {m}).",
        "dodged": "{b} dodges ({roll}, margin {dm}): no damage.",
        "stopped": "{b} stops the projectile ({roll}, margin {dm}): no damage.",
        "resisted": "{b} resists ({roll}, margin {dm}).",
        "parried": "{b} parries ({roll}, margin {dm}) and takes {d} on the {z}.",
        "failed": "{b} tries to {r} ({roll}) and fails: {d} on the {z}.",
        "outdone": "{b} tries to {r} ({roll}, margin {dm}); the attack prevails: {d} on the {z}.",
        "none": "{b} does not defend: {d} on the {z}.",
        "caught": "{b} is caught ({act}).",
        "undefended": "{b} cannot defend: {d} on the {z}.",
        "down": "{a} is down.",
        "r_parry": "parry",
        "r_dodge": "dodge",
        "v_attack": "attacks", "v_shoot": "shoots at", "v_throw": "throws at",
        "v_touch": "reaches for", "v_grapple": "grapples", "v_trip": "tries to trip",
        "do_pass": "{a} waits.", "do_charge": "{a} charges.", "do_move": "{a} moves.",
        "do_draw": "{a} draws a weapon.", "do_disengage": "{a} disengages.",
        "do_pick_up": "{a} picks something up.", "do_reload": "{a} reloads.",
    },
    "fr": {
        "round": "Round {n}",
        "miss": "{a} {verb} {b} : {roll} pour {thr}, raté.",
        "hit": "{a} {verb} {b} : {roll} pour {thr}, touché (marge {m}).",
        "dodged": "{b} esquive ({roll}, marge {dm}) : aucun dégât.",
        "stopped": "{b} arrête le projectile ({roll}, marge {dm}) : aucun dégât.",
        "resisted": "{b} résiste ({roll}, marge {dm}).",
        "parried": "{b} pare ({roll}, marge {dm}) et perd {d} PV {z}.",
        "failed": "{b} tente de {r} ({roll}) et échoue : {d} PV {z}.",
        "outdone": "{b} tente de {r} ({roll}, marge {dm}) mais l'attaque prime : {d} PV {z}.",
        "none": "{b} ne se défend pas : {d} PV {z}.",
        "caught": "{b} est pris ({act}).",
        "undefended": "{b} ne peut pas se défendre : {d} PV {z}.",
        "down": "{a} est hors de combat.",
        "r_parry": "parer",
        "r_dodge": "esquiver",
        "v_attack": "attaque", "v_shoot": "tire sur", "v_throw": "lance sur",
        "v_touch": "tente de toucher", "v_grapple": "tente d'immobiliser",
        "v_trip": "tente de faire chuter",
        "do_pass": "{a} attend.", "do_charge": "{a} charge.", "do_move": "{a} se déplace.",
        "do_draw": "{a} dégaine.", "do_disengage": "{a} se désengage.",
        "do_pick_up": "{a} ramasse un objet.", "do_reload": "{a} recharge.",
    },
}  # fmt: skip

Zone = Callable[[Any], str]


def narrate(events: Sequence[ev.Event], lang: str = "en") -> str:
    """The fight as text, one line per blow, in English (`en`) or French (`fr`)."""
    if lang not in _TEXT:
        raise ValueError(f"no narration in {lang!r}; languages: {sorted(_TEXT)}")
    text = _TEXT[lang]
    names: dict[str, str] = {}
    lines: list[str] = []

    def zone(z: Any) -> str:
        return _ZONES_FR.get(str(z), str(z)) if lang == "fr" else zone_en(str(z))

    for e in events:
        if isinstance(e, ev.CombatantAdded):
            names[e.combatant_id] = e.name
        elif isinstance(e, ev.RoundStarted):
            lines.append(text["round"].format(n=e.round))
        elif isinstance(e, ev.ActionResolved):
            lines += _action_lines(e, names, text, zone)
        elif isinstance(e, ev.ReactionResolved):
            lines.append(_reaction_line(e, names, text, zone))
        elif isinstance(e, ev.CombatantDefeated):
            lines.append(text["down"].format(a=names[e.combatant_id]))
    return "\n".join(lines)


def _action_lines(
    e: ev.ActionResolved, names: dict[str, str], text: dict[str, str], zone: Zone
) -> list[str]:
    d = e.detail
    a = names.get(e.actor, e.actor)
    if "roll" not in d:  # a half-action or a pass: no dice, one short line
        key = f"do_{e.action}"
        return [text[key].format(a=a)] if key in text else []
    b = names.get(str(d.get("target")), "?")
    verb = text.get(f"v_{e.action}", text["v_attack"])
    key = "miss" if e.outcome == "miss" else "hit"
    out = [text[key].format(a=a, verb=verb, b=b, roll=d["roll"], thr=d["threshold"],
                            m=d.get("margin"))]  # fmt: skip
    if "undefended" in d and "zone" in d:
        out.append(text["undefended"].format(b=b, d=d["damage"], z=zone(d["zone"])))
    return out


def _reaction_line(
    e: ev.ReactionResolved, names: dict[str, str], text: dict[str, str], zone: Zone
) -> str:
    d = e.detail
    b = names.get(e.actor, e.actor)
    roll, dm = d.get("defense_roll"), d.get("defense_margin")
    if e.outcome in ("dodged", "stopped", "resisted", "parried"):
        return text[e.outcome].format(b=b, roll=roll, dm=dm, d=e.damage_taken,
                                      z=zone(d.get("zone")))  # fmt: skip
    if "zone" not in d:
        return text["caught"].format(b=b, act=e.reaction)
    if e.reaction == "none":
        return text["none"].format(b=b, d=e.damage_taken, z=zone(d["zone"]))
    key = "outdone" if d.get("defense_success") else "failed"
    return text[key].format(
        b=b, r=text[f"r_{e.reaction}"], roll=roll, dm=dm, d=e.damage_taken, z=zone(d["zone"])
    )
