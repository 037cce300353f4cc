"""d100-tcs in words: a TCS's roll, the hit through armor PP and PR to HP (and the
armor's degradation), last stands, fumbles, friendly fire, spells, morale and flight.
English and French from the payload of domain/rules/tcs/payloads.py (PV, NRJ...)."""

from __future__ import annotations

from typing import ClassVar

from domain import events as ev
from domain.facts import decode
from domain.rules.tcs import payloads
from projections.log.core import Narrator, Said, Vocab, Words
from projections.words.french import de

__all__ = ["Tcs"]

_PROTECTIONS = ("armor_pr", "armor_level", "under_pr", "shield_pr")
_REASONS = {
    "critical_failure": ("to a critical failure", "sur un échec critique"),
    "another_action": ("another action came first", "une autre action est passée avant"),
    "round_passed": ("a round went by", "un round est passé"),
    "target_gone": ("the target is gone", "la cible n'est plus là"),
}
_DONE = {
    "move": ("moves {metres} m", "se déplace de {metres} m"),
    "stand_up": ("stands up", "se relève"),
    "focus": ("focuses (+{bonus} to the next TCS)", "se concentre (+{bonus} à la prochaine TCS)"),
    "disengage": ("breaks off the fight", "rompt le combat"),
    "flee": ("declares flight", "annonce sa fuite"),
    "rejoin": ("rejoins the melee", "revient dans la mêlée"),
}


class Tcs(Narrator):
    """The d100-tcs narrator."""

    name_fr = "d100 TCS avec PR/PP d'armure et moral"
    outcomes: ClassVar[Vocab] = {
        "preparing": ("preparing", "en préparation"),
        "void": ("void", "sans effet"),
        "cancelled": ("cancelled", "annulé"),
        "escaped": ("escaped", "échappé"),
        "caught": ("caught", "rattrapé"),
        "declared": ("declared", "annoncé"),
        "done": ("done", "fait"),
    }
    reasons: ClassVar[Vocab] = {
        "out of combat": ("out of combat", "hors de combat"),
        "fled": ("fled", "en fuite"),
    }
    resources: ClassVar[Vocab] = {
        "hp": ("HP", "PV"),
        "energy": ("energy", "NRJ"),
        "morale": ("morale", "moral"),
        "armor_pr": ("armor PR", "PR de l'armure"),
        "armor_level": ("armor level", "niveau d'armure"),
        "under_pr": ("padding PR", "PR de la sous-couche"),
        "shield_pr": ("shield PR", "PR du bouclier"),
    }
    kinds: ClassVar[dict[str, str]] = {"energy": "mana"}
    purposes: ClassVar[Vocab] = {
        "last stand": ("last stand", "dernier sursaut"),
        "critical table": ("critical table", "table des critiques"),
        "friendly fire: ally": ("friendly fire: which ally", "tir ami : quel allié"),
        "morale check": ("morale check", "test de moral"),
        "initiative": ("initiative", "initiative"),
    }

    def purpose(self, purpose: str, w: Words) -> tuple[str, str]:
        if purpose.startswith("casting "):
            spell = purpose.removeprefix("casting ")
            return purpose, f"lancer {spell}"
        if purpose.startswith("pursuit: "):
            who = purpose.removeprefix("pursuit: ")
            return purpose, f"poursuite : {who}"
        label, sep, foe = purpose.rpartition(" on ")
        if sep:
            fr = {"attack": "attaque", "opportunity attack": "attaque d'opportunité"}.get(
                label, label
            )
            return purpose, f"{fr} contre {foe}"
        return super().purpose(purpose, w)

    def status(self, e: ev.StatusSet, w: Words) -> Said | None:
        me = w.state.game.combatants.get(e.combatant_id)
        if e.key == "fleeing" and e.value and me is not None and not me.status.get("fleeing"):
            who = me.name
            return Said(f"{who} flees", f"{who} prend la fuite", actor=e.combatant_id, rule=e.rule)
        return None

    def action(self, e: ev.ActionResolved, w: Words) -> Said | None:
        d = decode(e.detail, payloads.Deed)
        a = w.name(e.actor)
        rule = d.rule or None
        if e.action in ("attack", "opportunity_attack") and e.outcome not in ("void", "cancelled"):
            return _attack(e, d, a, w)
        if e.action == "cast" and e.outcome in ("preparing", "void", "cancelled"):
            if e.outcome == "preparing":
                en = f"{a} prepares {d.spell} ({d.left} more action(s))"
                fr = f"{a} prépare {d.spell} (encore {d.left} action(s))"
            elif e.outcome == "void":
                en, fr = f"{a} loses the target of {d.spell}", f"{a} perd la cible {de(d.spell)}"
            else:
                why = _REASONS.get(d.reason, (d.reason, d.reason))
                en, fr = (
                    f"{a} loses {d.spell} in preparation: {why[0]}",
                    f"{a} perd {d.spell} en préparation : {why[1]}",
                )
            return Said(en, fr, actor=e.actor, outcome=e.outcome, rule=rule)
        if e.action == "cast":
            return _attack(e, d, a, w)
        if e.outcome in ("void", "cancelled"):
            label, label_fr = w.label(e.action).lower(), w.label(e.action, True).lower()
            if e.outcome == "cancelled":
                why = _REASONS.get(d.reason, (d.reason, d.reason))
                return Said(
                    f"{a} loses the rest of the round ({label}) {why[0]}",
                    f"{a} perd le reste du round ({label_fr}) {why[1]}",
                    actor=e.actor,
                    outcome=e.outcome,
                    rule=rule,
                )
            return Said(
                f"{a} can no longer {label}",
                f"{a} ne peut plus : {label_fr}",
                actor=e.actor,
                outcome=e.outcome,
                rule=rule,
            )
        if e.action == "pursue":
            b = w.name(d.target)
            if e.outcome == "caught":
                return Said(
                    f"{a} catches {b}, who falls",
                    f"{a} rattrape {b}, qui tombe à terre",
                    actor=e.actor,
                    outcome=e.outcome,
                    absorbs=True,
                    rule=rule,
                )
            return Said(
                f"{a} loses track of {b}",
                f"{a} perd la trace {de(b)}",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                rule=rule,
            )
        if e.action == "let_flee":
            return Said(
                f"{a} lets {w.names(d.let)} flee",
                f"{a} laisse fuir {w.names(d.let, True)}",
                actor=e.actor,
                outcome=e.outcome,
                rule=rule,
            )
        if e.action == "drink_potion":
            hp_en, hp_fr = w.hp_change(e.actor, d.hp_before, d.hp)
            return Said(
                f"{a} drinks the {d.label}: +{d.healed} HP{hp_en}",
                f"{a} boit {d.label} : +{d.healed} PV{hp_fr}",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                reports={(e.actor, "hp")} if hp_en else set(),
            )
        if e.action == "use_item":
            if d.reason == "in_hand":
                return Said(
                    f"{a} takes the {d.label} in hand",
                    f"{a} prend en main : {d.label}",
                    actor=e.actor,
                    outcome=e.outcome,
                )
            return Said(
                f"{a} uses the {d.label}",
                f"{a} utilise : {d.label}",
                actor=e.actor,
                outcome=e.outcome,
            )
        en, fr = _DONE.get(e.action, (e.action.replace("_", " "), w.label(e.action, True)))
        fill = {"metres": d.metres, "bonus": d.bonus}
        return Said(
            f"{a} {en.format(**fill)}",
            f"{a} {fr.format(**fill)}",
            actor=e.actor,
            outcome=e.outcome,
            rule=rule,
        )


