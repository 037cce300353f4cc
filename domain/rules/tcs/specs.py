"""d100-tcs's actions: what each is called in English and French, whether it needs a
target, and the rule that allows it (what each costs is in tables.py, COSTS)."""

from __future__ import annotations

from collections.abc import Mapping

from domain.terms import ActionSpec

ACTIONS: Mapping[str, ActionSpec] = {
    "attack": ActionSpec("Attack (technique)", "Attaque (TCS)", needs_target=True,
                         rule="TC-8"),
    "cast": ActionSpec("Cast a spell", "Lancer un sort", rule="TC-9"),
    "use_item": ActionSpec("Use an item", "Utiliser un objet", rule="TC-19"),
    "drink_potion": ActionSpec("Drink a potion", "Boire une potion", rule="TC-20"),
    "move": ActionSpec("Move 3 m", "Se déplacer de 3 m", rule="TC-21"),
    "stand_up": ActionSpec("Stand up", "Se relever", rule="TC-25"),
    "focus": ActionSpec("Focus (+10 next TCS)", "Concentration", rule="TC-26"),
    "disengage": ActionSpec("Disengage", "Rompre le combat", rule="TC-27"),
    "flee": ActionSpec("Flee", "Fuir", rule="TC-30"),
    "pursue": ActionSpec("Pursue", "Poursuivre", needs_target=True, rule="TC-34"),
    "rejoin": ActionSpec("Rejoin the melee", "Revenir dans la mêlée", rule="TC-34"),
    "let_flee": ActionSpec("Let them flee", "Laisser fuir", rule="TC-35"),
}  # fmt: skip
