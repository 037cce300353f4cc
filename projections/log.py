"""One log line per meaningful event, in English and French, with combatant names.

`describe` reads the state as it stood *before* the event, so a combatant that the event
removes still has its name. Rule systems write their own English summaries into
`action_resolved` / `reaction_resolved`; the French line is built from their French
labels (`ActionSpec.label_fr`) and outcome words, since a summary has no translation.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain import events as ev
from domain.rules import REGISTRY
from domain.rules.base import ActionSpec
from domain.state import EncounterState, Pending
from projections import conditions
from projections.ranks_seals_words import RESOURCE, seal_spent

__all__ = ["LogLine", "describe", "kind_of", "outcome_words", "pending_text", "principal"]


class LogLine(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the encounter log and the version of the event it came from.

    `hidden` marks a line only the GM may see: a hidden roll, a dispute of one, or a
    change to a resource the GM keeps secret. `outcome` is the check or resolution
    outcome code where there is one (for colouring), else None.
    """

    version: int
    kind: str
    text: str
    text_fr: str
    roll: int | None = None
    faces: list[int] = []
    hidden: bool = False
    actor: str | None = None
    outcome: str | None = None


_OUTCOMES: dict[str, tuple[str, str]] = {
    "success": ("success", "réussite"),
    "failure": ("failure", "échec"),
    "critical_success": ("critical success", "réussite critique"),
    "critical_failure": ("critical failure", "échec critique"),
    "dodged": ("dodged", "esquivé"),
    "hit": ("hit", "touché"),
    "no_defense": ("no defense", "sans défense"),
}
_REASONS_FR: dict[str, str] = {"down": "à terre", "dead": "mort", "fled": "en fuite"}
_RESOURCES_FR: dict[str, str] = {"hp": "PV", RESOURCE: "sceaux de commandement"}
_VERBS: dict[str, tuple[str, str]] = {"attack": ("attacks", "attaque")}


def kind_of(event: ev.Event) -> str:
    """The stored type tag of an event (`die_rolled`, ...)."""
    return str(type(event).__struct_config__.tag)


def describe(event: ev.Event, state: EncounterState, version: int) -> LogLine | None:
    """The log line for `event` (stored at `version`), or None if it says nothing worth
    reading (a limit counter). `state` is the encounter as it stood before the event."""
    found = _describe(event, _Words(state))
    if found is None:
        return None
    text, text_fr, extra = found
    return LogLine(version=version, kind=kind_of(event), text=text, text_fr=text_fr, **extra)


class _Words:
    """Names and labels as the state knows them, with ids as the fallback."""

    def __init__(self, state: EncounterState) -> None:
        self.state = state
        self.rules = REGISTRY.get(state.ledger.ruleset)

    def name(self, who: str | None) -> str:
        if who is None:
            return "someone"
        found = self.state.game.combatants.get(who)
        if found is not None:
            return found.name
        return principal(who)

    def names(self, ids: list[str], fr: bool = False) -> str:
        said = [self.name(i) for i in ids]
        if len(said) <= 1:
            return "".join(said)
        return ", ".join(said[:-1]) + (" et " if fr else " and ") + said[-1]

    def is_combatant(self, who: str | None) -> bool:
        return who is not None and who in self.state.game.combatants

    def spec(self, code: str) -> ActionSpec | None:
        if self.rules is None:
            return None
        return self.rules.actions.get(code) or self.rules.reactions.get(code)

    def label(self, code: str, fr: bool = False) -> str:
        if code == "none":
            return "aucune défense" if fr else "no defense"
        spec = self.spec(code)
        if spec is None:
            return code.replace("_", " ")
        return spec.label_fr if fr else spec.label

    def purpose_fr(self, purpose: str) -> str:
        if purpose == "free roll":
            return "jet libre"
        if purpose.startswith("attack on "):
            return "attaque contre " + purpose.removeprefix("attack on ")
        return self.label(purpose, fr=True) if self.spec(purpose) else purpose

    def secret(self, combatant_id: str, resource: str) -> bool:
        found = self.state.game.combatants.get(combatant_id)
        return found is not None and resource in found.gm_only


Said = tuple[str, str, dict[str, Any]]


def principal(name: str) -> str:
    """How a sender of commands is named in the log: the GM as "GM", a player by name."""
    return "GM" if name == "gm" else name


def outcome_words(code: str, fr: bool = False) -> str:
    """An outcome code in words: "critical_success" -> "critical success"."""
    return _outcome(code, fr)


def _outcome(code: str, fr: bool) -> str:
    words = _OUTCOMES.get(code)
    if words is None:
        return code.replace("_", " ")
    return words[1] if fr else words[0]


def _resource_fr(resource: str) -> str:
    return _RESOURCES_FR.get(resource, resource)