def _attack(e: ev.ActionResolved, d: payloads.Deed, a: str, w: Words) -> Said:
    """One roll and what it did: the hit through the protections, a fumble, friendly fire."""
    b = w.name(d.target) if d.target else ""
    what_en = f" ({d.label})" if d.label else ""
    what_fr = what_en.replace("(", "(", 1)
    crit = (" critical", " critique") if e.outcome.startswith("critical") else ("", "")
    rolled_en, rolled_fr = f"{d.roll} against {d.threshold}", f"{d.roll} pour {d.threshold}"
    reports: set[tuple[str, str]] = set()
    if e.action == "cast":
        head_en = f"{a} casts {d.spell}" + (f" on {b}" if b else "") + f": {rolled_en}"
        head_fr = f"{a} lance {d.spell}" + (f" sur {b}" if b else "") + f" : {rolled_fr}"
    elif e.outcome in ("success", "critical_success"):
        head_en, head_fr = (
            f"{a} hits {b}{what_en}: {rolled_en}",
            f"{a} touche {b}{what_fr} : {rolled_fr}",
        )
    else:
        head_en, head_fr = (
            f"{a} misses {b}{what_en}: {rolled_en}",
            f"{a} rate {b}{what_fr} : {rolled_fr}",
        )
    if e.action == "opportunity_attack":
        head_en = "Opportunity: " + head_en
        head_fr = "Opportunité : " + head_fr
    en, fr = head_en + crit[0], head_fr + crit[1]
    if e.action == "cast":
        ok = e.outcome in ("success", "critical_success")
        en += ", success" if ok else ", failure"
        fr += ", réussite" if ok else ", échec"
    if d.damage is not None and d.target:
        h_en, h_fr = _hit(d, d.target, w)
        en, fr = f"{en}. {h_en}", f"{fr}. {h_fr}"
        reports |= _told(d.target, w)
    if d.fumble == "table":
        en += f". Critical table {d.crit_table}: {d.effect}"
        fr += f". Table des critiques {d.crit_table} : {d.effect}"
    elif d.fumble == "self" and d.self_blow is not None:
        # The hit on the actor told whole, through its protections, with its cause.
        h_en, h_fr = _hit(d.self_blow, e.actor, w)
        en += f". The blow turns on {a}: {h_en}"
        fr += f". Le coup se retourne contre {a} : {h_fr}"
        reports |= _told(e.actor, w)
    elif d.fumble == "self":  # an event written before the blow's facts were kept
        en += f". The blow turns on {a}: {d.self_hp_loss} damage"
        fr += f". Le coup se retourne contre {a} : {d.self_hp_loss} dégâts"
        reports |= _told(e.actor, w, protections=False)
        me = w.state.game.combatants.get(e.actor)
        if me is not None and not w.secret(e.actor, "hp"):
            en += f", {w.res('hp')} {me.resources.get('hp')}"
            fr += f", {w.res('hp', True)} {me.resources.get('hp')}"
    if d.friendly_fire and d.ally_blow is not None:
        ally = w.name(d.friendly_fire)
        h_en, h_fr = _hit(d.ally_blow, d.friendly_fire, w)
        en += f". Friendly fire: {ally} is hit, {h_en}"
        fr += f". Tir ami : {ally} est touché, {h_fr}"
        reports |= _told(d.friendly_fire, w)
    elif d.friendly_fire:
        ally = w.name(d.friendly_fire)
        en += f". Friendly fire: {ally} is hit, {d.ally_hp_loss} damage"
        fr += f". Tir ami : {ally} est touché, {d.ally_hp_loss} dégâts"
        reports |= _told(d.friendly_fire, w, protections=False)
    return Said(
        en, fr, actor=e.actor, outcome=e.outcome, absorbs=True, reports=reports, rule=d.rule or None
    )


