"""d20-na's actions and reactions: what each is called in English and French, whether it
needs a target, and the rule that allows it."""

from __future__ import annotations

from collections.abc import Mapping

from domain.terms import ActionSpec

ACTIONS: Mapping[str, ActionSpec] = {
    "attack": ActionSpec("Melee attack", "Attaque au corps-à-corps", needs_target=True,
                         rule="NA-11"),
    "shoot": ActionSpec("Shoot", "Tir", needs_target=True, rule="NA-29"),
    "throw": ActionSpec("Throw", "Lancer", needs_target=True, rule="NA-35"),
    "touch": ActionSpec("Touch", "Toucher", needs_target=True, rule="NA-6"),
    "grapple": ActionSpec("Grapple", "Immobiliser", needs_target=True, rule="NA-6"),
    "trip": ActionSpec("Trip", "Faire chuter", needs_target=True, rule="NA-6"),
    "charge": ActionSpec("Charge", "Charger", needs_target=True, rule="NA-8"),
    "draw": ActionSpec("Draw a weapon", "Dégainer", rule="NA-7"),
    "disengage": ActionSpec("Disengage", "Se désengager", rule="NA-7"),
    "move": ActionSpec("Move", "Se déplacer", rule="NA-7"),
    "pick_up": ActionSpec("Pick up", "Ramasser un objet", rule="NA-7"),
    "reload": ActionSpec("Reload", "Recharger", rule="NA-7"),
    "pass": ActionSpec("Pass", "Passer", rule="NA-AMB-3"),
}  # fmt: skip

REACTIONS: Mapping[str, ActionSpec] = {
    "parry": ActionSpec("Parry", "Parer", rule="NA-9"),
    "dodge": ActionSpec("Dodge", "Esquiver", rule="NA-10"),
}
