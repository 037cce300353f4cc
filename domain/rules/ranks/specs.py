"""ranks-d100's actions and reactions: what each is called in English and French, whether
it needs a target or a rank, whether it is free, and the rule that allows it."""

from __future__ import annotations

from collections.abc import Mapping

from domain.terms import ActionSpec

ACTIONS: Mapping[str, ActionSpec] = {
    "attack_physical": ActionSpec(
        "Physical attack", "Attaque Physique", needs_target=True, ranked=True, rule="RK-32"
    ),
    "attack_weapon": ActionSpec(
        "Combat weapon", "Arme de Combat", needs_target=True, ranked=True, rule="RK-33"
    ),
    "attack_magic": ActionSpec(
        "Magic attack", "Attaque Magique", needs_target=True, ranked=True, rule="RK-43"
    ),
    "noble_phantasm": ActionSpec(
        "Noble Phantasm", "Noble Phantasme", needs_target=True, rule="RK-52"
    ),
    "advanced_spell": ActionSpec("Advanced spell", "Sort Avancé", needs_target=True, rule="RK-55"),
    "flee": ActionSpec("Flee", "Fuite", rule="RK-68"),
    # Free for the core: Luck is also rolled in the defense phase, before the dodge
    # (RK-19); actions.luck checks when it may be rolled.
    "luck": ActionSpec("Luck die", "Jet de Chance", free=True, rule="RK-50"),
    # RK-18: activating a skill is free (no die, no complex action); RK-14 its Tours.
    "skill": ActionSpec("Activate a skill", "Activer une Compétence", free=True, rule="RK-16"),
    "transfer_mana": ActionSpec(
        "Give mana", "Donner du Mana", free=True, needs_target=True, rule="RK-30"
    ),
}

REACTIONS: Mapping[str, ActionSpec] = {
    "defend_end": ActionSpec("Endurance reduction", "Action d'Endurance", rule="RK-59"),
    "defend_agi": ActionSpec("Agility reduction", "Action d'Agilité", rule="RK-59"),
    "counter": ActionSpec("Counter-attack", "Contre-Attaque", ranked=True, rule="RK-60"),
    "intercept": ActionSpec("Servant intercepts", "Interception", rule="RK-39"),
    "block_flight": ActionSpec("Block the flight", "Contrer la Fuite", rule="RK-68"),
}
