"""The narrator's core: one worder per event type (`WORDERS`), the shared vocabulary, and
`tell`, which appends one line per meaningful step to a log.

A worder reads an event and the state as it stood *before* it (so a combatant the event
removes still has its name) and says it in English and French from the same facts. The
rule system's own events (`action_resolved`, `reaction_resolved`, roll purposes,
resources, reasons) are worded by its narrator (`NARRATORS`, one module per system).

One line per step: bookkeeping (statuses, limit counters, the end of a turn) says
nothing; a resolution line *absorbs* the rolls and resource changes it reports, which
were appended just before it, so a hit is one line with its numbers and its roll links.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgspec

from domain import events as ev
from domain.evolve import undo_spans
from domain.rules import REGISTRY
from domain.state import EncounterState
from domain.terms import ActionSpec
from projections.words import conditions, deadlines, seals
from projections.words.french import de

__all__ = [
    "LogLine",
    "Narrator",
    "Said",
    "Words",
    "describe",
    "kind_of",
    "outcome_words",
    "principal",
    "tell",
]


class LogLine(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One line of the encounter log and the version of the event it came from (a field
    at its default is left out of the JSON: a line is most of what a board update carries).

    `hidden` marks a line only the GM may see: a hidden roll, a dispute of one, a
    change to a resource the GM keeps secret, or the full words of a veiled step
    (projections/filter.py). `twin` marks the public's words for such a step: its
    outcome and dice, no number computed from a sheet or a resource; the GM does not
    read it. `outcome` is the check or resolution
    outcome code where there is one (for colouring), else None. `roll`/`faces` are a roll
    line's own; `rolls` the roll numbers a resolution line absorbed (each links to its
    audit). `rule` is a rule id shown as a tag, `undone` the reason of an undo that
    reverted this step.
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
    rolls: list[int] = []
    rule: str | None = None
    undone: str | None = None
    resource: str | None = None
    twin: bool = False

    def shown(self, secrets: bool) -> bool:
        """Does a reader see this line? One who reads the GM's secrets reads every line but
        the public twins of veiled steps; any other reader, every line but hidden ones."""
        return not self.twin if secrets else not self.hidden


@dataclass
class Said:
    """What a worder says: both languages, and what the line absorbs from before it."""

    en: str
    fr: str
    actor: str | None = None
    outcome: str | None = None
    hidden: bool = False
    rule: str | None = None
    roll: int | None = None
    faces: list[int] = field(default_factory=list)
    resource: str | None = None
    absorbs: bool = False  # takes the rolls appended just before it
    reports: set[tuple[str, str]] = field(default_factory=set)  # (combatant, resource)


Vocab = Mapping[str, tuple[str, str]]  # code -> (English, French)

_OUTCOMES: dict[str, tuple[str, str]] = {
    "success": ("success", "réussite"),
    "failure": ("failure", "échec"),
    "critical_success": ("critical success", "réussite critique"),
    "critical_failure": ("critical failure", "échec critique"),
    "dodged": ("dodged", "esquivé"),
    "hit": ("hit", "touché"),
    "miss": ("miss", "raté"),
    "no_defense": ("no defense", "sans défense"),
}
_REASONS: dict[str, tuple[str, str]] = {
    "down": ("down", "à terre"),
    "dead": ("dead", "mort"),
    "fled": ("fled", "en fuite"),
    "out of combat": ("out of combat", "hors de combat"),
}
_RESOURCES: dict[str, tuple[str, str]] = {"hp": ("HP", "PV")}
_KINDS: dict[str, str] = {"hp": "hp"}  # every system's health is `hp`
_PURPOSES: dict[str, tuple[str, str]] = {
    "free roll": ("free roll", "jet libre"),
    "initiative": ("initiative", "initiative"),
}
_CHECK_STATS: dict[str, tuple[str, str]] = {}


class Narrator:
    """A rule system's words. The default says the shared vocabulary; each system's
    narrator overrides what it knows (its actions, reactions, purposes, resources)."""

    outcomes: ClassVar[Vocab] = {}
    reasons: ClassVar[Vocab] = {}
    resources: ClassVar[Vocab] = {}
    # How a page draws a resource: "hp" (health), "mana" (a spell pool) or "other"; the
    # page draws from this, never from a resource's name.
    kinds: ClassVar[dict[str, str]] = {}
    purposes: ClassVar[Vocab] = {}
    phases: ClassVar[Vocab] = {}
    name_fr: str = ""
    round_word: tuple[str, str] = ("Round", "Round")

    def turn(self, who: str, phase: str) -> tuple[str, str]:
        """A turn's heading: "Ana's turn", "Tour d'Ana" (with its phase if it has one)."""
        en, fr = f"{who}'s turn", f"Tour {de(who)}"
        p_en, p_fr = self.phase(phase)
        if p_en:
            en, fr = f"{en} ({p_en})", f"{fr} ({p_fr})"
        return en, fr

    def action(self, e: ev.ActionResolved, w: Words) -> Said | None:
        """An action's result, for a rule system whose narrator does not word it."""
        who, label = w.name(e.actor), w.label(e.action)
        en = f"{who}: {label}, {w.outcome(e.outcome)}"
        fr = f"{who} : {w.label(e.action, fr=True)}, {w.outcome(e.outcome, fr=True)}"
        return Said(en, fr, actor=e.actor, outcome=e.outcome, absorbs=True)

    def reaction(self, e: ev.ReactionResolved, w: Words) -> Said | None:
        """An answer's result, for a rule system whose narrator does not word it."""
        who = w.name(e.actor)
        en = f"{who}: {w.label(e.reaction)}, {w.outcome(e.outcome)}"
        fr = f"{who} : {w.label(e.reaction, fr=True)}, {w.outcome(e.outcome, fr=True)}"
        if e.damage_taken:
            en += f", {e.damage_taken} damage"
            fr += f", {e.damage_taken} dégâts"
        return Said(en, fr, actor=e.actor, outcome=e.outcome, absorbs=True)

    def status(self, e: ev.StatusSet, w: Words) -> Said | None:
        """A status change worth a line; bookkeeping (budgets, engagement...) is silent."""
        return None

    def purpose(self, purpose: str, w: Words) -> tuple[str, str]:
        """A roll's purpose in words."""
        found = self.purposes.get(purpose) or _PURPOSES.get(purpose)
        if found is not None:
            return found
        spec = w.spec(purpose)
        if spec is not None:
            return spec.label.lower(), spec.label_fr.lower()
        return purpose, purpose

    def phase(self, phase: str) -> tuple[str, str]:
        """A turn's phase in words; "" for the "round N" a system marks its slots with."""
        if phase.startswith("round "):
            return "", ""
        return self.phases.get(phase, (phase.replace("_", " "), phase.replace("_", " ")))

    def pending(
        self, attacker: str, target: str, action: str, damage: int, w: Words
    ) -> tuple[str, str]:
        """The pending attack in words ("Bandit must answer Guard's attack, 8 damage")."""
        by, to = w.name(attacker), w.name(target)
        en = f"{to} must answer {by}'s {w.label(action).lower()}"
        fr = f"{to} doit répondre à {by} ({w.label(action, fr=True).lower()}"
        if damage:
            en += f" ({damage} damage)"
            fr += f", {damage} points"
        return en, fr + ")"


