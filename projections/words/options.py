"""What each option of an act or react is called on the pages, in English and French
(the option tables themselves are the rule systems': domain/rules/*/options.py)."""

from __future__ import annotations

__all__ = ["OPTION_WORDS"]

# option key -> (English, French): short labels for a form field.
OPTION_WORDS: dict[str, tuple[str, str]] = {
    "action": ("attack", "attaque"),
    "activate": ("half-rank on", "demi-rang activé"),
    "aim": ("aim at", "viser"),
    "amount": ("amount", "quantité"),
    "at": ("strike", "frapper"),
    "command_seal": ("Command Seal", "Sceau de Commandement"),
    "deactivate": ("half-rank off", "demi-rang désactivé"),
    "distance": ("distance (m)", "distance (m)"),
    "encircled": ("encircled", "encerclé"),
    "fast": ("fast", "rapide"),
    "from_back": ("from behind", "de dos"),
    "item": ("item", "objet"),
    "name": ("name", "nom"),
    "path_clear": ("path clear", "voie libre"),
    "rank": ("rank", "rang"),
    "reduce": ("reduction", "réduction"),
    "situational": ("situation", "situation"),
    "sneak": ("unseen", "à couvert"),
    "spell": ("spell", "sort"),
    "sprint": ("sprint (m)", "course (m)"),
    "tcs": ("technique", "technique"),
    "then": ("then", "puis"),
    "weapon": ("weapon", "arme"),
}
