"""The War (a campaign, ranks-d100): stream `campaign-<uuid>`, folded by the pure decider
domain.campaign; this module loads, decides, appends and retries. Its routes are
server/http/campaigns.py.

Encounters in a War (`POST /api/encounters` with `campaign`): `open_in_war` opens the
encounter with the War's ranks-d100 settings under the given ones, and adds every
character able to take part today (not dead, not sidelined, some mana left:
`domain.campaign.joining`). Each `add_combatant` names its `character`, which is how the
carry-back maps combatants to characters. The `close` of such an encounter appends, in
its own transaction, what `domain.campaign.settlements` decides to the War (`settling`):
one `character_settled` per character, in one batch whose meta names the encounter, so a
close never lands without its carry-back, and a second carry-back sees it and appends
nothing.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Any

import msgspec

from domain import campaign as war
from domain import commands as cmd
from domain.encounter import check_settings
from domain.errors import Invalid, NotFound, Refused
from domain.rules import REGISTRY
from domain.rules.ranks.settings import SETTINGS
from domain.state import GM, EncounterState
from projections.words.war import hints, told
from server.services.encounters import EncounterService, Then, envelope
from server.store.port import ConcurrencyError, NewEvent, Recorded

RULESET = "ranks-d100"
RETRIES = 5


class CarryBack(
    msgspec.Struct,
    tag_field="type",
    tag="carry_back",
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
):
    """Carry a closed encounter of this War back into it (a no-op if already done)."""

    encounter: uuid.UUID


WarCommand = war.Enroll | war.NewDay | war.TransferMana | war.SettleCharacter | CarryBack
_command_decoder = msgspec.json.Decoder(WarCommand)


def stream_of(campaign_id: str) -> str:
    return f"campaign-{campaign_id}"


def parse_campaign(raw: str) -> str:
    """The canonical lower-case uuid of a War, or NotFound."""
    try:
        return str(uuid.UUID(raw))
    except ValueError as e:
        raise NotFound(f"no War {raw!r}") from e


def event_data(event: war.CampaignEvent) -> NewEvent:
    raw: dict[str, Any] = msgspec.to_builtins(event)
    return NewEvent(str(raw.pop("type")), raw)


@dataclass
class War:
    """A War as loaded: its state, its version and the rows it was folded from."""

    id: str
    state: war.CampaignState
    version: int
    records: list[Recorded]

    def carried(self) -> list[str]:
        """The encounters already carried back, in order."""
        seen = (str(r.meta.get("encounter", "")) for r in self.records)
        return list(dict.fromkeys(e for e in seen if e))


async def load(svc: EncounterService, campaign_id: str) -> War:
    records = await svc.store.read_stream(stream_of(campaign_id))
    if not records:
        raise NotFound(f"no War {campaign_id}")
    state = war.CampaignState()
    for r in records:
        war.evolve(state, war.event_from(r.type, r.data))
    return War(campaign_id, state, records[-1].version, records)


async def _append(
    svc: EncounterService,
    campaign_id: str,
    expected: int,
    events: list[war.CampaignEvent],
    meta: dict[str, Any],
    conn: Any = None,
) -> list[Recorded]:
    try:
        return await svc.store.append(
            stream_of(campaign_id),
            expected,
            [event_data(e) for e in events],
            {"rules_version": "1", **meta, "blind": secrets.token_hex(16)},
            conn=conn,
        )
    except ValueError as e:  # data PostgreSQL will not store (a NUL character...)
        raise Invalid(f"the War cannot store this: {e}") from e


def _ranks_settings(state: war.CampaignState) -> dict[str, Any]:
    return {k: v for k, v in state.settings.items() if k in SETTINGS}


# --- the War's own commands ---------------------------------------------------------


async def execute(
    svc: EncounterService, campaign_id: str, command: war.CampaignCommand
) -> dict[str, Any]:
    """Load -> decide -> append at the loaded version; a conflict re-decides."""
    for _ in range(RETRIES):
        loaded = await load(svc, campaign_id)
        events = war.decide(loaded.state, command)
        meta = {"actor": "gm", "command_id": uuid.uuid4().hex}
        try:
            recorded = await _append(svc, campaign_id, loaded.version, events, meta)
        except ConcurrencyError:
            continue
        answer: dict[str, Any] = {
            "version": recorded[-1].version,
            "events": [envelope(r) for r in recorded],
            "lines": told(loaded.state, events),  # the War's narrator, English and French
        }
        if isinstance(command, war.Enroll) and isinstance(events[0], war.CharacterEnrolled):
            answer["character_id"] = events[0].character_id
        return answer
    raise Refused("conflict", reason="war_conflict")


def character_view(state: war.CampaignState, char: war.Character, gm: bool) -> dict[str, Any]:
    """A character between encounters; the full sheet only for the War's GM."""
    master = state.characters.get(char.master) if char.master else None
    return {
        "id": char.id,
        "name": char.name,
        "kind": char.sheet.get("kind"),
        "master": char.master,
        "master_name": master.name if master else None,
        "hp": char.resources["hp"],
        "mana": char.resources["mana"],
        "luck": char.resources["luck"],
        "resources": dict(char.resources),
        "maxima": dict(char.maxima),
        "half_ranks_used": list(char.half_ranks_used),
        "sidelined": char.sidelined,
        "dead": char.dead,
        **({"sheet": dict(char.sheet)} if gm else {}),
    }