NARRATORS: dict[str, Narrator] = {}
_DEFAULT = Narrator()


class Words:
    """Names and labels as the state knows them, and the system's narrator."""

    def __init__(self, state: EncounterState) -> None:
        self.state = state
        self.rules = REGISTRY.get(state.ledger.ruleset)
        self.narrator = NARRATORS.get(state.ledger.ruleset, _DEFAULT)

    def name(self, who: str | None) -> str:
        if not who:
            return "?"
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

    def outcome(self, code: str, fr: bool = False) -> str:
        words = self.narrator.outcomes.get(code) or _OUTCOMES.get(code)
        if words is None:
            return code.replace("_", " ")
        return words[1] if fr else words[0]

    def reason(self, code: str, fr: bool = False) -> str:
        words = self.narrator.reasons.get(code) or _REASONS.get(code)
        if words is None:
            return code.replace("_", " ")
        return words[1] if fr else words[0]

    def res(self, resource: str, fr: bool = False) -> str:
        words = self.narrator.resources.get(resource) or _RESOURCES.get(resource)
        if words is None:
            return resource.replace("_", " ")
        return words[1] if fr else words[0]

    def kind(self, resource: str) -> str:
        """What `resource` is in this rule system: "hp", "mana" or "other"."""
        return self.narrator.kinds.get(resource) or _KINDS.get(resource, "other")

    def secret(self, combatant_id: str, resource: str) -> bool:
        found = self.state.game.combatants.get(combatant_id)
        return found is not None and resource in found.gm_only

    def hp_change(self, cid: str, before: int | None, after: int | None) -> tuple[str, str]:
        """ ", HP 26 -> 0" in both languages, or nothing if unknown or GM-only."""
        if before is None or after is None or self.secret(cid, "hp"):
            return "", ""
        return (
            f", {self.res('hp')} {before} -> {after}",
            f", {self.res('hp', True)} {before} -> {after}",
        )