def _told(cid: str, w: Words, protections: bool = True) -> set[tuple[str, str]]:
    """The resource changes a hit line says itself (and so takes over): HP, and the
    protections whose numbers it gives; never a GM-only one, whose line stays the GM's."""
    said = ("hp", *_PROTECTIONS) if protections else ("hp",)
    return {(cid, r) for r in said if not w.secret(cid, r)}


def _hit(d: payloads.Deed | payloads.Blow, target: str, w: Words) -> tuple[str, str]:
    """ "8 damage, 3 stopped by the armor's PP, which degrades (level 1, PR 12): HP 20 -> 15"."""
    c = w.state.game.combatants.get(target)
    # A GM-only protection's numbers stay off the public line (its own line is the GM's).
    res = {k: v for k, v in (c.resources if c is not None else {}).items()
           if not w.secret(target, k)}  # fmt: skip
    if d.shield:
        en = f"{d.damage} damage on the shield"
        fr = f"{d.damage} dégâts sur le bouclier"
        pr = res.get("shield_pr")
        if d.shield == "broken":
            return en + ", which breaks", fr + ", qui se brise"
        if pr is None:
            return en, fr
        return en + f" (shield PR {pr})", fr + f" (PR du bouclier {pr})"
    en, fr = f"{d.damage} damage", f"{d.damage} dégâts"
    if d.pp:
        stopped = min(d.pp, d.damage or 0)
        en += f", {stopped} stopped by PP {d.pp}"
        fr += f", {stopped} arrêtés par la PP {d.pp}"
    if d.armor == "degraded" and "armor_pr" in res:
        en += f"; the armor degrades (level {res.get('armor_level')}, PR {res.get('armor_pr')})"
        fr += f" ; l'armure se dégrade (niveau {res.get('armor_level')}, PR {res.get('armor_pr')})"
    elif d.armor == "degraded":
        en, fr = en + "; the armor degrades", fr + " ; l'armure se dégrade"
    elif d.armor == "broken":
        en, fr = en + "; the armor breaks", fr + " ; l'armure se brise"
    elif d.armor == "held" and "armor_pr" in res:
        en += f" (armor PR {res['armor_pr']})"
        fr += f" (PR de l'armure {res['armor_pr']})"
    hp_en, hp_fr = w.hp_change(target, d.hp_before, d.hp)
    # What the HP lost, as the before and after say it (the pool stops at 0, TC-28 at 1).
    lost = d.hp_before - d.hp if d.hp_before is not None and d.hp is not None else d.hp_loss
    if hp_en and lost != d.damage:  # the protections (or the pool's floor) took some
        en += f": {lost} HP lost" + hp_en
        fr += f" : {lost} PV perdus" + hp_fr
    elif hp_en:
        en, fr = en + hp_en, fr + hp_fr
    if d.last_stand == "stood":
        en += "; last stand: stays up at 1 HP, prone"
        fr += " ; dernier sursaut : tient debout à 1 PV, à terre"
    elif d.last_stand == "fell":
        en += "; last stand failed"
        fr += " ; dernier sursaut raté"
    return en, fr
