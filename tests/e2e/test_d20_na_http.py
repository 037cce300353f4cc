"""d20-na's worked examples through the HTTP API, the GM entering the printed dice.

The same commands and faces as tests/unit/test_d20_na.py, but sent to a real `fracas
serve` with a GM token (`dice` on each command that rolls, recorded as manual) and read
back from the answers and the board (GET /api/encounters/{id}). A player token may not
enter dice (CONTRACT section 4), so a reaction with printed dice is sent by the GM; the
player tokens defend with the server's dice, or are refused before anything is rolled.
Tests are named after the rule ids they check (NA-n, NA-AMB-n).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from tests.e2e.conftest import Api

SWORD = {"name": "sword", "dmg": 5, "parry": 6}
BOW = {"name": "bow", "kind": "shoot", "dmg": 10, "range_band_m": 30, "two_handed": True}
SHIELD = {"name": "shield", "parry": 8}


def sheet(**over: Any) -> dict[str, Any]:
    """The unit tests' plain fighter: no dice on the weapon, so only d20s are rolled."""
    base: dict[str, Any] = {
        "STR": 10, "END": 5, "HAB": 10, "ATT": 12, "PAR": 10, "TIR": 10, "NA": 1,
        "INI": 5, "hp": 100, "weapons": [SWORD],
    }  # fmt: skip
    return base | over


Event = dict[str, Any]


class Table:
    """A d20-na encounter on the server, fed commands over HTTP."""

    def __init__(self, api: Api, settings: dict[str, Any] | None = None) -> None:
        made = api.create("d20-na", settings=settings or {})
        self.api = api
        self.id: str = made["id"]
        self.gm: str = made["gm_token"]
        self.players: dict[str, str] = {}

    def send(self, body: dict[str, Any], token: str | None = None) -> httpx.Response:
        return self.api.command(self.id, token or self.gm, body)

    def do(self, body: dict[str, Any], dice: Sequence[int] = (), token: str | None = None
           ) -> list[Event]:  # fmt: skip
        if dice:
            body = {**body, "dice": list(dice)}
        answer = self.api.ok(self.id, token or self.gm, body)
        if dice:  # the GM's physical dice are recorded as such
            assert {r["source"] for r in of(answer["events"], "die_rolled")} == {"manual"}
        events: list[Event] = answer["events"]
        return events

    def add(self, name: str, side: str, preset: str | None = None, **fields: Any) -> str:
        body: dict[str, Any] = {"type": "add_combatant", "name": name, "side": side}
        body["sheet"] = fields if preset else sheet(**fields)
        if preset:
            body["preset"] = preset
        answer = self.api.ok(self.id, self.gm, body)
        cid: str = answer["combatant_id"]
        self.players[cid] = answer["player_token"]
        return cid

    def start(self, dice: Sequence[int] = ()) -> list[Event]:
        return self.do({"type": "start_combat"}, dice)

    @staticmethod
    def _act(actor: str, action: str, target: str | None, options: dict[str, Any]
             ) -> dict[str, Any]:  # fmt: skip
        body = {"type": "act", "actor": actor, "action": action, "options": options}
        return body | ({"target": target} if target else {})

    def act(self, actor: str, action: str, target: str | None = None, dice: Sequence[int] = (),
            **options: Any) -> list[Event]:  # fmt: skip
        return self.do(self._act(actor, action, target, options), dice)

    def react(self, actor: str, reaction: str, dice: Sequence[int] = (), token: str | None = None,
              **options: Any) -> list[Event]:  # fmt: skip
        body = {"type": "react", "actor": actor, "reaction": reaction, "options": options}
        return self.do(body, dice, token)

    def end(self, actor: str) -> list[Event]:
        return self.do({"type": "end_turn", "actor": actor})

    def board(self) -> dict[str, Any]:
        return self.api.board(self.id, self.gm)

    def combatant(self, cid: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.board()["combatants"] if c["id"] == cid)
        return found

    def hp(self, cid: str) -> int:
        hp: int = self.combatant(cid)["resources"]["hp"]
        return hp

    def budget(self, cid: str) -> int:
        return int(self.combatant(cid)["status"].get("budget", 0))

    @property
    def actor(self) -> str | None:
        actor: str | None = self.board()["actor"]
        return actor

    def refused(self, body: dict[str, Any], status: int, code: str, rule: str | None,
                token: str | None = None) -> dict[str, Any]:  # fmt: skip
        """The command is refused with `code` and `rule`, and nothing is appended."""
        before = self.board()["version"]
        r = self.send(body, token)
        assert r.status_code == status, r.text
        error: dict[str, Any] = r.json()["error"]
        assert (error["code"], error.get("rule")) == (code, rule), error
        assert self.board()["version"] == before
        return error