def principal(name: str) -> str:
    """How a sender of commands is named in the log: the GM as "GM", a player by name."""
    return "GM" if name == "gm" else name


def sender(name: str, w: Words, fr: bool = False) -> str:
    """A sender as the table knows it: "GM", or a player by their combatants' names
    ("player:c1,c3" -> "Ayla, Brun"), never by ids."""
    if name.startswith("player:"):
        # A combatant whose arrival was undone has no name left: the player is "a player".
        ids = [c for c in name[len("player:") :].split(",") if c and w.is_combatant(c)]
        return w.names(ids, fr=fr) if ids else ("un joueur" if fr else "a player")
    return ("le MJ" if fr else "GM") if name == "gm" else principal(name)


def outcome_words(code: str, fr: bool = False) -> str:
    """An outcome code in words: "critical_success" -> "critical success"."""
    words = _OUTCOMES.get(code)
    if words is None:
        return code.replace("_", " ")
    return words[1] if fr else words[0]


def kind_of(event: ev.Event) -> str:
    """The stored type tag of an event (`die_rolled`, ...)."""
    return str(type(event).__struct_config__.tag)


# --- the worders ------------------------------------------------------------------------

Worder = Callable[[Any, Words], Said | None]


def _silent(event: Any, w: Words) -> Said | None:
    return None


def _opened(e: ev.EncounterOpened, w: Words) -> Said:
    rules = REGISTRY.get(e.ruleset)
    narrator = NARRATORS.get(e.ruleset, _DEFAULT)
    system = rules.name if rules is not None else e.ruleset
    return Said(
        f"Encounter “{e.name}” opened ({system})",
        f"Rencontre « {e.name} » ouverte ({narrator.name_fr or system})",
    )


def _committed(e: ev.SeedCommitted, w: Words) -> Said:
    digest = e.commitment[:12]
    if e.hidden:
        return Said(
            f"Hidden dice committed: sha256 {digest}…", f"Dés cachés engagés : sha256 {digest}…"
        )
    return Said(f"Dice committed: sha256 {digest}…", f"Dés engagés : sha256 {digest}…")


def _revealed(e: ev.SeedRevealed, w: Words) -> Said:
    return Said(
        "Dice seed revealed: every roll can now be checked",
        "Graine des dés révélée : chaque jet peut être vérifié",
    )


def _entropy(e: ev.EntropyAdded, w: Words) -> Said:
    # A player by their combatants' names, never "player:c2"; a line starts upper-case.
    by, mj = (s[:1].upper() + s[1:] for s in (sender(e.by, w), sender(e.by, w, fr=True)))
    return Said(f"{by} mixes entropy into the dice", f"{mj} ajoute de l'entropie aux dés")


def _closed(e: ev.EncounterClosed, w: Words) -> Said:
    why = f": {e.reason}" if e.reason else ""
    why_fr = f" : {e.reason}" if e.reason else ""
    return Said(f"The encounter is closed{why}", f"La rencontre est close{why_fr}")


