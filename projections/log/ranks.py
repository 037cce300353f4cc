"""ranks-d100 in words: attacks at a rank (B+ as the seeds write it), reductions,
counters, interceptions, Luck dice, flights, mana. English and French from the payloads
of domain/rules/ranks/payloads.py, in the seeds' vocabulary (PV, PM, Tour, Servant)."""

from __future__ import annotations

from typing import ClassVar

from domain import events as ev
from domain.facts import decode
from domain.rules.ranks import payloads
from projections.log.core import Narrator, Said, Vocab, Words
from projections.words.french import de, plural

__all__ = ["Ranks"]

_STATS = {"END": ("Endurance", "Endurance"), "AGI": ("Agility", "Agilité")}
_OUTCOMES = {
    "reduced": ("reduced", "réduit"),
    "countered": ("countered", "contré"),
    "intercepted": ("intercepted", "intercepté"),
    "intercepted_reduced": ("intercepted and reduced", "intercepté et réduit"),
    "intercepted_hit": ("intercepted", "intercepté"),
    "blocked": ("blocked", "bloquée"),
    "not_blocked": ("not blocked", "non bloquée"),
}


class Ranks(Narrator):
    """The ranks-d100 narrator."""

    name_fr = "Rangs d100 (Masters et Servants)"
    round_word = ("Tour", "Tour")  # the seeds' Tour is the round

    def turn(self, who: str, phase: str) -> tuple[str, str]:
        # A Tour is the round; each combatant's part of it is its attack phase (RK-15).
        return f"{who}: attack phase", f"{who} : phase d'attaque"

    outcomes: ClassVar[Vocab] = _OUTCOMES
    reasons: ClassVar[Vocab] = {
        "dead": ("dead", "mort"),
        "returned": ("returned to the Throne of Heroes", "retourné au Trône des Héros"),
        "out_of_mana": ("left the RP at 0 mana", "quitte le RP à 0 PM"),
        "fled": ("fled", "en fuite"),
    }
    resources: ClassVar[Vocab] = {
        "hp": ("HP", "PV"),
        "mana": ("mana", "PM"),
        "luck": ("Luck uses", "jets de Chance"),
        "command_seals": ("Command Seals", "Sceaux de Commandement"),
    }
    kinds: ClassVar[dict[str, str]] = {"mana": "mana"}
    purposes: ClassVar[Vocab] = {
        "initiative": ("initiative", "initiative"),
        "initiative tie-break": ("initiative tie-break", "départage d'initiative"),
        "Luck die": ("Luck die", "jet de Chance"),
        "flight": ("flight", "fuite"),
        "END reduction": ("Endurance reduction", "action d'Endurance"),
        "AGI reduction": ("Agility reduction", "action d'Agilité"),
    }
    phases: ClassVar[Vocab] = {
        "attack": ("attack phase", "phase d'attaque"),
        "defense": ("defense phase", "phase de défense"),
    }

    def purpose(self, purpose: str, w: Words) -> tuple[str, str]:
        words = purpose.split(" ")
        if words and w.spec(words[0]) is not None and len(words) >= 2:
            rank = words[1]
            on = " ".join(words[3:]) if len(words) > 3 and words[2] == "on" else ""
            en = f"{w.label(words[0])} {rank}" + (f" on {on}" if on else "")
            fr = f"{w.label(words[0], True)} {rank}" + (f" contre {on}" if on else "")
            return en, fr
        if words[:1] == ["counter"] and len(words) >= 3:
            return (
                f"counter: {w.label(words[1])} {words[2]}",
                f"Contre-Attaque : {w.label(words[1], True)} {words[2]}",
            )
        if purpose.startswith("block ") and purpose.endswith("'s flight"):
            who = purpose.removeprefix("block ").removesuffix("'s flight")
            return purpose, f"contrer la fuite {de(who)}"
        return super().purpose(purpose, w)

    def action(self, e: ev.ActionResolved, w: Words) -> Said | None:
        a = w.name(e.actor)
        ok = e.outcome in ("success", "critical_success")
        crit = (", critical", ", critique") if e.outcome.startswith("critical") else ("", "")
        if e.action == "luck":
            luck = decode(e.detail, payloads.Luck)
            return Said(
                f"{a} rolls the Luck die: {luck.roll} against {luck.threshold}{crit[0]}, "
                f"{luck.delta:+d} to the next roll "
                f"({luck.uses_left} use{'s' * (luck.uses_left != 1)} left)",
                f"{a} lance le jet de Chance : {luck.roll} pour {luck.threshold}{crit[1]}, "
                f"{luck.delta:+d} au prochain jet ({plural(luck.uses_left, 'restant')})",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                rule=luck.rule,
                reports={(e.actor, "luck")},
            )
        if e.action == "flee":
            fl = decode(e.detail, payloads.Flight)
            en = f"{a} tries to flee: {fl.roll} against {fl.threshold}"
            fr = f"{a} tente de fuir : {fl.roll} pour {fl.threshold}"
            if not ok:
                en, fr = en + ", no escape", fr + ", pas d'issue"
            elif fl.blocker:
                b = w.name(fl.blocker)
                en, fr = en + f"; {b} may block", fr + f" ; {b} peut la contrer"
            else:
                en, fr = en + ", and gets away", fr + ", et s'échappe"
            return Said(en, fr, actor=e.actor, outcome=e.outcome, absorbs=True, rule=fl.rule)
        if e.action == "transfer_mana":
            tr = decode(e.detail, payloads.Transfer)
            b = w.name(tr.target)
            return Said(
                f"{a} gives {tr.amount} mana to {b}",
                f"{a} donne {tr.amount} PM à {b}",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                rule=tr.rule,
                reports={(c, "mana") for c in (e.actor, tr.target) if not w.secret(c, "mana")},
            )
        at = decode(e.detail, payloads.AttackDetail)
        b = w.name(at.target)
        what_en, what_fr = _attack_name(e.action, at, w)
        paid = bool(at.cost) and not w.secret(e.actor, "mana")  # a GM-only pool stays unsaid
        cost = (f" ({at.cost} mana)", f" ({at.cost} PM)") if paid else ("", "")
        en = f"{a}: {what_en} on {b}{cost[0]}, {at.roll} against {at.threshold}{crit[0]}"
        fr = f"{a} : {what_fr} contre {b}{cost[1]}, {at.roll} pour {at.threshold}{crit[1]}"
        reports = {(e.actor, "mana")} if paid else set()
        spec = w.spec(e.action)
        rule = spec.rule if spec is not None else None
        if not ok:
            lost = (", mana lost", ", PM perdus") if paid else ("", "")
            return Said(
                en + f", fails{lost[0]}",
                fr + f", échec{lost[1]}",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                rule=at.rule or None,
                reports=reports,
            )
        total = sum(at.hits) + at.bonus
        shape = _shape(at)
        return Said(
            en + f", it lands: {total} to stop{shape[0]}",
            fr + f", c'est touché : {total} à arrêter{shape[1]}",
            actor=e.actor,
            outcome=e.outcome,
            absorbs=True,
            reports=reports,
            rule=rule,
        )

    def reaction(self, e: ev.ReactionResolved, w: Words) -> Said | None:
        b = w.name(e.actor)
        if e.reaction in ("block_flight", "none") and e.outcome in ("blocked", "not_blocked"):
            fl = decode(e.detail, payloads.Flight)
            f = w.name(fl.fleer)
            if e.outcome == "blocked":
                return Said(
                    f"{b} blocks {f}'s flight ({fl.roll} against {fl.threshold})",
                    f"{b} contre la fuite {de(f)} ({fl.roll} pour {fl.threshold})",
                    actor=e.actor,
                    outcome=e.outcome,
                    absorbs=True,
                    rule=fl.rule,
                )
            tried = (
                (f" ({fl.roll} against {fl.threshold})", f" ({fl.roll} pour {fl.threshold})")
                if fl.roll is not None
                else ("", "")
            )
            return Said(
                f"{b} does not stop {f}{tried[0]}: {f} gets away",
                f"{b} n'arrête pas {f}{tried[1]} : {f} s'échappe",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                rule=fl.rule,
            )
        d = decode(e.detail, payloads.Defense)
        en, fr = _defense(e, d, b, w)
        hp_en, hp_fr = w.hp_change(e.actor, d.hp_before, d.hp)
        if e.damage_taken:
            en += f": {e.damage_taken} damage{hp_en}"
            fr += f" : {e.damage_taken} dégâts{hp_fr}"
        else:
            en, fr = en + ": no damage", fr + " : aucun dégât"
        reports = {(e.actor, "hp")} if hp_en else set()
        if d.counter is not None and d.counter.cost and not w.secret(e.actor, "mana"):
            reports.add((e.actor, "mana"))
        return Said(
            en,
            fr,
            actor=e.actor,
            outcome=e.outcome,
            absorbs=True,
            rule=d.rule or None,
            reports=reports,
        )