def of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e["type"] == kind]


def duel(api: Api, settings: dict[str, Any] | None = None, a: dict[str, Any] | None = None,
         b: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    """A (INI 10) against B (INI 5), started: A has the first slot."""
    table = Table(api, settings)
    first = table.add("A", "a", **({"INI": 10} | (a or {})))
    second = table.add("B", "b", **(b or {}))
    table.start()
    return table, first, second


def milicien_fangeux(api: Api, milicien: dict[str, Any] | None = None,
                     fangeux: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    """The NA-43 stat blocks (presets), each example's changes as preset overrides."""
    table = Table(api)
    m = table.add("Milicien", "town", "milicien", **(milicien or {}))
    f = table.add("Fangeux", "swamp", "fangeux", **(fangeux or {}))
    table.start()
    return table, m, f


def last_log(table: Table) -> dict[str, Any]:
    lines = [line for line in table.board()["log"] if line["kind"] == "reaction_resolved"]
    assert lines, table.board()["log"]
    line: dict[str, Any] = lines[-1]
    return line


# --- worked examples ---------------------------------------------------------------------


def test_NA_41_NA_5_turn_order_P2_P1_P2_P2_in_both_rounds(api: Api) -> None:
    table = Table(api)
    p1 = table.add("Player 1", "a", NA=1, INI=5)
    p2 = table.add("Player 2", "b", NA=3, INI=10)
    events = table.start()
    assert not of(events, "die_rolled")  # NA-4: INI is compared, not rolled
    order: dict[int, list[str]] = {1: [], 2: []}
    while (board := table.board())["round"] <= 2:
        actor = board["actor"]
        assert actor is not None
        budget = next(c for c in board["combatants"] if c["id"] == actor)["status"]["budget"]
        if budget < 2:
            table.end(actor)  # the spare half-action: passed (NA-AMB-3)
            continue
        order[board["round"]].append(actor)
        missed = table.act(actor, "attack", p1 if actor == p2 else p2, [20])  # NA-12
        assert of(missed, "action_resolved")[0]["outcome"] == "miss"
    assert order == {1: [p2, p1, p2, p2], 2: [p2, p1, p2, p2]}
    assert [o["id"] for o in table.board()["order"]] == [p2, p1]


def test_NA_42_NA_15_the_larger_margin_prevails(api: Api) -> None:
    table, a, b = duel(api, b={"PAR": 10})
    events = table.act(a, "attack", b, [8])  # ATT 12: margin 4
    assert of(events, "die_rolled")[0]["check"]["margin"] == 4
    assert of(events, "reaction_awaited")[0]["target"] == b
    events = table.react(b, "parry", [7, 15])  # PAR 10: margin 3; location torso
    parry = of(events, "die_rolled")[0]
    assert (parry["check"]["outcome"], parry["check"]["margin"]) == ("success", 3)
    resolved = of(events, "reaction_resolved")[0]
    assert (resolved["outcome"], resolved["damage_taken"]) == ("hit", 20)
    assert table.hp(b) == 80


def test_NA_42_a_better_defense_margin_wins(api: Api) -> None:
    table, a, b = duel(api, b={"PAR": 10})
    table.act(a, "attack", b, [10])  # margin 2
    resolved = of(table.react(b, "parry", [7, 15]), "reaction_resolved")[0]  # margin 3
    assert resolved["outcome"] == "parried" and table.hp(b) == 100 - (20 + 5 - 5 - 6)


def test_NA_43_Milicien_vs_Fangeux_round_1(api: Api) -> None:
    table, m, f = milicien_fangeux(api, fangeux={"STR": 12})
    assert table.actor == f  # INI 12 > 9
    events = table.act(f, "attack", m, [9])
    assert of(events, "die_rolled")[0]["check"]["margin"] == 3
    events = table.react(m, "parry", [13, 3, 3])  # parry fails; arms; d6 3
    assert of(events, "die_rolled")[0]["check"]["outcome"] == "failure"
    assert of(events, "reaction_resolved")[0]["outcome"] == "hit"
    assert table.actor == m
    events = table.act(m, "attack", f, [9])
    assert of(events, "die_rolled")[0]["check"]["margin"] == 2
    assert (table.budget(m), table.budget(f)) == (0, 1)  # M: parry ½ + attack 1
    events = table.react(f, "dodge", [6])
    assert of(events, "reaction_resolved")[0]["outcome"] == "dodged"
    # each used one full action and one half-action: 1.5 = NA 1 + ½; round 2 begins
    assert [e["round"] for e in of(events, "round_started")] == [2]
    board = table.board()
    assert (board["round"], board["actor"]) == (2, f)
    assert (table.budget(m), table.budget(f)) == (3, 3)
    assert table.hp(f) == 70


def test_NA_44_melee_damage_not_parried_is_24(api: Api) -> None:
    table, m, f = milicien_fangeux(api, fangeux={"STR": 12})
    table.act(f, "attack", m, [9])
    events = table.react(m, "parry", [13, 3, 3])
    resolved = of(events, "reaction_resolved")[0]
    assert resolved["detail"]["zone"] == "arm_right" and resolved["damage_taken"] == 24
    assert table.hp(m) == 41
    assert "24 dégâts" in last_log(table)["text_fr"] and "PV 65 -> 41" in last_log(table)["text_fr"]


def test_NA_45_melee_damage_parried_is_19(api: Api) -> None:
    table, m, f = milicien_fangeux(api, fangeux={"STR": 12})
    table.act(f, "attack", m, [9])
    table.react(m, "parry", [13, 3, 3])
    missed = table.act(m, "attack", f, [15])  # "le milicien rate son attaque, fin du round"
    assert of(missed, "action_resolved")[0]["outcome"] == "miss"
    assert not of(missed, "reaction_awaited")  # NA-12: no defense roll
    table.end(f)  # the Fangeux passes its spare half-action
    board = table.board()
    assert (board["round"], board["actor"]) == (2, f)
    table.act(f, "attack", m, [9])
    events = table.react(m, "parry", [2, 9, 5])  # margin 7 > 3; legs; d6 5
    resolved = of(events, "reaction_resolved")[0]
    assert resolved["detail"]["zone"] == "leg_right" and resolved["outcome"] == "parried"
    assert resolved["damage_taken"] == 19 and table.hp(m) == 22
    assert "19 dégâts" in last_log(table)["text_fr"]


def test_NA_46_crossbow_damage_is_26(api: Api) -> None:
    table, m, f = milicien_fangeux(api, milicien={"INI": 13}, fangeux={"END": 11})
    assert table.actor == m
    events = table.act(m, "shoot", f, [3, 15, 7], weapon="crossbow", distance=40)
    check = of(events, "die_rolled")[0]["check"]
    assert check["threshold"] == 8 - 2  # TIR 8, one band of 30 m at 40 m (NA-AMB-15)
    assert not of(events, "reaction_awaited")  # no shield: the bolt cannot be stopped
    assert of(events, "action_resolved")[0]["detail"]["damage"] == 26
    assert table.hp(f) == 44


def test_NA_AMB_14_companion_value_with_the_sheet_FOR_10_is_20(api: Api) -> None:
    table, m, f = milicien_fangeux(api)
    table.act(f, "attack", m, [9])
    resolved = of(table.react(m, "parry", [13, 3, 3]), "reaction_resolved")[0]
    assert resolved["damage_taken"] == 20 and table.hp(m) == 45
    assert "20 dégâts" in last_log(table)["text_fr"]


def test_NA_AMB_14_companion_value_parried_with_FOR_10_is_15(api: Api) -> None:
    table, m, f = milicien_fangeux(api)
    table.act(f, "attack", m, [9])
    resolved = of(table.react(m, "parry", [2, 9, 5]), "reaction_resolved")[0]
    assert resolved["damage_taken"] == 15 and table.hp(m) == 50


def test_NA_AMB_14_companion_value_of_the_crossbow_with_END_9_is_28(api: Api) -> None:
    table, m, f = milicien_fangeux(api, milicien={"INI": 13})
    events = table.act(m, "shoot", f, [3, 15, 7], weapon="crossbow", distance=40)
    assert of(events, "action_resolved")[0]["detail"]["damage"] == 28
    assert table.hp(f) == 70 - 28


def test_NA_AMB_14_without_Dodge_the_Fangeux_would_have_been_hit(api: Api) -> None:
    table, m, f = milicien_fangeux(api, fangeux={"skills": {"dodge": False}})
    table.end(f)
    table.act(m, "attack", f, [9])
    events = table.react(f, "dodge", [6, 15, 3])
    check = of(events, "die_rolled")[0]["check"]
    assert (check["threshold"], check["margin"]) == (6, 0)  # HAB 12 / 2
    assert of(events, "reaction_resolved")[0]["outcome"] == "hit"
    assert table.hp(f) < 70


def test_NA_AMB_14_the_Fangeux_preset_has_the_Dodge_skill(api: Api) -> None:
    table, _, f = milicien_fangeux(api)
    assert table.combatant(f)["resources"] == {"hp": 70}
    rulesets = api.http.get("/api/rulesets").json()
    d20 = next(r for r in rulesets if r["id"] == "d20-na")
    assert d20["presets"]["fangeux"]["skills"]["dodge"] is True


# --- the players' tokens -------------------------------------------------------------------


def test_NA_15_a_player_defends_with_the_servers_dice(api: Api) -> None:
    table, m, f = milicien_fangeux(api)
    table.act(f, "attack", m, [9])  # margin 3
    player = table.players[m]
    events = table.react(m, "parry", token=player)
    rolls = of(events, "die_rolled")
    assert rolls and all(r["source"] == "server" for r in rolls)
    parry = rolls[0]["check"]
    resolved = of(events, "reaction_resolved")[0]
    won = parry["outcome"] == "success" and parry["margin"] > 3  # NA-15, NA-AMB-2
    assert resolved["outcome"] == ("parried" if won else "hit")
    assert table.hp(m) == 65 - resolved["damage_taken"]


def test_a_player_may_not_enter_dice_nor_defend_anothers_combatant(api: Api) -> None:
    table, m, f = milicien_fangeux(api)
    table.act(f, "attack", m, [9])
    body = {"type": "react", "actor": m, "reaction": "parry", "dice": [2, 9, 5]}
    table.refused(body, 403, "forbidden", None, token=table.players[m])
    body = {"type": "react", "actor": m, "reaction": "parry"}
    table.refused(body, 403, "forbidden", None, token=table.players[f])


# --- refusals: the rule id in error.rule, nothing appended ---------------------------------


def test_NA_2_an_action_with_no_budget_left_is_refused(api: Api) -> None:
    table, a, b = duel(api, a={"NA": 0})
    assert table.budget(a) == 1
    body = Table._act(a, "attack", b, {}) | {"dice": [20]}
    table.refused(body, 409, "budget_exhausted", "NA-2")


def test_NA_AMB_4_a_fourth_parry_in_a_round_is_refused(api: Api) -> None:
    table, a, b = duel(api, a={"NA": 4}, b={"NA": 3, "skills": {"dodge": True}})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [1, 15])
    table.end(b)  # B passes
    for _ in range(2):
        table.act(a, "attack", b, [5])
        table.react(b, "parry", [1, 15])
    assert table.budget(b) == 7 - 1 - 2 - 2
    table.act(a, "attack", b, [5])
    body = {"type": "react", "actor": b, "reaction": "parry", "dice": [1]}
    table.refused(body, 409, "limit_reached", "NA-AMB-4")
    assert table.board()["pending"][0]["target"] == b  # still waiting for B's answer
    events = table.react(b, "dodge", [1])
    assert of(events, "reaction_resolved")[0]["outcome"] == "dodged"


def test_NA_32_a_ranged_attack_cannot_be_dodged(api: Api) -> None:
    table, a, b = duel(api, a={"weapons": [BOW]}, b={"shield": SHIELD, "skills": {"dodge": True}})
    events = table.act(a, "shoot", b, [5])
    assert of(events, "reaction_awaited")[0]["options"] == ["parry", "none"]
    body = {"type": "react", "actor": b, "reaction": "dodge"}
    table.refused(body | {"dice": [1]}, 422, "rule_violation", "NA-32")
    table.refused(body, 422, "rule_violation", "NA-32", token=table.players[b])
    events = table.react(b, "parry", token=table.players[b])  # the shield may still parry
    assert of(events, "reaction_resolved")


def test_NA_19_a_two_handed_weapon_with_a_shield_is_invalid(api: Api) -> None:
    table = Table(api)
    bow = {"name": "bow", "kind": "shoot", "dmg": 8, "two_handed": True}
    body = {
        "type": "add_combatant",
        "name": "archer",
        "side": "a",
        "sheet": sheet(weapons=[bow], shield={"name": "buckler", "parry": 3}),
    }
    table.refused(body, 422, "rule_violation", "NA-19")
    assert table.board()["combatants"] == []


def test_NA_8_no_charge_while_engaged_in_melee(api: Api) -> None:
    table, a, b = duel(api, a={"NA": 3})
    table.act(a, "attack", b, [20])
    table.end(b)
    assert table.actor == a
    table.refused(Table._act(a, "charge", b, {}), 422, "rule_violation", "NA-8")
    legal = {x["action"]: x for x in table.board()["legal"][a]}  # what the console offers
    assert (legal["charge"]["enabled"], legal["charge"]["rule"]) == (False, "NA-8")