def _added(e: ev.CombatantAdded, w: Words) -> Said:
    return Said(
        f"{e.name} joins side {e.side}", f"{e.name} rejoint le camp {e.side}", actor=e.combatant_id
    )


def _removed(e: ev.CombatantRemoved, w: Words) -> Said:
    who = w.name(e.combatant_id)
    why = f": {e.reason}" if e.reason else ""
    why_fr = f" : {e.reason}" if e.reason else ""
    return Said(
        f"{who} leaves the encounter{why}",
        f"{who} quitte la rencontre{why_fr}",
        actor=e.combatant_id,
    )


def _defeated(e: ev.CombatantDefeated, w: Words) -> Said:
    who = w.name(e.combatant_id)
    return Said(
        f"{who} is out of the fight: {w.reason(e.reason)}",
        f"{who} est hors de combat : {w.reason(e.reason, fr=True)}",
        actor=e.combatant_id,
        rule=e.rule,
    )


def _initiative(e: ev.InitiativeSet, w: Words) -> Said:
    ranks = ", ".join(f"{w.name(c)} {e.scores.get(c, '?')}" for c in e.order)
    return Said(f"Initiative: {ranks}", f"Initiative : {ranks}", absorbs=True)


def _started(e: ev.CombatStarted, w: Words) -> Said:
    return Said("The fight begins", "Le combat commence")


def _round(e: ev.RoundStarted, w: Words) -> Said:
    en, fr = w.narrator.round_word
    return Said(f"{en} {e.round}", f"{fr} {e.round}")


def _turn(e: ev.TurnStarted, w: Words) -> Said:
    en, fr = w.narrator.turn(w.name(e.actor), e.phase)
    return Said(en, fr, actor=e.actor)


def _disputed(e: ev.RollDisputed, w: Words) -> Said:
    hidden = e.seq in w.state.ledger.hidden_rolls
    by, by_fr = sender(e.by, w), sender(e.by, w, fr=True)
    return Said(
        f"Roll {e.seq} disputed by {by}: {e.reason}",
        f"Jet {e.seq} contesté par {by_fr} : {e.reason}",
        hidden=hidden,
    )


def _undone(e: ev.Undone, w: Words) -> Said:
    return Said(
        f"GM undid the steps after version {e.to_version}: {e.reason}",
        f"Le MJ annule les étapes après la version {e.to_version} : {e.reason}",
    )


def _reminded(e: ev.DeadlineReminded, w: Words) -> Said:
    en, fr = deadlines.reminded(e, w.name(e.who))
    return Said(en, fr, actor=e.who)


def _passed(e: ev.DeadlinePassed, w: Words) -> Said:
    en, fr = deadlines.passed(e, w.name(e.who))
    return Said(en, fr, actor=e.who)


def _rolled(e: ev.DieRolled, w: Words) -> Said:
    who = w.name(e.actor or "gm")
    who_fr = "Le MJ" if (e.actor or "gm") == "gm" else who
    faces = ", ".join(map(str, e.faces))
    shown = f"{e.total}" if len(e.faces) == 1 and e.total == e.faces[0] else f"{e.total} ({faces})"
    p_en, p_fr = w.narrator.purpose(e.purpose, w)
    en = f"{who} rolls {e.expr} for {p_en}: {shown}"
    fr = f"{who_fr} lance {e.expr} ({p_fr}) : {shown}"
    check = e.check
    if check is not None:
        sign = "≤" if check.under else "≥"
        en += f" (needs {sign} {check.threshold}), {w.outcome(check.outcome)}"
        fr += f" (il faut {sign} {check.threshold}), {w.outcome(check.outcome, fr=True)}"
    if e.hidden:
        en, fr = en + " [hidden]", fr + " [caché]"
    if e.source == "manual":
        en, fr = en + " [table dice]", fr + " [dés physiques]"
    return Said(
        en,
        fr,
        roll=e.seq,
        faces=list(e.faces),
        hidden=e.hidden,
        actor=e.actor if w.is_combatant(e.actor) else None,
        outcome=check.outcome if check is not None else None,
        rule=check.rule if check is not None else None,
    )


