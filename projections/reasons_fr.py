"""Why an action is not offered now, in French: the rule systems' `legal` reasons and
refusal messages are English sentences, translated here by pattern, with a French
fallback that keeps the rule id, so no English reaches a French page."""

from __future__ import annotations

import re

__all__ = ["reason_fr"]

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), fr)
    for p, fr in (
        (r"^not your turn$", "ce n'est pas votre tour"),
        (
            r"^an Elemental Magic user's counter follows rules the GM settles$",
            "la Contre-Attaque d'un utilisateur de Magie Élémentaire suit des règles que le MJ"
            " tranche",
        ),
        (
            r"^only the GM grants a situational bonus or malus$",
            "seul le MJ accorde un bonus ou un malus de situation",
        ),
        (r"^waiting for a defense$", "une défense est attendue"),
        (r"^it is not (.+)'s turn$", r"ce n'est pas le tour de \1"),
        (r"^not your attack phase$", "ce n'est pas votre phase d'attaque"),
        (r"^combat has not started$", "le combat n'a pas commencé"),
        (r"^no target$", "aucune cible"),
        (r"^no opponent left$", "plus d'adversaire"),
        (r"^once per session$", "une fois par session"),
        (r"^already attacked$", "a déjà attaqué"),
        (
            r"^already made this phase's complex action$",
            "a déjà fait l'action complexe de cette phase",
        ),
        (
            r"^(.+) must first answer the pending attack$",
            r"\1 doit d'abord répondre à l'attaque en attente",
        ),
        (r"^out of the fight \((.+)\)$", "hors de combat"),
        (r"^fleeing this Tour$", "en fuite ce Tour"),
        (r"^not enough mana$", "pas assez de PM"),
        (r"^Luck comes just before your own roll$", "la Chance se lance juste avant votre jet"),
        (r"^a Luck result is waiting$", "un résultat de Chance attend"),
        (r"^no Servant left to intercept$", "plus de Servant pour intercepter"),
        (r"^reload first$", "rechargez d'abord"),
        (r"^nothing to reload$", "rien à recharger"),
        (r"^cannot charge while engaged in melee$", "impossible de charger en mêlée"),
        (
            r"^a charge ends in a melee attack$",
            "une charge se termine par une attaque au corps-à-corps",
        ),
        (
            r"^a charge must be followed by its attack$",
            "une charge doit être suivie de son attaque",
        ),
        (r"^passing is off in this encounter$", "passer est désactivé dans cette rencontre"),
        (r"^no (\w+) weapon on the sheet$", "aucune arme de ce genre sur la fiche"),
        (r"^a shooting weapon cannot strike in melee$", "une arme de tir ne frappe pas en mêlée"),
        (r"^(.+) is not a (\w+) weapon$", r"\1 ne convient pas à cette action"),
        (
            r"^this attack cannot be parried or dodged$",
            "cette attaque ne peut être ni parée ni esquivée",
        ),
        (r"^a ranged attack cannot be dodged$", "une attaque à distance ne s'esquive pas"),
        (
            r"^a projectile can only be parried with a shield$",
            "un projectile ne se pare qu'au bouclier",
        ),
        (r"^no more than (\d+) (\w+)s per round$", r"pas plus de \1 par round"),
        (
            r"^a (\w+) now costs (\d+) half-action\(s\); (\d+) left this round$",
            r"coûte maintenant \2 demi-action(s) ; il en reste \3 ce round",
        ),
        (
            r"^(.+) needs (\d+) half-action\(s\), has (\d+) left$",
            r"\1 a besoin de \2 demi-action(s), il en reste \3",
        ),
        (
            r"^(.+) needs (\d+) half-action\(s\) for (.+) but has (\d+) left this round$",
            r"\1 a besoin de \2 demi-action(s), il en reste \4 ce round",
        ),
        (
            r"^a slot is one action or two half-actions: end the turn first$",
            "un créneau, c'est une action ou deux demi-actions : finissez d'abord le tour",
        ),
        (r"^the 1v1 resolver is melee only$", "le résolveur 1 contre 1 ne joue que la mêlée"),
        (r"^this turn's actions are declared$", "les actions de ce tour sont déclarées"),
        (
            r"^flight is an advanced rule, off here$",
            "la fuite est une règle avancée, désactivée ici",
        ),
        (
            r"^a fleer is pursued or shot, not struck$",
            "un fuyard se poursuit ou se vise, il ne se frappe pas",
        ),
        (r"^no drinking while engaged in melee$", "on ne boit pas au contact, en mêlée"),
        (r"^no foe is fleeing$", "aucun adversaire ne fuit"),
        (r"^(.+) is prone: stand up or flee$", r"\1 est à terre : se relever ou fuir"),
        (r"^(.+) has no weapon$", r"\1 n'a pas d'arme"),
        (r"^(.+) knows no spell( called .+)?$", r"\1 ne connaît pas ce sort"),
        (r"^(.+) has no potion( '.+')? left$", r"\1 n'a plus de potion"),
        (r"^(.+) carries (no '.+'|nothing to use)$", r"\1 n'a pas cet objet"),
        (r"^knows no Noble Phantasm$", "ne connaît aucun Noble Phantasme"),
        (r"^knows no advanced spell$", "ne connaît aucun Sort Avancé"),
        (r"^(.+) needs (\d+) NRJ for (.+), has (\d+)$", r"\1 a besoin de \2 NRJ, en a \4"),
        (r"^(\w+) needs (\d+) action\(s\), (\d+) left$", r"il faut \2 action(s), il en reste \3"),
        (
            r"^the target must be a foe still in the fight$",
            "la cible doit être un adversaire encore en lice",
        ),
    )
]


_USED = re.compile(r"^(.+) has already used .+ \((\d+) per (\w+)\)$")
_SCOPES = {"turn": "tour", "round": "round", "session": "session", "campaign": "Guerre"}


def reason_fr(reason: str, rule: str | None = None) -> str:
    """`reason` in French; a sentence no pattern knows becomes "not possible now" with its
    rule, rather than English on a French page."""
    if not reason:
        return ""
    used = _USED.match(reason)
    if used is not None:
        scope = _SCOPES.get(used[3], used[3])
        return f"{used[1]} a déjà atteint sa limite ({used[2]} par {scope})"
    for pattern, fr in _PATTERNS:
        if pattern.match(reason):
            return pattern.sub(fr, reason)
    return f"impossible pour l'instant ({rule})" if rule else "impossible pour l'instant"
