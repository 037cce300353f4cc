"""d20-na in words: attacks and their margins, the defense's margin contest (NA-15), the
hit's zone and damage formula, the half-actions. English and French from the payloads
of domain/rules/d20_na/payloads.py."""

from __future__ import annotations

from typing import ClassVar

from domain import events as ev
from domain.facts import decode
from domain.rules.d20_na import payloads
from domain.rules.d20_na.tables import zone_en
from projections.log.core import Narrator, Said, Vocab, Words
from projections.words.french import de

__all__ = ["D20Na", "terms"]

_ZONES_FR = {
    "head": "à la tête",
    "torso": "au torse",
    "back": "au dos",
    "arm_left": "au bras gauche",
    "arm_right": "au bras droit",
    "leg_left": "à la jambe gauche",
    "leg_right": "à la jambe droite",
    "hand_left": "à la main gauche",
    "hand_right": "à la main droite",
    "foot_left": "au pied gauche",
    "foot_right": "au pied droit",
}
_VERBS = {
    "attack": ("attacks", "attaque"),
    "shoot": ("shoots at", "tire sur"),
    "throw": ("throws at", "lance sur"),
    "touch": ("reaches for", "tente de toucher"),
    "grapple": ("grapples", "tente d'immobiliser"),
    "trip": ("tries to trip", "tente de faire chuter"),
}
_HITS = {"shoot": ("shoots", "atteint"), "throw": ("hits", "atteint")}
_DONE = {
    "pass": ("waits", "attend"),
    "charge": ("charges", "charge"),
    "move": ("moves", "se déplace"),
    "draw": ("draws a weapon", "dégaine"),
    "disengage": ("disengages", "se désengage"),
    "pick_up": ("picks something up", "ramasse un objet"),
    "reload": ("reloads", "recharge"),
}
_DEFENSE = {"parry": ("parry", "parer"), "dodge": ("dodge", "esquiver")}
_DEFENDS = {"parry": ("parries", "pare"), "dodge": ("dodges", "esquive")}
_EFFECTS = {
    "touched": ("touched", "touché"),
    "grappled": ("grappled", "immobilisé"),
    "tripped": ("tripped", "jeté à terre"),
}
_TERMS = {
    "FOR": ("FOR", "FOR"),
    "END": ("END", "END"),
    "armor": ("armor", "armure"),
    "parry": ("parry", "parade"),
    "range_malus": ("range malus", "malus de portée"),
}


def terms(hit: payloads.Hit, fr: bool) -> str:
    """ "2 x FOR 10 + claws 14 - END 8": the formula, zero terms left out."""
    out: list[str] = []
    for term in hit.terms:
        if term.value == 0 and term.name != "weapon":
            continue
        name = (
            (hit.weapon or ("arme" if fr else "weapon"))
            if term.name == "weapon"
            else _TERMS.get(term.name, (term.name, term.name))[1 if fr else 0]
        )
        said = f"{term.times} x {name} {term.value}" if term.times != 1 else f"{name} {term.value}"
        out.append(("- " if term.sign < 0 else "+ ") + said if out else said)
    return " ".join(out)


def _zone(zone: str, fr: bool) -> str:
    return _ZONES_FR.get(zone, zone) if fr else f"on the {zone_en(zone)}"


