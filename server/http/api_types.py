"""The HTTP answers as msgspec Structs: what GET /openapi.json describes them with.

The routes build their answers as dicts (the projections return dicts); these types say
what those dicts hold, and `server/openapi.py` turns them into JSON Schema with
`msgspec.json.schema_components`. A test (tests/e2e/test_openapi.py) checks the server's
real answers against the schema, so a drifting route fails there.

A field that may be absent is `UnsetType` (not required in the schema); one that may be
`null` is `X | None`. Structs do not forbid unknown fields, so an answer may grow.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from projections.log.core import LogLine
from projections.words.webhooks import DeliveryKind
from projections.words.webhooks import Kind as WebhookKind

Uuid = Annotated[str, Meta(description="a lower-case uuid")]
Token = Annotated[str, Meta(description="an opaque bearer token, shown once")]


# --- request bodies the routes decode (the others are domain's commands) ------------


class CreateEncounter(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of POST /api/encounters."""

    ruleset: str
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=120)]
    settings: dict[str, Any] = {}
    campaign: str | None = None


# --- errors ---------------------------------------------------------------------------


class ErrorDetail(msgspec.Struct):
    """A refusal: a machine-readable code, a sentence, and the rule id that refused.

    Codes: `invalid` (a malformed body or parameter, or a value of the wrong form),
    `rule_violation` (a rule of the system refuses; `rule` names it), `unauthorized`,
    `forbidden`, `not_found`, `conflict`, `not_your_turn`, `no_pending_reaction`,
    `budget_exhausted`, `limit_reached`, `idempotency_mismatch`, `too_large`,
    `method_not_allowed`, `rate_limited`, `unavailable`, `internal`. `message_fr` is the
    same refusal in French. `reason` is a stable key for the refusal and `params` its
    facts; `message` and `message_fr` are worded from them.
    """

    code: str
    message: str
    message_fr: str
    reason: str | UnsetType = UNSET
    params: dict[str, Any] | UnsetType = UNSET
    rule: str | UnsetType = UNSET


class Error(msgspec.Struct):
    """Every 4xx and 5xx answer: `{"error": {"code", "message", "message_fr", "rule"?}}`."""

    error: ErrorDetail


# --- events ---------------------------------------------------------------------------


class Envelope(msgspec.Struct):
    """A stored event (CONTRACT section 5). `data` is the event without its `type`: the
    events' own schemas are in GET /api/schema (`events`)."""

    stream: str
    version: int
    position: int
    type: str
    data: dict[str, Any]
    meta: dict[str, Any]
    prev_hash: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
    hash: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


class Events(msgspec.Struct):
    """Events in version order, filtered for the caller's role, and the stream's version."""

    version: int
    events: list[Envelope]


# --- encounters -----------------------------------------------------------------------


class EncounterLinks(msgspec.Struct):
    """Page links of a new encounter (the token rides in the fragment)."""

    gm: str
    spectator: str
    board: str


class WarCombatant(msgspec.Struct):
    """A War character that joined an encounter opened in its War."""

    character_id: str
    combatant_id: str
    name: str
    player_token: Token


class CreatedEncounter(msgspec.Struct):
    """201 of POST /api/encounters. `campaign` and `combatants` when opened in a War."""

    id: Uuid
    version: int
    gm_token: Token
    spectator_token: Token
    links: EncounterLinks
    campaign: Uuid | UnsetType = UNSET
    combatants: list[WarCombatant] | UnsetType = UNSET


class CarriedBack(msgspec.Struct):
    """A War encounter's outcome carried back into its War (`carried` false if done)."""

    id: Uuid
    version: int
    carried: bool


class CommandAnswer(msgspec.Struct):
    """200 of a command: the new version and the events it appended, filtered for the
    caller. `add_combatant` adds `combatant_id` and `player_token` (null on a replay,
    with `player_link` saying how to get a new one); a War encounter's `close` adds
    `campaign`."""

    version: int
    events: list[Envelope]
    combatant_id: str | UnsetType = UNSET
    player_token: Token | UnsetType | None = UNSET
    player_link: str | UnsetType = UNSET
    campaign: CarriedBack | UnsetType | None = UNSET


class Me(msgspec.Struct):
    """What the caller's token gives: its role and, for a player, its combatants."""

    role: Literal["gm", "player", "spectator"]
    combatants: list[str]


class RollAudit(msgspec.Struct):
    """One roll's provenance: who, why, die, faces, every modifier with its rule id,
    threshold, outcome, and the proof status of its commit-reveal seed."""

    roll: int
    version: int | None
    hash: str | None
    actor: str | None
    actor_name: str | None
    purpose: str | None
    expr: str | None
    sizes: list[int]
    faces: list[int]
    total: int | None
    check: dict[str, Any] | None
    rules: list[Any]
    action: dict[str, Any] | None
    seed_id: str | None
    roll_number: int | None
    client_seed: str
    source: str | None
    hidden: bool
    commitment: str | None
    revealed_at: int | None
    proof: str
    proof_detail: str
    disputes: list[dict[str, Any]]


