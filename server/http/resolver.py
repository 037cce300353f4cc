"""`POST /api/simulate`: the d20-na automatic 1v1 resolver (NA-37..NA-40) over HTTP.

The same engine, report and saving as `fracas simulate` (server/resolver_cli.py): many seeded
duels, their win rates (95% Wilson intervals), rounds and damage per hit, one fight told
in words, and, on request, that fight stored as a closed encounter whose dice verify.
The duels are CPU-bound, so they run in a worker thread: the server keeps serving.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Annotated, Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.commands import decode_strict
from domain.errors import Invalid, Refused, RuleViolation
from domain.events import event_data
from domain.rules import REGISTRY
from domain.rules.common.sheetcheck import with_preset
from domain.rules.d20_na.resolver import Summary, buckets, simulate
from projections.log import narrate
from projections.words.resolver import simulation_report
from server.http.errors import HTTPError, json_response
from server.http.requests import body_of, limit_creation, service
from server.services.resolver import SIMULATE_RULESETS, SaveConflict, save_fight

MAX_FIGHTS = 2000
Fighter = Annotated[str, msgspec.Meta(min_length=1, max_length=60)] | dict[str, Any]
# Duels hold the GIL: a few at a time (app.state.simulations, a semaphore opened in the
# lifespan) keep the server answering; others wait their turn. A worst-case pair, two
# 100,000 HP tanks that draw at 200 rounds, takes ~1 min per 1000 fights.


class SimulateBody(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of POST /api/simulate: two fighters (preset names or sheets) and the run."""

    ruleset: str
    a: Fighter
    b: Fighter
    fights: Annotated[int, msgspec.Meta(ge=1, le=MAX_FIGHTS)] = 200
    seed: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | int | None = None
    lang: Literal["en", "fr"] = "en"
    save: bool = False


_body_decoder = msgspec.json.Decoder(SimulateBody)


def unfit(message: str, refusal: Refused) -> Refused:
    """A fighter refused as a 422 that keeps its code and its facts: a rule's refusal
    stays one, with its reason and parameters (`message` words only a field's check)."""
    code = "rule_violation" if refusal.code == "rule_violation" and refusal.rule else "invalid"
    out = Refused(code, message, refusal.rule, reason=refusal.reason, params=refusal.params,
                  names=refusal.names)  # fmt: skip
    out.status = 422
    return out


def fighter(side: str, raw: str | dict[str, Any], rules: Any) -> tuple[str | dict[str, Any], str]:
    """A preset name or a checked sheet, and the fighter's display name.

    A sheet object may carry `name` (shown in the report) and `preset` (a preset its
    other fields override); `{"preset": "milicien"}` alone is the preset itself.
    """
    if isinstance(raw, str):
        if raw not in rules.presets:
            raise Invalid(
                reason="fighter_unknown_preset_of",
                params={"side": side, "preset": raw, "ruleset": rules.id,
                        "presets": sorted(rules.presets)},
            )  # fmt: skip
        return raw, raw.capitalize()
    data = dict(raw)
    name = data.pop("name", None)
    preset = data.pop("preset", None)
    if name is not None and (not isinstance(name, str) or not 1 <= len(name.strip()) <= 60):
        raise Invalid(reason="fighter_name_1_to_60", params={"side": side})
    if preset is not None:
        merged = with_preset(rules.presets, preset, data)
        if merged is None:
            raise Invalid(reason="fighter_unknown_preset", params={"side": side, "preset": preset})
        if not data:  # the preset as it is: the very duel `fracas simulate` runs
            return preset, (name or preset.capitalize()).strip()
        data = merged
    try:
        rules.validate_sheet(data, {})
    except Refused as e:
        raise unfit(f"{side}: invalid sheet: {e.message}", e) from e
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise Invalid(
            reason="fighter_sheet_unreadable", params={"side": side, "detail": str(e)}
        ) from e
    default = preset.capitalize() if preset else f"Fighter {side.upper()}"
    return data, (name or default).strip()


