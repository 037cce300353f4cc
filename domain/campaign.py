"""The War (campaign stream `campaign-<uuid>`): persistent ranks-d100 characters between
encounters. A pure decider like the encounter's: `decide(state, command) -> events`,
`evolve(state, event) -> state`, `replay(events)`.

A stream is one War (RK-AMB-9), so Luck uses (RK-51) start full at enrollment and only
come back in a new War. Each Day (= one RP, RK-AMB-9) starts with recovery and upkeep in
the `day_start.order` (RK-27..RK-29, RK-AMB-8) and clears the per-RP half-rank switches
(RK-8). Mana moves between a Master and its Servant 1:1, the giver keeping 1 (RK-30).
Encounters report back with `settle_character` (HP, mana, Luck uses left, switches used).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import reduce
from typing import Annotated, Any, get_args

import msgspec
from msgspec import Meta

from domain.errors import Invalid, NotFound, Refused
from domain.rules.ranks.settings import SETTINGS, merged
from domain.rules.ranks.sheet import validate
from domain.state import Game
from domain.upcast import upcast

UPKEEP_BY_RARITY = (5, 10, 15, 20, 25)  # RK-28: R1..R5
BERSERKER_SURCHARGE = 10  # RK-29
DAILY_RECOVERY = 50  # RK-27
MANA_KEPT = 1  # RK-30: a giver of mana keeps at least this much
CAMPAIGN_SETTINGS: dict[str, Any] = {
    "day_start.order": ["recover", "upkeep"],  # RK-AMB-8
    "recovery.cap_at_max": True,  # RK-AMB-8
}

Name = Annotated[str, Meta(min_length=1, max_length=80)]
Id = Annotated[str, Meta(min_length=1, max_length=64)]
Amount = Annotated[int, Meta(ge=1, le=1_000_000)]
Pool = Annotated[int, Meta(ge=0, le=1_000_000)]


# --- events ---------------------------------------------------------------------------


class CampaignEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every War event."""


class WarOpened(CampaignEvent, tag="war_opened", frozen=True, kw_only=True):
    """A GM opened a War with its settings (ranks-d100 ones and the daily cycle's)."""

    campaign_id: str
    name: str
    settings: dict[str, Any] = {}


class CharacterEnrolled(CampaignEvent, tag="character_enrolled", frozen=True, kw_only=True):
    """A Master or Servant joined the War with full pools (RK-24) and Luck uses (RK-51)."""

    character_id: str
    name: str
    sheet: dict[str, Any]
    resources: dict[str, int]
    maxima: dict[str, int]
    master: str | None = None


class DayStarted(CampaignEvent, tag="day_started", frozen=True, kw_only=True):
    """A new Day (one RP): the per-RP half-rank switches are available again (RK-8)."""

    day: int


class PoolsRecovered(CampaignEvent, tag="pools_recovered", frozen=True, kw_only=True):
    """Daily recovery of HP and mana (RK-27), capped at the maximum (RK-AMB-8)."""

    character_id: str
    hp: int
    mana: int
    rule: str = "RK-27"


class UpkeepPaid(CampaignEvent, tag="upkeep_paid", frozen=True, kw_only=True):
    """A Master paid the day's upkeep of its Servant (RK-28, RK-29)."""

    master_id: str
    servant_id: str
    amount: int
    mana: int
    rule: str = "RK-28"


class SidelinedForTheDay(CampaignEvent, tag="sidelined_for_the_day", frozen=True, kw_only=True):
    """At 0 mana a character takes no part in today's RP (RK-26, RK-AMB-8)."""

    character_id: str
    reason: str
    rule: str = "RK-26"


class ManaTransferred(CampaignEvent, tag="mana_transferred", frozen=True, kw_only=True):
    """Mana given between a Master and its Servant, 1:1 (RK-30)."""

    giver: str
    receiver: str
    amount: int


class CharacterSettled(CampaignEvent, tag="character_settled", frozen=True, kw_only=True):
    """An encounter's outcome carried back: pools, Luck uses left, switches used today."""

    character_id: str
    hp: int
    mana: int
    luck: int
    half_ranks_used: list[str] = []