def _changed(e: ev.ResourceChanged, w: Words) -> Said:
    cid = e.combatant_id
    who, res, res_fr = w.name(cid), w.res(e.resource), w.res(e.resource, fr=True)
    before = e.value - e.delta
    secret = w.secret(cid, e.resource)
    if e.by_gm:
        en = f"GM sets {who}'s {res}: {before} -> {e.value} ({e.reason})"
        fr = f"Le MJ fixe {res_fr} {de(who)} : {before} -> {e.value} ({e.reason})"
    elif e.resource == seals.RESOURCE and e.rule == "RK-39" and e.delta < 0:
        en, fr = seals.seal_spent(who, e.value)
    elif secret:  # the GM's line: the change itself is in the public line that caused it
        en, fr = (
            f"{who}'s {res}: {before} -> {e.value}",
            f"{res_fr} {de(who)} : {before} -> {e.value}",
        )
    elif e.delta < 0:
        en = f"{who} loses {-e.delta} {res}, {res} {before} -> {e.value}"
        fr = f"{who} perd {-e.delta} {res_fr}, {res_fr} {before} -> {e.value}"
    else:
        en = f"{who} gains {e.delta} {res}, {res} {before} -> {e.value}"
        fr = f"{who} gagne {e.delta} {res_fr}, {res_fr} {before} -> {e.value}"
    return Said(en, fr, actor=cid, hidden=secret, rule=e.rule, resource=e.resource)


def declared(e: ev.ActionDeclared, w: Words) -> Said:
    """A declaration in words; the log is silent on it, since its resolution follows."""
    who = w.name(e.actor)
    targets = [t for t in [e.target, *e.targets] if t is not None]
    en = f"{who} declares {w.label(e.action).lower()}"
    fr = f"{who} déclare : {w.label(e.action, fr=True).lower()}"
    if targets:
        en += f" against {w.names(targets)}"
        fr += f" contre {w.names(targets, fr=True)}"
    if e.rank:
        en, fr = en + f" at rank {e.rank}", fr + f" au rang {e.rank}"
    return Said(en, fr, actor=e.actor)


def declaration(event: ev.Event, state: EncounterState) -> tuple[str, str] | None:
    """An action's or answer's declaration in words, English and French (the audit names
    what a roll was for), though the log is silent on it."""
    w = Words(state)
    if isinstance(event, ev.ActionDeclared):
        said = declared(event, w)
        return said.en, said.fr
    if isinstance(event, ev.ReactionDeclared):
        who = w.name(event.actor)
        return (f"{who} answers with {w.label(event.reaction).lower()}",
                f"{who} répond : {w.label(event.reaction, fr=True).lower()}")  # fmt: skip
    return None


def purpose_words(purpose: str, state: EncounterState) -> tuple[str, str]:
    """A roll's purpose in English and French, as its rule system words it."""
    w = Words(state)
    return w.narrator.purpose(purpose, w)


def _answered(e: ev.ReactionDeclared, w: Words) -> Said | None:
    # The answer's line is its resolution, which follows at once and says it.
    return None


def _awaited(e: ev.ReactionAwaited, w: Words) -> Said | None:
    return None  # the board shows it as pending; the attack's line already said the hit


def _action(e: ev.ActionResolved, w: Words) -> Said | None:
    return w.narrator.action(e, w)


def _reaction(e: ev.ReactionResolved, w: Words) -> Said | None:
    return w.narrator.reaction(e, w)


def _status(e: ev.StatusSet, w: Words) -> Said | None:
    return w.narrator.status(e, w)


def _console(e: ev.Event, w: Words) -> Said | None:
    """Conditions, an answered dispute, a fight continued (projections.words.conditions)."""
    said = conditions.describe(e, w.name, w.state.ledger.hidden_rolls)
    if said is None:
        return None
    en, fr, extra = said
    return Said(en, fr, actor=extra.get("actor"), hidden=bool(extra.get("hidden", False)))