def _attack_name(action: str, at: payloads.AttackDetail, w: Words) -> tuple[str, str]:
    """ "Physical attack B+", or the Noble Phantasm's or spell's own name."""
    if at.name:
        return f"{w.label(action)} “{at.name}”", f"{w.label(action, True)} « {at.name} »"
    return f"{w.label(action)} {at.rank}", f"{w.label(action, True)} {at.rank}"


def _shape(at: payloads.AttackDetail) -> tuple[str, str]:
    if len(at.hits) <= 1 and not at.bonus:
        return "", ""
    parts = " + ".join(map(str, at.hits)) + (f" + {at.bonus}" if at.bonus else "")
    return (
        f" ({len(at.hits)} chained hits: {parts})",
        f" ({len(at.hits)} coups enchaînés : {parts})",
    )


def _defense(e: ev.ReactionResolved, d: payloads.Defense, b: str, w: Words) -> tuple[str, str]:
    rolled = (
        (f" ({d.roll} against {d.threshold})", f" ({d.roll} pour {d.threshold})")
        if d.roll is not None
        else ("", "")
    )
    if e.reaction == "none":
        return f"{b} does not defend", f"{b} ne se défend pas"
    if e.reaction == "counter" and d.counter is not None:
        rank = d.counter.rank
        if e.outcome == "countered":
            return (
                f"{b} counter-attacks at rank {rank}{rolled[0]} and stops the blow",
                f"{b} contre-attaque au rang {rank}{rolled[1]} et arrête le coup",
            )
        return (
            f"{b} counter-attacks at rank {rank}{rolled[0]} and fails",
            f"{b} contre-attaque au rang {rank}{rolled[1]} et échoue",
        )
    who = b
    if e.outcome.startswith("intercepted"):
        attacker = w.name(d.attacker)
        en, fr = f"{who} intercepts {attacker}'s blow", f"{who} intercepte le coup {de(attacker)}"
        if d.roll is None:
            return en, fr
        who, fr_who = f"{en} and", f"{fr} et"
        en, fr = who, fr_who
    else:
        en, fr = b, b
    stat = _STATS.get(d.stat, (d.stat, d.stat))
    if d.reduction is not None:
        return (
            f"{en} reduces by {d.reduction} with {stat[0]}{rolled[0]}",
            f"{fr} réduit de {d.reduction} avec l'{stat[1]}{rolled[1]}",
        )
    return (
        f"{en} fails the {stat[0]} reduction{rolled[0]}",
        f"{fr} rate l'action d'{stat[1]}{rolled[1]}",
    )