class VerifyReport(msgspec.Struct):
    """The hash chain and every revealed roll, recomputed."""

    chain: bool
    dice: bool
    rolls_checked: int
    first_problem: str | None
    manual: int
    unrevealed: int
    problems: list[str]
    entropy_join: Annotated[
        str, Meta(description="how the entropy was joined: netstring, or concat (older)")
    ]


class AuditBundle(msgspec.Struct):
    """`export?format=json`: every envelope of the stream, enough to verify offline."""

    format: Literal["fracas-audit/1", "fracas-audit/2"]
    encounter: Uuid
    events: list[Envelope]


# --- rule systems ---------------------------------------------------------------------


class SettingInfo(msgspec.Struct):
    """A per-encounter setting: its default, what it does, the rule it comes from."""

    default: Any
    description: str
    rule: str | None
    choices: list[Any]


class ActionInfo(msgspec.Struct):
    """An action a rule system offers."""

    label: str
    label_fr: str
    free: bool
    needs_target: bool
    ranked: bool
    rule: str | None


class ReactionInfo(msgspec.Struct):
    """A reaction a rule system offers."""

    label: str
    label_fr: str
    rule: str | None


class OptionLabel(msgspec.Struct):
    """What the pages call one option of an act or react."""

    label: str
    label_fr: str


class Ruleset(msgspec.Struct):
    """A rule system: its settings with defaults, actions, reactions and sample sheets."""

    id: str
    name: str
    version: str
    settings: dict[str, SettingInfo]
    actions: dict[str, ActionInfo]
    reactions: dict[str, ReactionInfo]
    presets: dict[str, dict[str, Any]]
    option_labels: dict[str, OptionLabel]  # what a page calls each option, English and French


class RuleText(msgspec.Struct):
    """A rule's text from the shipped digests."""

    id: str
    system: str
    text: str


class Health(msgspec.Struct):
    """Liveness with a database check (503 with `status: down` when it fails)."""

    status: Literal["ok", "down"]
    database: str


class Readiness(msgspec.Struct):
    """This instance can commit a write now (else 503 `unavailable`: a standby, a
    read-only server, a commit waiting for a lost synchronous standby)."""

    status: Literal["ready"]
    database: Literal["writable"]


# --- Wars -----------------------------------------------------------------------------


class WarLinks(msgspec.Struct):
    """Where to read the War."""

    war: str


class CreatedWar(msgspec.Struct):
    """201 of POST /api/campaigns."""

    id: Uuid
    version: int
    gm_token: Token
    links: WarLinks


class WarLine(msgspec.Struct):
    """One War event in words, English and French (projections/words/war.py)."""

    type: str
    text: str
    text_fr: str


class WarCommandAnswer(msgspec.Struct):
    """200 of a War command: the new version, its events and their `lines` in words
    (`character_id` for `enroll`). `carry_back` answers a `CarriedBack` instead."""

    version: int
    events: list[Envelope]
    lines: list[WarLine] | UnsetType = UNSET
    character_id: str | UnsetType = UNSET


class WarCharacter(msgspec.Struct):
    """A War character between encounters; `sheet` only for the War's GM."""

    id: str
    name: str
    kind: Any
    master: str | None
    master_name: str | None
    hp: int
    mana: int
    luck: int
    resources: dict[str, int]
    maxima: dict[str, int]
    half_ranks_used: list[str]
    sidelined: bool
    dead: bool
    sheet: dict[str, Any] | UnsetType = UNSET


class War(msgspec.Struct):
    """A War: its day, characters with pools, and the encounters carried back."""

    id: Uuid
    name: str
    ruleset: Literal["ranks-d100"]
    version: int
    day: int
    settings: dict[str, Any]
    characters: list[WarCharacter]
    encounters: list[str]


# --- the resolver ---------------------------------------------------------------------


class Rate(msgspec.Struct):
    """A win rate with its 95% Wilson interval."""

    rate: float
    low: float
    high: float


class Names(msgspec.Struct):
    """The two fighters' display names."""

    a: str
    b: str


class ExampleFight(msgspec.Struct):
    """The fight told in words."""

    winner: str | None
    rounds: int


class SavedFight(msgspec.Struct):
    """The told fight stored as a closed encounter (`save: true`)."""

    id: Uuid
    saved: bool
    board: str


class Simulation(msgspec.Struct):
    """200 of POST /api/simulate: win rates, rounds, damage per hit, one narrated fight."""

    ruleset: Literal["d20-na"]
    names: Names
    fights: int
    wins: dict[str, int]
    draws: int
    rates: dict[str, Rate]
    mean_rounds: float
    sd_rounds: float
    mean_damage_per_hit: float | None
    example: ExampleFight
    narration: str
    report: str
    seed: str
    encounter: SavedFight | UnsetType = UNSET


# --- links (server/tokens.py) ---------------------------------------------------------