def _describe(event: ev.Event, w: _Words) -> Said | None:
    match event:
        case ev.DieRolled():
            return _rolled(event, w)
        case ev.ResourceChanged():
            return _changed(event, w)
        case ev.ActionDeclared():
            return _declared(event, w)
        case ev.ActionResolved():
            return _resolved(event.actor, event.action, event.outcome, event.summary, w)
        case ev.ReactionAwaited():
            en, fr = _pending(event.attacker, event.target, event.action, event.damage, w)
            return en, fr, {"actor": event.target}
        case ev.ReactionDeclared():
            return _answered(event, w)
        case ev.ReactionResolved():
            said = _resolved(event.actor, event.reaction, event.outcome, event.summary, w)
            if event.damage_taken:
                en, fr, extra = said
                said = en, f"{fr}, subit {event.damage_taken}", extra
            return said
        case _:
            worded = conditions.describe(event, w.name, w.state.ledger.hidden_rolls)
            return worded if worded is not None else _plain(event, w)


def _plain(event: ev.Event, w: _Words) -> Said | None:
    """Events whose line is one sentence with no lookup beyond names."""
    match event:
        case ev.RoundStarted():
            return f"Round {event.round}", f"Round {event.round}", {}
        case ev.TurnStarted():
            who = w.name(event.actor)
            phase = f" ({event.phase})" if event.phase else ""
            return (
                f"It is {who}'s turn{phase}",
                f"C'est au tour de {who}{phase}",
                {"actor": event.actor},
            )
        case ev.TurnEnded():
            who = w.name(event.actor)
            return f"{who} ends their turn", f"{who} termine son tour", {"actor": event.actor}
        case ev.RollDisputed():
            hidden = event.seq in w.state.ledger.hidden_rolls
            return (
                f"Roll {event.seq} disputed by {principal(event.by)}: {event.reason}",
                f"Jet {event.seq} contesté par {principal(event.by)} : {event.reason}",
                {"hidden": hidden},
            )
        case ev.Undone():
            return (
                f"GM undid back to version {event.to_version}: {event.reason}",
                f"Le MJ revient à la version {event.to_version} : {event.reason}",
                {},
            )
        case ev.CombatantDefeated():
            who = w.name(event.combatant_id)
            why_fr = _REASONS_FR.get(event.reason, event.reason)
            return (
                f"{who} is out of the fight ({event.reason})",
                f"{who} est hors de combat ({why_fr})",
                {"actor": event.combatant_id},
            )
        case ev.StatusSet():
            return _status(event, w)
        case _:
            return _lifecycle(event, w)


def _lifecycle(event: ev.Event, w: _Words) -> Said | None:
    match event:
        case ev.EncounterOpened():
            rules = REGISTRY.get(event.ruleset)
            system = rules.name if rules is not None else event.ruleset
            return (
                f"Encounter “{event.name}” opened ({system})",
                f"Rencontre « {event.name} » ouverte ({system})",
                {},
            )
        case ev.SeedCommitted():
            digest = event.commitment[:12]
            if event.hidden:
                return (
                    f"Hidden dice committed: seed {event.seed_id}, sha256 {digest}…",
                    f"Dés cachés engagés : graine {event.seed_id}, sha256 {digest}…",
                    {},
                )
            return (
                f"Dice committed: seed {event.seed_id}, sha256 {digest}…",
                f"Dés engagés : graine {event.seed_id}, sha256 {digest}…",
                {},
            )
        case ev.SeedRevealed():
            return (
                f"Dice seed {event.seed_id} revealed: its rolls can now be checked",
                f"Graine {event.seed_id} révélée : ses jets peuvent être vérifiés",
                {},
            )
        case ev.EntropyAdded():
            return (
                f"{principal(event.by)} mixes entropy into the dice",
                f"{principal(event.by)} ajoute de l'entropie aux dés",
                {},
            )
        case ev.EncounterClosed():
            why = f": {event.reason}" if event.reason else ""
            why_fr = f" : {event.reason}" if event.reason else ""
            return f"The encounter is closed{why}", f"La rencontre est close{why_fr}", {}
        case ev.CombatantAdded():
            return (
                f"{event.name} joins on side {event.side}",
                f"{event.name} rejoint le camp {event.side}",
                {"actor": event.combatant_id},
            )
        case ev.CombatantRemoved():
            who = w.name(event.combatant_id)
            why = f": {event.reason}" if event.reason else ""
            why_fr = f" : {event.reason}" if event.reason else ""
            return (
                f"{who} leaves the encounter{why}",
                f"{who} quitte la rencontre{why_fr}",
                {"actor": event.combatant_id},
            )
        case ev.InitiativeSet():
            ranks = ", ".join(f"{w.name(c)} {event.scores.get(c, '?')}" for c in event.order)
            return f"Initiative: {ranks}", f"Initiative : {ranks}", {}
        case ev.CombatStarted():
            return "The fight begins", "Le combat commence", {}
        case _:
            return None  # limit_used: a counter the board shows through legal actions