class D20Na(Narrator):
    """The d20-na narrator."""

    name_fr = "d20 ATT/PAR avec budget NA"
    outcomes: ClassVar[Vocab] = {
        "stopped": ("stopped", "arrêté"),
        "parried": ("parried", "paré"),
        "resisted": ("resisted", "résisté"),
        "done": ("done", "fait"),
    }
    purposes: ClassVar[Vocab] = {
        "hit location": ("hit location", "localisation"),
        "parry": ("parry", "parade"),
        "dodge": ("dodge", "esquive"),
        "shield reroll": ("shield reroll", "relance du bouclier"),
        "initiative roll-off": ("initiative roll-off", "départage d'initiative"),
    }

    def purpose(self, purpose: str, w: Words) -> tuple[str, str]:
        for code in _VERBS:
            if purpose.startswith(f"{code} on "):
                who = purpose.removeprefix(f"{code} on ")
                return (
                    f"{w.label(code).lower()} on {who}",
                    f"{w.label(code, True).lower()} contre {who}",
                )
        if purpose.startswith("off-hand reroll on "):
            who = purpose.removeprefix("off-hand reroll on ")
            return purpose, f"relance de la main gauche contre {who}"
        if purpose.endswith(" damage"):
            weapon = purpose.removesuffix(" damage")
            return purpose, f"dégâts {de(weapon)}"
        return super().purpose(purpose, w)

    def action(self, e: ev.ActionResolved, w: Words) -> Said | None:
        a = w.name(e.actor)
        if e.outcome == "done":
            done = decode(e.detail, payloads.Done)
            en, fr = _DONE.get(e.action, (e.action, e.action))
            if done.target:
                en, fr = f"{en} {w.name(done.target)}", f"{fr} {w.name(done.target)}"
            if done.weapon:
                en, fr = f"{en} the {done.weapon}", f"{fr} : {done.weapon}"
            return Said(f"{a} {en}", f"{a} {fr}", actor=e.actor, outcome="done")
        hit = decode(e.detail, payloads.Hit)
        b = w.name(hit.target)
        v_en, v_fr = _VERBS.get(e.action, _VERBS["attack"])
        reroll = (
            (" (off-hand reroll)", " (relance de la main gauche)")
            if hit.hand == "off"
            else ("", "")
        )
        en = f"{a} {v_en} {b}{reroll[0]}: {hit.roll} against {hit.threshold}"
        fr = f"{a} {v_fr} {b}{reroll[1]} : {hit.roll} pour {hit.threshold}"
        if e.outcome == "miss":
            return Said(en + ", a miss", fr + ", raté", actor=e.actor, outcome="miss", absorbs=True)
        en += f", a hit (margin {hit.margin})"
        fr += f", touché (marge {hit.margin})"
        if not hit.undefended:
            return Said(en, fr, actor=e.actor, outcome="hit", absorbs=True)
        l_en, l_fr, reports = _landed(e.actor, hit, w, short=True)
        return Said(
            f"{en}, no defense possible: {l_en}",
            f"{fr}, aucune défense possible : {l_fr}",
            actor=e.actor,
            outcome="hit",
            absorbs=True,
            rule=hit.undefended,
            reports=reports,
        )

    def reaction(self, e: ev.ReactionResolved, w: Words) -> Said | None:
        d = decode(e.detail, payloads.Defended)
        b = w.name(e.actor)
        attacker = _attacker(e, w)
        if e.reaction == "none":
            en, fr = f"{b} does not defend", f"{b} ne se défend pas"
        elif e.outcome in ("dodged", "stopped", "resisted"):
            what = {
                "dodged": ("dodges", "esquive"),
                "stopped": ("stops the projectile", "arrête le projectile"),
                "resisted": ("resists", "résiste"),
            }[e.outcome]
            dm, m = d.defense_margin, d.margin
            got_en, got_fr = _against(d)
            en = f"{b} {what[0]} ({got_en}, margin {dm} against {m}): no damage"
            fr = f"{b} {what[1]} ({got_fr}, marge {dm} contre {m}) : aucun dégât"
            return Said(en, fr, actor=e.actor, outcome=e.outcome, absorbs=True)
        elif d.defended:  # a parry that won: the parry value comes off (NA-27)
            does = _DEFENDS.get(e.reaction, (e.reaction, e.reaction))
            got_en, got_fr = _against(d)
            en = f"{b} {does[0]} ({got_en}, margin {d.defense_margin} against {d.margin})"
            fr = f"{b} {does[1]} ({got_fr}, marge {d.defense_margin} contre {d.margin})"
        elif d.defense_success:  # NA-15: the larger margin prevails
            does = _DEFENDS.get(e.reaction, (e.reaction, e.reaction))
            en = (
                f"{b} {does[0]} (margin {d.defense_margin}) but the attack prevails "
                f"(margin {d.margin})"
            )
            fr = (
                f"{b} {does[1]} (marge {d.defense_margin}) mais l'attaque l'emporte "
                f"(marge {d.margin})"
            )
            if e.outcome != "parried":
                en, fr = en + ": full damage", fr + " : dégâts entiers"
        else:
            r_en, r_fr = _DEFENSE.get(e.reaction, (e.reaction, e.reaction))
            got_en, got_fr = _against(d)
            en, fr = (
                f"{b} fails to {r_en} ({got_en})",
                f"{b} ne parvient pas à {r_fr} ({got_fr})",
            )
        l_en, l_fr, reports = _landed(attacker, d, w)
        return Said(
            f"{en}. {l_en}",
            f"{fr}. {l_fr}",
            actor=e.actor,
            outcome=e.outcome,
            absorbs=True,
            reports=reports,
        )


def _against(d: payloads.Defended) -> tuple[str, str]:
    """ "13 against 11", or the bare roll in events written before the threshold was kept."""
    if d.defense_threshold is None:
        return str(d.defense_roll), str(d.defense_roll)
    return (f"{d.defense_roll} against {d.defense_threshold}",
            f"{d.defense_roll} pour {d.defense_threshold}")  # fmt: skip


def _attacker(e: ev.ReactionResolved, w: Words) -> str:
    for p in w.state.game.pending:
        if p.id == e.pending_id:
            return p.attacker
    return "?"


def _landed(
    attacker: str, hit: payloads.Hit, w: Words, short: bool = False
) -> tuple[str, str, set[tuple[str, str]]]:
    """ "Fangeux hits Milicien on the left leg: 26 damage (2 x FOR 10 + ...), HP 26 -> 0";
    `short` when the line already named both: "26 damage on the torso (...)"."""
    a, b = w.name(attacker), w.name(hit.target)
    if hit.effect:
        en, fr = _EFFECTS.get(hit.effect, (hit.effect, hit.effect))
        return f"{b} is {en}", f"{b} est {fr}", set()
    h_en, h_fr = _HITS.get(hit.action, ("hits", "touche"))
    hp_en, hp_fr = w.hp_change(hit.target, hit.hp_before, hit.hp)
    z_en, z_fr = _zone(hit.zone, False), _zone(hit.zone, True)
    dmg_en = f"{hit.damage} damage ({terms(hit, False)}){hp_en}"
    dmg_fr = f"{hit.damage} dégâts ({terms(hit, True)}){hp_fr}"
    if short:
        en, fr = f"{hit.damage} damage {z_en} ({terms(hit, False)}){hp_en}", \
            f"{hit.damage} dégâts {z_fr} ({terms(hit, True)}){hp_fr}"  # fmt: skip
    else:
        en, fr = f"{a} {h_en} {b} {z_en}: {dmg_en}", f"{a} {h_fr} {b} {z_fr} : {dmg_fr}"
    reports = {(hit.target, "hp")} if hp_en else set()
    return en, fr, reports
