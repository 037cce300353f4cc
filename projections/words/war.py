"""The War's narrator: each War event in English and French, told from the War as it
stood before it (a recovery says what it gave, not only the new pool). The War page
shows these lines (server/static/pages/war.js) instead of wording the events itself."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from domain import campaign as war

__all__ = ["hints", "tell", "told"]


def _name(state: war.CampaignState, cid: str) -> str:
    char = state.characters.get(cid)
    return char.name if char is not None else cid


def tell(state: war.CampaignState, event: war.CampaignEvent) -> tuple[str, str] | None:
    """(English, French) of `event`, `state` being the War before it; None if it has no line."""

    def name(cid: str) -> str:
        return _name(state, cid)

    match event:
        case war.WarOpened():
            return f"The War {event.name} opens", f"La Guerre {event.name} s'ouvre"
        case war.CharacterEnrolled():
            kind = str(event.sheet.get("kind", "")).capitalize()
            return (
                f"{event.name} joins the War ({kind})",
                f"{event.name} rejoint la Guerre ({kind})",
            )
        case war.DayStarted():
            return f"Day {event.day}", f"Jour {event.day}"
        case war.PoolsRecovered():
            char = state.characters.get(event.character_id)
            hp = event.hp - char.resources["hp"] if char else event.hp
            mana = event.mana - char.resources["mana"] if char else event.mana
            who = name(event.character_id)
            if not hp and not mana:
                return f"{who}: already full", f"{who} : déjà au maximum"
            return f"{who} +{hp} HP, +{mana} mana", f"{who} +{hp} PV, +{mana} PM"
        case war.UpkeepPaid():
            master, servant = name(event.master_id), name(event.servant_id)
            return (
                f"{master} pays {event.amount} mana of upkeep for {servant} ({event.rule})",
                f"{master} paie {event.amount} PM d'entretien pour {servant} ({event.rule})",
            )
        case war.SidelinedForTheDay():
            who = name(event.character_id)
            return (
                f"{who} sits this Day out (0 mana, {event.rule})",
                f"{who} ne joue pas ce Jour (0 PM, {event.rule})",
            )
        case war.ManaTransferred():
            giver, receiver = name(event.giver), name(event.receiver)
            return (
                f"{giver} gives {event.amount} mana to {receiver} (RK-30)",
                f"{giver} donne {event.amount} PM à {receiver} (RK-30)",
            )
        case war.CharacterSettled():
            who = name(event.character_id)
            return (
                f"{who} comes back from the encounter: HP {event.hp}, mana {event.mana}, "
                f"Luck {event.luck}",
                f"{who} revient de la rencontre : PV {event.hp}, PM {event.mana}, "
                f"Chance {event.luck}",
            )
    return None


def told(state: war.CampaignState, events: Iterable[war.CampaignEvent]) -> list[dict[str, Any]]:
    """The lines of `events` appended after `state` ({type, text, text_fr}); `state` is
    not changed (the narrator folds a copy)."""
    at = copy.deepcopy(state)
    out: list[dict[str, Any]] = []
    for event in events:
        said = tell(at, event)
        if said is not None:
            kind = str(event.__struct_config__.tag)
            out.append({"type": kind, "text": said[0], "text_fr": said[1]})
        war.evolve(at, event)
    return out


def hints(state: war.CampaignState) -> dict[str, str]:
    """What the War page says under its New Day and mana transfer forms, in English and
    French (`*_fr`), from the rules' numbers and this War's settings (RK-AMB-8's order)."""
    n, kept = war.DAILY_RECOVERY, war.MANA_KEPT
    capped = bool(war.setting(state, "recovery.cap_at_max"))
    steps = {
        "recover": (
            f"recovery +{n} HP and mana" + (" (capped at the maximum)" if capped else ""),
            f"récupération +{n} PV et mana" + (" (plafonnée au maximum)" if capped else ""),
        ),
        "upkeep": ("Servants' upkeep", "entretien des Servants"),
    }
    said = [steps[k] for k in war.setting(state, "day_start.order") if k in steps]
    en = ", then ".join(e for e, _ in said)
    fr = ", puis ".join(f for _, f in said)
    rules = "(RK-27..RK-29, RK-AMB-8)."
    return {
        "new_day": f"{en[:1].upper()}{en[1:]} {rules}",
        "new_day_fr": f"{fr[:1].upper()}{fr[1:]} {rules}",
        "transfer": "Only between a Master and its Servant, 1:1; "
        f"the giver keeps at least {kept} (RK-30).",
        "transfer_fr": "Seulement entre un Maître et son Servant, 1 pour 1 ; "
        f"le donneur garde au moins {kept} (RK-30).",
    }