def _rolled(event: ev.DieRolled, w: _Words) -> Said:
    who = w.name(event.actor)
    shown = f"{event.expr} → {event.total}"
    if len(event.faces) > 1:
        shown += f" [{', '.join(map(str, event.faces))}]"
    en, fr = f"{who}: {shown}", f"{who} : {shown}"
    check = event.check
    if check is not None:
        en += f" vs {check.threshold}, {_outcome(check.outcome, False)}"
        fr += f" contre {check.threshold}, {_outcome(check.outcome, True)}"
    notes, notes_fr = [event.purpose], [w.purpose_fr(event.purpose)]
    if event.hidden:
        notes.append("hidden")
        notes_fr.append("caché")
    if event.source == "manual":
        notes.append("manual dice")
        notes_fr.append("dés physiques")
    en += f" ({', '.join(notes)})"
    fr += f" ({', '.join(notes_fr)})"
    extra: dict[str, Any] = {
        "roll": event.seq,
        "faces": list(event.faces),
        "hidden": event.hidden,
        "actor": event.actor if w.is_combatant(event.actor) else None,
        "outcome": check.outcome if check is not None else None,
    }
    return en, fr, extra


def _changed(event: ev.ResourceChanged, w: _Words) -> Said:
    who, res, res_fr = w.name(event.combatant_id), event.resource, _resource_fr(event.resource)
    now, now_fr = f"({res} {event.value})", f"({res_fr} {event.value})"
    lost = -event.delta
    if event.by_gm:
        en = f"GM adjusts {who}'s {res} by {event.delta:+d} {now}: {event.reason}"
        fr = f"Le MJ ajuste {res_fr} de {who} de {event.delta:+d} {now_fr} : {event.reason}"
    elif res == RESOURCE and event.rule == "RK-39" and lost > 0:
        en, fr = seal_spent(who, event.value)
    elif res == "hp" and lost > 0:
        en, fr = f"{who} takes {lost} {now}", f"{who} subit {lost} {now_fr}"
    elif res == "hp":
        en = f"{who} regains {event.delta} {res} {now}"
        fr = f"{who} récupère {event.delta} {res_fr} {now_fr}"
    elif lost > 0:
        en, fr = f"{who} loses {lost} {res} {now}", f"{who} perd {lost} {res_fr} {now_fr}"
    else:
        en = f"{who} gains {event.delta} {res} {now}"
        fr = f"{who} gagne {event.delta} {res_fr} {now_fr}"
    hidden = w.secret(event.combatant_id, event.resource)
    return en, fr, {"actor": event.combatant_id, "hidden": hidden}


def _declared(event: ev.ActionDeclared, w: _Words) -> Said:
    who = w.name(event.actor)
    targets = [t for t in [event.target, *event.targets] if t is not None]
    verb = _VERBS.get(event.action)
    if verb is not None:
        en, fr = f"{who} {verb[0]}", f"{who} {verb[1]}"
        if targets:
            en += f" {w.names(targets)}"
            fr += f" {w.names(targets, fr=True)}"
    else:
        en = f"{who} uses {w.label(event.action)}"
        fr = f"{who} utilise {w.label(event.action, fr=True)}"
        if targets:
            en += f" on {w.names(targets)}"
            fr += f" sur {w.names(targets, fr=True)}"
    if event.rank:
        en += f" at rank {event.rank}"
        fr += f" au rang {event.rank}"
    return en, fr, {"actor": event.actor}


def _resolved(actor: str, code: str, outcome: str, summary: str, w: _Words) -> Said:
    fr = f"{w.name(actor)} : {w.label(code, fr=True)}, {_outcome(outcome, True)}"
    return summary, fr, {"actor": actor, "outcome": outcome}


def _answered(event: ev.ReactionDeclared, w: _Words) -> Said:
    who = w.name(event.actor)
    if event.reaction == "none" and event.by_gm:
        en, fr = f"GM: no defense for {who}", f"MJ : pas de défense pour {who}"
    elif event.reaction == "none":
        en, fr = f"{who} takes it without defense", f"{who} encaisse sans se défendre"
    else:
        en = f"{who} answers with {w.label(event.reaction)}"
        fr = f"{who} répond par {w.label(event.reaction, fr=True)}"
    return en, fr, {"actor": event.actor}


def _status(event: ev.StatusSet, w: _Words) -> Said:
    who, key = w.name(event.combatant_id), event.key.replace("_", " ")
    if event.value is None:
        return f"{who}: {key} cleared", f"{who} : {key} retiré", {"actor": event.combatant_id}
    value = event.value if isinstance(event.value, str) else msgspec.json.encode(event.value)
    value = value.decode() if isinstance(value, bytes) else value
    return (
        f"{who}: {key} is now {value}",
        f"{who} : {key} vaut maintenant {value}",
        {"actor": event.combatant_id},
    )


def pending_text(state: EncounterState, pending: Pending) -> tuple[str, str]:
    """The pending attack in words ("Bandit must answer Guard's attack (8 damage)")."""
    w = _Words(state)
    return _pending(pending.attacker, pending.target, pending.action, pending.damage, w)


def _pending(attacker: str, target: str, action: str, damage: int, w: _Words) -> tuple[str, str]:
    by, to = w.name(attacker), w.name(target)
    en = f"{to} must answer {by}'s {w.label(action).lower()}"
    fr = f"{to} doit répondre à {by} ({w.label(action, fr=True)}"
    if damage:
        en += f" ({damage} damage)"
        fr += f", {damage} dégâts"
    return en, fr + ")"