class LinkInfo(msgspec.Struct):
    """A live link of an encounter: its public id, role and combatants, never its secret."""

    id: str
    role: Literal["gm", "player", "spectator"]
    combatants: list[str]
    created: Annotated[str, Meta(description="ISO 8601")]
    last_used: str | None


class Links(msgspec.Struct):
    """200 of GET /api/encounters/{id}/tokens: the live links, oldest first."""

    tokens: list[LinkInfo]


class IssuedLink(msgspec.Struct):
    """201 of POST /api/encounters/{id}/tokens: the new token, shown once, and its page."""

    id: str
    token: Token
    link: str


class RevokedLink(msgspec.Struct):
    """200 of DELETE /api/encounters/{id}/tokens/{token_id}."""

    id: str
    revoked: Annotated[bool, Meta(description="always true")]


# --- webhooks (server/webhooks.py) ----------------------------------------------------


class WebhookSet(msgspec.Struct):
    """200 of PUT /api/encounters/{id}/webhook: the webhook and its signing secret, once."""

    id: str
    url: str
    format: Literal["json", "discord"]
    kinds: list[WebhookKind]
    lang: Literal["en", "fr"]
    secret: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


class Delivery(msgspec.Struct):
    """One delivery of a webhook: its state, attempts and last outcome. One webhook's
    deliveries are sent in (version, kind) order, one at a time: a pending one waits for
    those before it."""

    id: str
    version: Annotated[int, Meta(description="the event announced (a test: the checkpoint)")]
    kind: DeliveryKind
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    last_status: int | None
    last_error: str | None
    created: str
    delivered: str | None
    next_attempt: str | None


class Webhook(msgspec.Struct):
    """200 of GET /api/encounters/{id}/webhook: the URL, kinds and recent deliveries
    (never the secret)."""

    id: str
    url: str
    format: Literal["json", "discord"]
    kinds: list[WebhookKind]
    lang: Literal["en", "fr"]
    created: str
    deliveries: list[Delivery]


class WebhookDeliveries(msgspec.Struct):
    """200 of GET /api/encounters/{id}/webhook/deliveries: the webhook's id (null: the
    encounter has none) and its last deliveries, newest first (no URL, no secret)."""

    webhook: str | None
    deliveries: list[Delivery]


class WebhookTestQueued(msgspec.Struct):
    """202 of POST /api/encounters/{id}/webhook/test: a `test` delivery, queued after
    the webhook's deliveries so far; its outcome shows in the deliveries."""

    id: str
    version: int
    kind: Literal["test"]
    status: Literal["pending"]


class WebhookDeleted(msgspec.Struct):
    """200 of DELETE /api/encounters/{id}/webhook."""

    deleted: Annotated[bool, Meta(description="always true")]


# --- dice fairness (server/dice_api.py, projections/dice.py) --------------------------


class DieFairness(msgspec.Struct):
    """One die size's faces (every face from 1, zeros included) and its chi-square test
    against a fair die (`chi2` 0, `df` 0, `p_value` 1 with nothing to test)."""

    faces: dict[str, int]
    rolls: int
    expected: float
    chi2: float
    df: int
    p_value: Annotated[float, Meta(ge=0, le=1)]


class DiceFairness(msgspec.Struct):
    """Dice fairness per source, then per die size (`d6`, `d20`, ...)."""

    server: dict[str, DieFairness]
    manual: dict[str, DieFairness]


class WarDiceFairness(msgspec.Struct):
    """A War's dice fairness and the encounters carried back it counts."""

    server: dict[str, DieFairness]
    manual: dict[str, DieFairness]
    encounters: list[Uuid]


# --- the log (server/log_api.py) ------------------------------------------------------


class LogPage(msgspec.Struct):
    """200 of GET /api/encounters/{id}/log: lines in version order, and whether older
    lines exist for the caller."""

    lines: list[LogLine]
    more: bool


# --- the player's own sheet (server/http/sheet.py, projections/sheet.py) --------------


class SessionUseLeft(msgspec.Struct):
    """An ability the sheet gives once per session (RP): its limit key, its name in English
    and French, its rule, and the uses spent and left."""

    key: str
    label: str
    label_fr: str
    rule: str | None
    limit: int
    used: int
    left: int


class OwnSheet(msgspec.Struct):
    """One combatant's sheet as its controller reads it: the sheet's plain values
    (`stats`, its pools left out), the names on its lists (`lists`: weapons, items,
    spells), its once-per-session `uses`; `kept` (and nothing else) when its numbers are
    the GM's."""

    id: str
    name: str
    kept: bool
    stats: dict[str, int | str]
    lists: dict[str, list[str]]
    uses: list[SessionUseLeft]


class Sheets(msgspec.Struct):
    """200 of GET /api/encounters/{id}/sheet: the sheets the caller's token may read (a
    player's own combatants', every one for the GM, none for a spectator)."""

    version: int
    sheets: list[OwnSheet]