AnyCampaignEvent = (
    WarOpened
    | CharacterEnrolled
    | DayStarted
    | PoolsRecovered
    | UpkeepPaid
    | SidelinedForTheDay
    | ManaTransferred
    | CharacterSettled
)
# Every War event by its stored tag, named once (as the encounter's events are).
EVENTS: dict[str, type[CampaignEvent]] = {
    str(cls.__struct_config__.tag): cls for cls in get_args(AnyCampaignEvent)
}


def event_from(tag: str, data: Mapping[str, Any]) -> CampaignEvent:
    """The War event a stored row holds. An unknown tag raises: a War folded without one
    of its events would diverge quietly."""
    cls = EVENTS.get(tag)
    if cls is None:
        raise ValueError(f"unknown War event type {tag!r}")
    return msgspec.convert(upcast(tag, data), cls)


# --- commands -------------------------------------------------------------------------


class CampaignCommand(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every War command."""


class Enroll(CampaignCommand, tag="enroll", frozen=True, kw_only=True):
    """Enroll a character; a Servant may name its Master's character id."""

    name: Name
    sheet: Annotated[dict[str, Any], Meta(max_length=64)]
    master: Id | None = None


class NewDay(CampaignCommand, tag="new_day", frozen=True, kw_only=True):
    """Start the next Day: recovery, upkeep, fresh half-rank switches."""


class TransferMana(CampaignCommand, tag="transfer_mana", frozen=True, kw_only=True):
    """Give mana from a Master to its Servant or back (RK-30)."""

    giver: Id
    receiver: Id
    amount: Amount


class SettleCharacter(CampaignCommand, tag="settle_character", frozen=True, kw_only=True):
    """Carry an encounter's end state back into the War."""

    character_id: Id
    hp: Pool
    mana: Pool
    luck: Pool
    half_ranks_used: list[str] = []


# --- state ----------------------------------------------------------------------------


@dataclass
class Character:
    """A character as the War knows it between encounters."""

    id: str
    name: str
    sheet: dict[str, Any]
    resources: dict[str, int]
    maxima: dict[str, int]
    master: str | None = None
    half_ranks_used: list[str] = field(default_factory=list)
    sidelined: bool = False

    @property
    def dead(self) -> bool:
        return self.resources["hp"] <= 0  # RK-25: death is final


@dataclass
class CampaignState:
    """Everything a War's decisions need."""

    campaign_id: str = ""
    name: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    day: int = 0
    characters: dict[str, Character] = field(default_factory=dict)


def evolve(state: CampaignState, event: CampaignEvent) -> CampaignState:
    """Apply one War event. Mutates and returns `state`."""
    chars = state.characters
    match event:
        case WarOpened():
            state.campaign_id, state.name = event.campaign_id, event.name
            state.settings = dict(event.settings)
        case CharacterEnrolled():
            chars[event.character_id] = Character(
                event.character_id,
                event.name,
                dict(event.sheet),
                dict(event.resources),
                dict(event.maxima),
                event.master,
            )
        case DayStarted():
            state.day = event.day
            for c in chars.values():
                c.half_ranks_used, c.sidelined = [], False
        case PoolsRecovered():
            chars[event.character_id].resources.update(hp=event.hp, mana=event.mana)
        case UpkeepPaid():
            chars[event.master_id].resources["mana"] = event.mana
        case SidelinedForTheDay():
            chars[event.character_id].sidelined = True
        case ManaTransferred():
            chars[event.giver].resources["mana"] -= event.amount
            chars[event.receiver].resources["mana"] += event.amount
        case CharacterSettled():
            c = chars[event.character_id]
            c.resources.update(hp=event.hp, mana=event.mana, luck=event.luck)
            c.half_ranks_used = list(event.half_ranks_used)
        case _:
            pass
    return state


def replay(events: list[CampaignEvent]) -> CampaignState:
    return reduce(evolve, events, CampaignState())


def open_war(campaign_id: str, name: str, settings: dict[str, Any]) -> list[CampaignEvent]:
    """The first event of a War stream, its settings checked against both systems."""
    for key, value in settings.items():
        default = (
            CAMPAIGN_SETTINGS[key]
            if key in CAMPAIGN_SETTINGS
            else (SETTINGS[key].default if key in SETTINGS else None)
        )
        if default is None or type(value) is not type(default):
            raise Invalid(
                rule="RK-AMB-8", reason="unknown_mistyped_war_setting", params={"key": key}
            )
    return [WarOpened(campaign_id=campaign_id, name=name, settings=dict(settings))]


# --- decisions ------------------------------------------------------------------------


def setting(state: CampaignState, key: str) -> Any:
    return state.settings.get(key, CAMPAIGN_SETTINGS.get(key))


def _char(state: CampaignState, cid: str) -> Character:
    found = state.characters.get(cid)
    if found is None:
        raise NotFound(reason="no_character_this_war", params={"cid": cid})
    return found


def _enroll(state: CampaignState, c: Enroll) -> list[CampaignEvent]:
    ranks = {k: v for k, v in state.settings.items() if k in SETTINGS}
    sheet = validate({**c.sheet, **({"master": c.master} if c.master else {})}, merged(ranks))
    if c.master is not None:
        master = _char(state, c.master)
        if sheet.sheet["kind"] != "servant" or master.sheet["kind"] != "master":
            raise Refused("rule_violation", rule="RK-28", reason="only_servant_names_master")
    return [
        CharacterEnrolled(
            character_id=f"p{len(state.characters) + 1}",
            name=c.name,
            sheet=sheet.sheet,
            resources=sheet.resources,
            maxima=sheet.maxima,
            master=c.master,
        )
    ]


def upkeep(servant: Character) -> int:
    """RK-28 by rarity, plus RK-29 for a Berserker: R3 Berserker = 25."""
    cost = UPKEEP_BY_RARITY[int(servant.sheet["rarity"]) - 1]
    if str(servant.sheet.get("class", "")).lower() == "berserker":
        cost += BERSERKER_SURCHARGE
    return cost


def _new_day(state: CampaignState) -> list[CampaignEvent]:
    out: list[CampaignEvent] = [DayStarted(day=state.day + 1)]
    mana = {cid: c.resources["mana"] for cid, c in state.characters.items()}
    alive = [c for c in state.characters.values() if not c.dead]
    for step in setting(state, "day_start.order"):
        if step == "recover":
            for c in alive:
                hp, mp = c.resources["hp"] + DAILY_RECOVERY, mana[c.id] + DAILY_RECOVERY
                if setting(state, "recovery.cap_at_max"):
                    hp, mp = min(hp, c.maxima["hp"]), min(mp, c.maxima["mana"])
                mana[c.id] = mp
                out.append(PoolsRecovered(character_id=c.id, hp=hp, mana=mp))
        elif step == "upkeep":
            for s in alive:
                if s.master is None or state.characters[s.master].dead:
                    continue
                cost = upkeep(s)
                mana[s.master] = max(0, mana[s.master] - cost)
                rule = "RK-29" if cost > UPKEEP_BY_RARITY[int(s.sheet["rarity"]) - 1] else "RK-28"
                out.append(
                    UpkeepPaid(
                        master_id=s.master,
                        servant_id=s.id,
                        amount=cost,
                        mana=mana[s.master],
                        rule=rule,
                    )
                )
    for cid, left in mana.items():
        if left <= 0 and not state.characters[cid].dead:
            out.append(
                SidelinedForTheDay(character_id=cid, reason="0 mana at the start of the Day")
            )
    return out


def _transfer(state: CampaignState, c: TransferMana) -> list[CampaignEvent]:
    giver, receiver = _char(state, c.giver), _char(state, c.receiver)
    if giver.master != receiver.id and receiver.master != giver.id:
        raise Refused("rule_violation", rule="RK-30", reason="mana_master_servant_only")
    if giver.resources["mana"] - c.amount < MANA_KEPT:
        raise Refused(
            "rule_violation", rule="RK-30", reason="must_keep_one_mana", params={"giver": giver}
        )
    if receiver.resources["mana"] + c.amount > receiver.maxima["mana"]:
        raise Refused(
            "rule_violation",
            rule="RK-30",
            reason="pool_full",
            params={"receiver": receiver, "mana": receiver.maxima["mana"]},
        )
    return [ManaTransferred(giver=giver.id, receiver=receiver.id, amount=c.amount)]


def _settle(state: CampaignState, c: SettleCharacter) -> list[CampaignEvent]:
    char = _char(state, c.character_id)
    if char.dead and c.hp > 0:
        raise Refused(
            "rule_violation", rule="RK-25", reason="death_is_final", params={"character": char}
        )
    for key, value in (("hp", c.hp), ("mana", c.mana), ("luck", c.luck)):
        if value > char.maxima[key]:
            params = {"key": key, "value": value, "character": char, "maximum": char.maxima[key]}
            raise Invalid(reason="over_maximum", params=params)
    return [
        CharacterSettled(
            character_id=char.id,
            hp=c.hp,
            mana=c.mana,
            luck=c.luck,
            half_ranks_used=list(c.half_ranks_used),
        )
    ]


def decide(state: CampaignState, command: CampaignCommand) -> list[CampaignEvent]:
    """The events a War command produces, or a Refused exception."""
    if not state.campaign_id:
        raise NotFound(reason="no_such_war")
    match command:
        case Enroll():
            return _enroll(state, command)
        case NewDay():
            return _new_day(state)
        case TransferMana():
            return _transfer(state, command)
        case SettleCharacter():
            return _settle(state, command)
    raise Invalid(reason="unknown_war_command", params={"command": type(command).__name__})


def encounter_sheet(state: CampaignState, char: Character) -> dict[str, Any]:
    """The sheet to add a character to an encounter with, carrying its pools in (RK-24);
    a Servant names its Master by name, as encounter ids differ from War ids."""
    sheet = {k: v for k, v in char.sheet.items() if k not in ("hp", "mana", "luck_left")}
    if char.master is not None:
        sheet["master"] = state.characters[char.master].name
    return {
        **sheet,
        "hp": char.resources["hp"],
        "mana": char.resources["mana"],
        "luck_left": char.resources["luck"],
        "half_ranks_used": list(char.half_ranks_used),
    }


# --- a War's encounters ---------------------------------------------------------------


@dataclass(frozen=True)
class Joining:
    """A character who joins the War's next encounter, and how it is added."""

    character: Character
    side: str
    sheet: dict[str, Any]


def takes_part(char: Character) -> bool:
    """Alive, not sidelined for the Day, and with mana left (RK-25, RK-26)."""
    return not char.dead and not char.sidelined and char.resources["mana"] > 0


def side_of(state: CampaignState, char: Character) -> str:
    """A Master and its Servant fight on one side, named after the Master."""
    master = state.characters.get(char.master) if char.master else None
    return master.name if master is not None else char.name


def joining(state: CampaignState) -> list[Joining]:
    """Who joins an encounter opened in the War now, in enrollment order."""
    return [
        Joining(c, side_of(state, c), encounter_sheet(state, c))
        for c in state.characters.values()
        if takes_part(c)
    ]


def _pool(value: int, top: int) -> int:
    return max(0, min(value, top))


def settlements(
    state: CampaignState,
    game: Game,
    settings: Mapping[str, Any],
) -> list[CampaignEvent]:
    """What a closed encounter carries back into the War: per character who fought in it,
    HP, mana and (with Luck per War, RK-51) Luck uses, capped at the War's maxima, and the
    half-ranks switched on (RK-8, added to those already used today).

    A combatant names its character (`character`); one who names none is no War
    character and is not settled.
    """
    luck_per_war = merged(dict(settings))["luck.scope"] == "war"
    events: list[CampaignEvent] = []
    for cid, c in game.combatants.items():
        char = state.characters.get(c.character) if c.character else None
        if char is None:
            continue
        used = {
            key.split(".", 1)[1]
            for (who, key), (_scope, uses) in game.limits.items()
            if who == cid and key.startswith("half_rank.") and uses > 0
        }
        top, res = char.maxima, char.resources
        luck = c.resources.get("luck", res["luck"])
        events += decide(
            state,
            SettleCharacter(
                character_id=char.id,
                hp=_pool(c.resources.get("hp", res["hp"]), top["hp"]),
                mana=_pool(c.resources.get("mana", res["mana"]), top["mana"]),
                luck=_pool(luck, top["luck"]) if luck_per_war else res["luck"],
                half_ranks_used=sorted(used | set(char.half_ranks_used)),
            ),
        )
    return events