def view(loaded: War, gm: bool = False) -> dict[str, Any]:
    s = loaded.state
    return {
        "id": loaded.id,
        "name": s.name,
        "ruleset": RULESET,
        "version": loaded.version,
        "day": s.day,
        "settings": dict(s.settings),
        "characters": [character_view(s, c, gm) for c in s.characters.values()],
        "encounters": loaded.carried(),
        "hints": hints(s),  # the forms' rule notes, worded from the rules' numbers
    }


# --- routes -------------------------------------------------------------------------


# --- encounters in a War --------------------------------------------------------------


async def open_in_war(
    svc: EncounterService,
    ruleset: str,
    name: str,
    settings: dict[str, Any],
    campaign: str,
) -> dict[str, Any]:
    """Open an encounter in a War with the War's characters (the caller checked that
    the War's GM asks: server/http/campaigns.py).

    The War's ranks-d100 settings apply unless the encounter's own override them. Every
    sheet is checked before anything is stored, so a refusal leaves nothing behind.
    """
    campaign_id = parse_campaign(campaign)
    loaded = await load(svc, campaign_id)
    if ruleset != RULESET:
        raise Invalid(f"a War's encounters are played under {RULESET}, not {ruleset!r}")
    rules = REGISTRY[RULESET]
    combined = {**_ranks_settings(loaded.state), **settings}
    check_settings(rules, combined)
    state = loaded.state
    joining = war.joining(state)
    for j in joining:
        rules.validate_sheet(j.sheet, combined)
    answer = await svc.create(ruleset, name, combined, campaign_id)
    eid = answer["id"]
    joined: list[dict[str, Any]] = []
    for j in joining:
        char = j.character
        added = await svc.execute(
            eid,
            cmd.AddCombatant(name=char.name, side=j.side, sheet=j.sheet, character=char.id),
            GM,
        )
        answer["version"] = added["version"]
        joined.append(
            {
                "character_id": char.id,
                "combatant_id": added["combatant_id"],
                "name": char.name,
                "player_token": added["player_token"],
            }
        )
    return {**answer, "campaign": campaign_id, "combatants": joined}


async def settle_in_war(
    service: EncounterService, encounter_id: str, state: EncounterState, conn: Any = None
) -> dict[str, Any] | None:
    """Append a closed War encounter's settlements to its War (on `conn`, joining the
    transaction that closes it); None if the encounter is not a War's or is still open.
    Raises ConcurrencyError if the War moved on since it was read."""
    led = state.ledger
    if led.campaign is None or not led.closed:
        return None
    campaign_id = led.campaign
    loaded = await load(service, campaign_id)
    if encounter_id in loaded.carried():
        return {"id": campaign_id, "version": loaded.version, "carried": False}
    events = war.settlements(loaded.state, state.game, led.settings)
    if not events:
        return {"id": campaign_id, "version": loaded.version, "carried": False}
    meta = {"actor": "gm", "command_id": uuid.uuid4().hex, "encounter": encounter_id}
    recorded = await _append(service, campaign_id, loaded.version, events, meta, conn)
    return {"id": campaign_id, "version": recorded[-1].version, "carried": True}


def settling(service: EncounterService, encounter_id: str) -> Then:
    """The `then` of a `close`: its War (if any) takes the outcome in the same transaction."""

    async def then(conn: Any, state: EncounterState) -> dict[str, Any] | None:
        return await settle_in_war(service, encounter_id, state, conn)

    return then


async def carry_back(service: EncounterService, encounter_id: str) -> dict[str, Any] | None:
    """Carry a closed War encounter back again (the War's `carry_back` command): a no-op
    once done, as the War's batch names the encounter in its meta."""
    for _ in range(RETRIES):
        proj = await service.load(encounter_id)
        try:
            return await settle_in_war(service, encounter_id, proj.state)
        except ConcurrencyError:
            continue
    raise Refused("conflict", reason="war_conflict")