def answer(
    summary: Summary, names: tuple[str, str], seed: str, lang: str, encounter: str | None = None
) -> dict[str, Any]:
    """The JSON answer: the statistics, the told fight and the report `fracas simulate` prints."""
    example = summary.example
    assert example is not None  # at least one fight
    report = simulation_report(summary, names, lang, "d20-na", seed, encounter)
    return {
        "ruleset": "d20-na",
        "names": {"a": names[0], "b": names[1]},
        "fights": summary.fights,
        "wins": dict(summary.wins),
        "draws": summary.draws,
        "rates": {
            side: {"rate": r.rate, "low": r.low, "high": r.high}
            for side, r in summary.rates.items()
        },
        "mean_rounds": summary.mean_rounds,
        "sd_rounds": summary.sd_rounds,
        "mean_damage_per_hit": summary.mean_damage_per_hit,
        "histograms": {
            "rounds": histogram(summary.rounds_counts),
            "damage_per_hit": histogram(summary.damage_counts),
        },
        "example": {"winner": example.winner, "rounds": example.rounds},
        "narration": narrate(example.events, lang),
        "report": report,
        "seed": seed,
    }


def histogram(counts: dict[int, int]) -> list[dict[str, int]]:
    """A distribution as bars for the page: `[{low, high, count}]`, least value first."""
    return [{"low": b.low, "high": b.high, "count": b.count} for b in buckets(counts)]


def same_fight(stored: list[dict[str, Any]], events: list[Any]) -> bool:
    """Whether an encounter already stored under the seed holds this very fight: the
    encounter id comes from the seed alone, so other fighters would find it taken."""
    ours = msgspec.json.encode([list(event_data(e)) for e in events])
    theirs = msgspec.json.encode([[e["type"], e["data"]] for e in stored])
    same: bool = msgspec.json.decode(ours) == msgspec.json.decode(theirs)
    return same


async def post_simulate(request: Request) -> Response:
    body = decode_strict(await body_of(request), _body_decoder, SimulateBody)
    rules = REGISTRY.get(body.ruleset)
    if rules is None:
        raise Invalid(
            reason="unknown_rule_system_known",
            params={"ruleset": body.ruleset, "registry": sorted(REGISTRY)},
        )
    if body.ruleset not in SIMULATE_RULESETS:
        raise RuleViolation(
            rule="NA-37",
            reason="resolver_supports_only",
            params={"ruleset": body.ruleset, "supported": list(SIMULATE_RULESETS)},
        )
    (a, name_a), (b, name_b) = fighter("a", body.a, rules), fighter("b", body.b, rules)
    if body.save:  # a saved fight is an encounter like any other (and issues a token)
        limit_creation(request)
    if name_a == name_b:
        name_a, name_b = f"{name_a} A", f"{name_b} B"
    names = (name_a, name_b)
    seed = str(body.seed) if body.seed is not None else secrets.token_hex(6)
    try:
        async with request.app.state.simulations:
            summary = await asyncio.to_thread(simulate, a, b, body.fights, seed, {}, names)
    except Refused as e:  # a sheet the resolver cannot fight with
        raise unfit(e.message, e) from e
    out = answer(summary, names, seed, body.lang)
    if body.save:
        assert summary.example is not None
        try:
            saved = await save_fight(service(request), seed, summary.example.events, rules)
        except SaveConflict as e:
            raise HTTPError(409, "conflict", reason="fight_saved_meanwhile") from e
        eid = saved["id"]
        if not saved["saved"]:
            stored = await service(request).envelopes(eid)
            if not same_fight(stored, summary.example.events):
                raise HTTPError(
                    409,
                    "conflict",
                    reason="seed_names_another_fight",
                    params={"seed": seed},
                )
        out = answer(summary, names, seed, body.lang, eid)  # its report names the encounter
        out["encounter"] = {
            "id": eid,
            "saved": saved["saved"],
            "board": f"/e/{eid}#token={saved['spectator']}",
        }
    return json_response(out)


routes: list[Route] = [Route("/api/simulate", post_simulate, methods=["POST"])]
