"""The d20-na 1v1 resolver as a service (NA-37..NA-40): which systems it resolves, and how
a told fight is saved as a closed encounter. Used by `fracas simulate` and `POST /api/simulate`."""

from __future__ import annotations

from typing import Any

from domain.events import event_data
from domain.rules.d20_na.resolver import fight_seed
from server.services import auth
from server.services.encounters import stream_of
from server.store.port import AlreadyStored, ConcurrencyError, NewEvent

SIMULATE_RULESETS = ("d20-na",)  # the rule systems domain.rules.d20_na.resolver can resolve


class SaveConflict(Exception):
    """The fight could not be saved: another save of the same seed got there first."""


async def save_fight(svc: Any, seed: str, events: list[Any], rules: Any) -> dict[str, Any]:
    """Store the example fight as a closed encounter: its events, its (revealed) seed."""
    encounter_id, secret = fight_seed(seed, 0)
    stream = stream_of(encounter_id)
    new = [NewEvent(*event_data(e)) for e in events]
    meta = {"rules_version": rules.version, "actor": "gm", "command_id": f"simulate-{seed}"}
    saved = True
    async with svc.store.transaction() as conn:
        version, _ = await svc.store.head(stream)
        if version == 0:
            try:  # a save of the same seed racing this one stores its seed or events first
                await svc.store.add_seeds(encounter_id, {"main": secret}, conn=conn)
                await svc.store.append(stream, 0, new, meta, conn=conn)
            except (AlreadyStored, ConcurrencyError):
                raise SaveConflict("the fight was saved by someone else meanwhile") from None
            gm = await auth.issue(svc.store, encounter_id, "gm", conn=conn)
        else:  # the same seed was saved before: the same fight, already stored
            saved = False
            gm = None
        spectator = await auth.issue(svc.store, encounter_id, "spectator", conn=conn)
    return {"id": encounter_id, "saved": saved, "gm": gm, "spectator": spectator}