WORDERS: dict[type[ev.Event], Worder] = {
    ev.EncounterOpened: _opened,
    ev.SeedCommitted: _committed,
    ev.EntropyAdded: _entropy,
    ev.SeedRevealed: _revealed,
    ev.EncounterClosed: _closed,
    ev.CombatantAdded: _added,
    ev.CombatantRemoved: _removed,
    ev.CombatantDefeated: _defeated,
    ev.ResourceChanged: _changed,
    ev.StatusSet: _status,
    ev.LimitUsed: _silent,  # a counter the board shows through legal actions
    ev.DieRolled: _rolled,
    ev.RollDisputed: _disputed,
    ev.InitiativeSet: _initiative,
    ev.CombatStarted: _started,
    ev.RoundStarted: _round,
    ev.TurnStarted: _turn,
    ev.TurnEnded: _silent,  # the next turn's heading says it
    ev.ActionDeclared: _silent,  # its resolution follows at once and says it all
    ev.ActionResolved: _action,
    ev.ReactionAwaited: _awaited,
    ev.ReactionDeclared: _answered,
    ev.ReactionResolved: _reaction,
    ev.Undone: _undone,
    ev.ConditionApplied: _console,
    ev.ConditionExpired: _console,
    ev.ConditionRemoved: _console,
    ev.DisputeAnswered: _console,
    ev.CombatContinued: _console,
    ev.DeadlineReminded: _reminded,
    ev.DeadlinePassed: _passed,
}


def _said(event: ev.Event, state: EncounterState) -> Said | None:
    worder = WORDERS.get(type(event))
    return worder(event, Words(state)) if worder is not None else None


def _line(said: Said, event: ev.Event, version: int) -> LogLine:
    return LogLine(
        version=version,
        kind=kind_of(event),
        text=said.en,
        text_fr=said.fr,
        roll=said.roll,
        faces=said.faces,
        hidden=said.hidden,
        actor=said.actor,
        outcome=said.outcome,
        rule=said.rule,
        resource=said.resource,
    )


def describe(event: ev.Event, state: EncounterState, version: int) -> LogLine | None:
    """The line of `event` on its own (no absorbing): None if it says nothing worth
    reading. `state` is the encounter as it stood before the event."""
    said = _said(event, state)
    return None if said is None else _line(said, event, version)


# Lines a resolution may take over: rolls and changes appended in the same step.
_TAKEN = frozenset({"die_rolled", "resource_changed", "combatant_defeated"})


def _takeable(line: LogLine) -> bool:
    # A free roll (no combatant rolled it) is its own step, never part of the next one.
    # A public twin stays where it is, and lets the GM's line take what is before it.
    free = line.kind == "die_rolled" and line.actor is None
    return (line.kind in _TAKEN or line.twin) and line.undone is None and not free


_DIGIT = re.compile(r"\d")


def _public_said(event: ev.Event, w: Words, said: Said) -> Said | None:
    """What a non-GM reads of a veiled event: `said` itself when its words hold no
    number; else words from the facts anyone may know (who, what, the outcome, the
    dice), or None: then only the GM reads of it."""
    if not _DIGIT.search(said.en + said.fr) and not isinstance(event, ev.DieRolled):
        return said
    if isinstance(event, ev.RoundStarted | ev.Undone):
        return said  # ordinals only
    if isinstance(event, ev.DieRolled):
        who = w.name(event.actor or "gm")
        who_fr = "Le MJ" if (event.actor or "gm") == "gm" else who
        faces = ", ".join(map(str, event.faces))
        shown = f"{event.total}" if event.faces == [event.total] else f"{event.total} ({faces})"
        p_en, p_fr = w.narrator.purpose(event.purpose, w)
        if _DIGIT.search(p_en + p_fr):
            p_en, p_fr = "a roll", "un jet"
        en, fr = (
            f"{who} rolls {event.expr} for {p_en}: {shown}",
            f"{who_fr} lance {event.expr} ({p_fr}) : {shown}",
        )
        if event.check is not None:
            en += f", {w.outcome(event.check.outcome)}"
            fr += f", {w.outcome(event.check.outcome, fr=True)}"
        return Said(en, fr, roll=event.seq, faces=list(event.faces), actor=said.actor,
                    outcome=said.outcome, rule=said.rule)  # fmt: skip
    if isinstance(event, ev.ActionResolved):
        who = w.name(event.actor)
        target = event.detail.get("target")
        on = f" on {w.name(str(target))}" if w.is_combatant(target) else ""
        on_fr = f" sur {w.name(str(target))}" if w.is_combatant(target) else ""
        return Said(
            f"{who}: {w.label(event.action)}{on}, {w.outcome(event.outcome)}",
            f"{who} : {w.label(event.action, fr=True)}{on_fr}, {w.outcome(event.outcome, fr=True)}",
            actor=said.actor, outcome=said.outcome, rule=said.rule,
        )  # fmt: skip
    if isinstance(event, ev.ReactionResolved):
        who = w.name(event.actor)
        label, label_fr = w.label(event.reaction), w.label(event.reaction, fr=True)
        out, out_fr = w.outcome(event.outcome), w.outcome(event.outcome, fr=True)
        return Said(
            f"{who}: {label}" + (f", {out}" if out != label else ""),
            f"{who} : {label_fr}" + (f", {out_fr}" if out_fr != label_fr else ""),
            actor=said.actor,
            outcome=said.outcome,
            rule=said.rule,
        )
    if isinstance(event, ev.InitiativeSet):
        ranks = ", ".join(w.name(c) for c in event.order)
        return Said(f"Initiative: {ranks}", f"Initiative : {ranks}")
    return None


def tell(
    lines: list[LogLine],
    event: ev.Event,
    state: EncounterState,
    version: int,
    veiled: bool = False,
) -> None:
    """Append `event`'s line to `lines` (the log so far; `state` as before the event).

    A `veiled` event (projections/filter.py) is told twice: the GM's line, hidden, and
    its public twin, worded from what a non-GM may know (`_public_said`).

    A line that absorbs takes over the rolls and reported resource changes just before
    it (stopping at any other line), and goes before the defeats that the same step
    wrote, so "hits ..., HP 3 -> 0" comes before "is out of the fight". An undo strikes
    the steps it reverted.
    """
    said = _said(event, state)
    if isinstance(event, ev.Undone):
        # Only the steps it reverts are struck (a dispute or a free roll after them is
        # not); the steps an earlier undo reverted that it brings back are struck no more.
        spans, restored = undo_spans(state.ledger, event.to_version)
        reverted = False
        for i, old in enumerate(lines):
            if old.undone is None and any(a <= old.version <= b for a, b in spans):
                lines[i] = msgspec.structs.replace(old, undone=event.reason)
                reverted = reverted or not old.hidden
            elif old.undone is not None and any(a <= old.version <= b for a, b in restored):
                lines[i] = msgspec.structs.replace(old, undone=None)
        if said is not None and not reverted:
            # An undo of steps no one else read is the GM's alone to read of.
            said.hidden = True
    if said is None:
        return
    if veiled and not said.hidden:
        twin = _public_said(event, Words(state), said)
        said.hidden = twin is not said
        if twin is not said and twin is not None:
            lines.append(msgspec.structs.replace(_line(twin, event, version), twin=True))
    line = _line(said, event, version)
    if not said.absorbs:
        lines.append(line)
        return
    start = len(lines)
    while start > 0 and _takeable(lines[start - 1]):
        start -= 1
    rolls: list[int] = []
    after: list[LogLine] = []
    kept: list[LogLine] = []
    rule = line.rule
    for old in lines[start:]:
        if old.twin:
            kept.append(old)
        elif old.kind == "die_rolled" and (line.hidden or not old.hidden) and old.roll is not None:
            rolls.append(old.roll)
            if line.hidden and not old.hidden:  # the public keeps the roll the GM's line took
                kept.append(msgspec.structs.replace(old, twin=True))
        elif (
            old.kind == "resource_changed" and (old.actor or "", old.resource or "") in said.reports
        ):
            rule = rule or old.rule  # the damage rule (NA-26...) tags the line that says it
        elif old.kind == "combatant_defeated":
            after.append(old)
        else:
            kept.append(old)
    del lines[start:]
    lines += kept
    lines.append(msgspec.structs.replace(line, rolls=rolls, rule=rule))
    lines += after
