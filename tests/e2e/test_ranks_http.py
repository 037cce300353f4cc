"""ranks-d100 through the HTTP API, the GM entering the printed dice (`"dice": [..]`):
the worked example J1 vs J2 (RK-74), RK-75..RK-78, and refusals that name their rule
and append nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Api
from tests.e2e.test_http import version_of

AS_PRINTED = {"tables": {"reduction.master.B": 30}}


def master(**stats: Any) -> dict[str, Any]:
    """A Master with C everywhere unless told otherwise."""
    sheet: dict[str, Any] = {"kind": "master", "MAGIC": "C"}
    sheet.update({s: "C" for s in ("STR", "END", "AGI", "MANA_STAT", "LCK")})
    sheet.update(stats)
    return sheet


def servant(**stats: Any) -> dict[str, Any]:
    """A Servant with C everywhere unless told otherwise."""
    sheet: dict[str, Any] = {"kind": "servant", "NP": "C", "rarity": 1}
    sheet.update({s: "C" for s in ("STR", "END", "AGI", "MANA_STAT", "LCK")})
    sheet.update(stats)
    return sheet


class Table:
    """One ranks-d100 encounter driven over HTTP by its GM."""

    def __init__(self, api: Api, settings: dict[str, Any] | None = None) -> None:
        made = api.create("ranks-d100", settings=settings or {})
        self.api, self.id, self.gm = api, made["id"], made["gm_token"]

    def add(
        self, name: str, side: str, sheet: dict[str, Any] | None = None, preset: str | None = None
    ) -> str:
        body: dict[str, Any] = {"type": "add_combatant", "name": name, "side": side}
        body |= {"sheet": sheet} if sheet is not None else {}
        body |= {"preset": preset} if preset is not None else {}
        cid: str = self.api.ok(self.id, self.gm, body)["combatant_id"]
        return cid

    def do(self, body: dict[str, Any], *dice: int) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.api.ok(
            self.id, self.gm, {**body, **({"dice": list(dice)} if dice else {})}
        )["events"]
        return events

    def act(self, actor: str, action: str, *dice: int, **fields: Any) -> list[dict[str, Any]]:
        return self.do({"type": "act", "actor": actor, "action": action, **fields}, *dice)

    def react(self, actor: str, reaction: str, *dice: int, **opts: Any) -> list[dict[str, Any]]:
        body = {"type": "react", "actor": actor, "reaction": reaction, "options": opts}
        return self.do(body, *dice)

    def end_turn(self, actor: str) -> None:
        self.do({"type": "end_turn", "actor": actor})

    def board(self) -> dict[str, Any]:
        return self.api.board(self.id, self.gm)

    def c(self, cid: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.board()["combatants"] if c["id"] == cid)
        return found

    def pending_damage(self) -> int:
        damage: int = self.board()["pending"][0]["damage"]
        return damage

    def refused(self, body: dict[str, Any], *dice: int, status: int = 0) -> dict[str, Any]:
        """The command is refused with a rule id, and the stream does not move; a
        rule_violation is 422 and the state's other refusals 409, unless `status` says."""
        before = version_of(self.api, self.id)
        r = self.api.command(self.id, self.gm, {**body, **({"dice": list(dice)} if dice else {})})
        code = r.json()["error"]["code"]
        assert r.status_code == (status or (422 if code == "rule_violation" else 409)), r.text
        assert version_of(self.api, self.id) == before
        error: dict[str, Any] = r.json()["error"]
        return error


def duel(
    api: Api, a: dict[str, Any], b: dict[str, Any], settings: dict[str, Any] | None = None
) -> tuple[Table, str, str]:
    """Two combatants on opposite sides, combat started, the first one acting."""
    t = Table(api, settings)
    c1, c2 = t.add("A", "a", a), t.add("B", "b", b)
    t.do({"type": "start_combat"}, 99, 1)
    assert t.board()["actor"] == c1
    return t, c1, c2


def only_check(events: list[dict[str, Any]]) -> dict[str, Any]:
    found = [
        e["data"]["check"]
        for e in events
        if e["type"] == "die_rolled" and e["data"].get("check") is not None
    ]
    assert len(found) == 1, found
    check: dict[str, Any] = found[0]
    return check


def manual(events: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    return [(e["data"]["source"], e["data"]["faces"]) for e in events if e["type"] == "die_rolled"]


# --- RK-74: J1 against J2 -------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "taken"), [({}, 10), (AS_PRINTED, 5)], ids=["by_rules", "as_printed"]
)
def test_RK_74_j1_against_j2_with_the_printed_dice(
    api: Api, settings: dict[str, Any], taken: int
) -> None:
    t = Table(api, settings)
    assert t.board()["encounter"]["settings"] == settings
    j1, j2 = t.add("J1", "j1", preset="J1"), t.add("J2", "j2", preset="J2")
    assert t.c(j1)["resources"] == {"hp": 70, "mana": 100, "luck": 2}
    assert t.c(j2)["resources"] == {"hp": 60, "mana": 50, "luck": 7}
    # 74.1: J1 rolls 90 + 30 = 120, J2 65 + 20 = 85; J1 acts first.
    events = t.do({"type": "roll_initiative"}, 90, 65)
    assert manual(events) == [("manual", [90]), ("manual", [65])]
    board = t.board()
    assert [(o["id"], o["score"]) for o in board["order"]] == [(j1, 120), (j2, 85)]
    t.do({"type": "start_combat"})
    assert t.board()["actor"] == j1
    # 74.2-74.4: a rank-A magic attack on Mana EX rolls 11: 75/100 mana, 35 damage.
    check = only_check(t.act(j1, "attack_magic", 11, target=j2, rank="A"))
    assert (check["stat"], check["threshold"], check["outcome"]) == ("MANA_STAT", 90, "success")
    assert (t.c(j1)["resources"]["mana"], t.c(j1)["maxima"]["mana"]) == (75, 100)
    assert t.pending_damage() == 35
    # 74.5: J2's Luck die, 8 on Luck EX: +35, 6 uses left.
    luck = only_check(t.act(j2, "luck", 8))
    assert (luck["threshold"], luck["outcome"]) == (90, "success")
    assert t.c(j2)["resources"]["luck"] == 6
    # 74.6: the Agility dodge at 60 + 35 = 95, roll 46.
    events = t.react(j2, "defend_agi", 46)
    dodge = only_check(events)
    assert (dodge["base"], dodge["threshold"], dodge["outcome"]) == (60, 95, "success")
    assert [(m["rule"], m["delta"]) for m in dodge.get("modifiers", [])] == [("RK-50", 35)]
    # 74.7-74.8: 35 - 25 = 10 by the tables; 35 - 30 = 5 as printed (RK-AMB-2).
    resolved = [e for e in events if e["type"] == "reaction_resolved"]
    assert resolved[-1]["data"]["damage_taken"] == taken
    assert t.c(j2)["resources"]["hp"] == 60 - taken
    # 74.9: J2's turn, no luck, a rank-A Force attack rolls 71: failure, no damage.
    t.end_turn(j1)
    assert t.board()["actor"] == j2
    check = only_check(t.act(j2, "attack_physical", 71, target=j1, rank="A"))
    assert (check["threshold"], check["outcome"]) == (70, "failure")
    assert check.get("modifiers", []) == []
    board = t.board()
    assert board["pending"] == [] and t.c(j1)["resources"]["hp"] == 70
    # Every die was the GM's, recorded as manual, and the chain verifies.
    t.do({"type": "close"})
    report = api.http.get(f"/api/encounters/{t.id}/verify").json()
    assert report["chain"] and report["dice"]


def test_RK_74_j1_and_j2_are_the_first_presets_so_the_demo_pits_them(api: Api) -> None:
    rulesets = api.http.get("/api/rulesets").json()
    ranks = next(r for r in rulesets if r["id"] == "ranks-d100")
    assert list(ranks["presets"])[:2] == ["J1", "J2"]


# --- RK-75 .. RK-78 -------------------------------------------------------------------


def test_RK_75_e_plus_plus_activated_goes_from_30_to_50(api: Api) -> None:
    t, a, b = duel(api, master(), master(END="E++"), {"pool.base_hp": 60})
    t.act(a, "attack_physical", 10, target=b)
    check = only_check(t.react(b, "defend_end", 50, activate=["END"]))
    assert check["stat"] == "END" and check["base"] == 30
    assert [(m["rule"], m["delta"]) for m in check.get("modifiers", [])] == [("RK-6", 20)]
    assert (check["threshold"], check["outcome"]) == (50, "success")


def test_RK_76_half_rank_values_follow_the_step_rule_on_the_tables(api: Api) -> None:
    t, a, b = duel(api, servant(STR="E-"), master())
    t.act(a, "attack_physical", 10, target=b)
    assert t.pending_damage() == 19  # RK-AMB-3
    t, a, b = duel(api, master(STR="E+++"), master())
    t.act(a, "attack_physical", 10, target=b)
    assert t.pending_damage() == 8


def test_RK_77_critical_examples(api: Api) -> None:
    t, a, b = duel(api, master(STR="A"), master(STR="B", END="EX"))  # 100 HP: no malus
    assert only_check(t.act(a, "attack_physical", 2, target=b))["outcome"] == "critical_success"
    t.react(b, "none")
    t.end_turn(a)
    assert only_check(t.act(b, "attack_physical", 98, target=a))["outcome"] == "critical_failure"
    t.end_turn(b)
    check = only_check(t.act(a, "attack_physical", 76, target=b))
    assert (check["threshold"], check["outcome"]) == (80, "success")
    assert [(m["rule"], m["delta"]) for m in check.get("modifiers", [])] == [("RK-72", 10)]
    t.react(b, "none")
    t.end_turn(a)
    check = only_check(t.act(b, "attack_physical", 55, target=a))
    assert (check["threshold"], check["outcome"]) == (50, "failure")


def test_RK_78_inline_vectors(api: Api) -> None:
    t, a, b = duel(api, master(STR="B", MANA_STAT="A"), master())
    body = {"type": "act", "actor": a, "target": b}
    assert t.refused({**body, "action": "attack_physical", "rank": "A"})["rule"] == "RK-35"
    assert t.refused({**body, "action": "attack_magic", "rank": "EX"})["rule"] == "RK-49"
    t.act(a, "attack_physical", 60, target=b, rank="B")
    assert t.board()["pending"][0]["rank"] == "B"


# --- refusals: the rule id in error.rule, nothing appended ------------------------------


def test_RK_8_a_second_activation_of_the_same_stat_in_one_rp_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(STR="C+", END="C+"), master())
    t.act(a, "attack_physical", 90, target=b, options={"activate": ["STR"]})
    t.end_turn(a)
    t.act(b, "attack_physical", 10, target=a)
    # Another stat's half-ranks are still available (tracked per stat).
    assert only_check(t.react(a, "defend_end", 90, activate=["END"]))["threshold"] == 60
    t.end_turn(b)
    body = {
        "type": "act",
        "actor": a,
        "action": "attack_physical",
        "target": b,
        "options": {"activate": ["STR"]},
    }
    error = t.refused(body, 10)
    assert (error["code"], error["rule"]) == ("limit_reached", "RK-8")


def test_RK_51_a_luck_roll_with_no_uses_left_is_refused(api: Api) -> None:
    t, a, _ = duel(api, master(luck_left=0), master())
    error = t.refused({"type": "act", "actor": a, "action": "luck"}, 10)
    assert (error["code"], error["rule"]) == ("limit_reached", "RK-51")


def test_RK_35_a_physical_attack_above_the_force_rank_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(STR="B"), master())
    body = {"type": "act", "actor": a, "action": "attack_physical", "target": b, "rank": "A"}
    error = t.refused(body, 10)
    assert (error["code"], error["rule"]) == ("rule_violation", "RK-35")


def test_RK_61_a_counter_of_another_type_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(STR="B"), master(MANA_STAT="A"))
    t.act(a, "attack_physical", 10, target=b)
    body = {
        "type": "react",
        "actor": b,
        "reaction": "counter",
        "options": {"action": "attack_magic"},
    }
    error = t.refused(body, 10)
    assert (error["code"], error["rule"]) == ("rule_violation", "RK-61")


def test_RK_62_a_counter_of_a_lower_rank_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(STR="B"), master(STR="A"))
    t.act(a, "attack_physical", 10, target=b)
    body = {
        "type": "react",
        "actor": b,
        "reaction": "counter",
        "options": {"action": "attack_physical", "rank": "C"},
    }
    error = t.refused(body, 10)
    assert (error["code"], error["rule"]) == ("rule_violation", "RK-62")
    # The same counter at rank A is allowed and blocks everything (RK-60, RK-63).
    events = t.react(b, "counter", 10, action="attack_physical", rank="A")
    resolved = [e["data"] for e in events if e["type"] == "reaction_resolved"]
    assert (resolved[0]["outcome"], resolved[0]["damage_taken"]) == ("countered", 0)


def test_RK_17_a_second_complex_action_in_a_phase_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(), master())
    t.act(a, "attack_physical", 90, target=b)
    error = t.refused({"type": "act", "actor": a, "action": "attack_magic", "target": b}, 10)
    assert (error["code"], error["rule"]) == ("limit_reached", "RK-17")


def test_RK_AMB_20_a_magic_attack_without_the_mana_is_refused(api: Api) -> None:
    t, a, b = duel(api, master(mana=4), master())
    body = {"type": "act", "actor": a, "action": "attack_magic", "target": b, "rank": "E"}
    error = t.refused(body, 10)
    assert (error["code"], error["rule"]) == ("insufficient_mana", "RK-AMB-20")


def test_RK_26_a_combatant_who_left_the_rp_at_0_mana_can_no_longer_act(api: Api) -> None:
    t, a, b = duel(api, master(MANA_STAT="E", mana=5), master())
    events = t.act(a, "attack_magic", 90, target=b, rank="E")  # costs 5, fails
    defeated = [e["data"] for e in events if e["type"] == "combatant_defeated"]
    assert [d["rule"] for d in defeated] == ["RK-26"]
    # One side left: no one is handed the turn, the board offers to close or continue.
    shown = t.board()
    assert t.c(a)["out"] is not None and shown["actor"] is None and shown["decided"] is True
    error = t.refused({"type": "act", "actor": a, "action": "luck"}, 10)
    assert (error["code"], error["rule"]) == ("rule_violation", "RK-26")


def test_gm_dice_that_are_not_used_are_refused_and_nothing_is_appended(api: Api) -> None:
    t, a, b = duel(api, master(), master())
    error = t.refused(
        {"type": "act", "actor": a, "action": "attack_physical", "target": b}, 10, 20, status=422
    )
    assert error["code"] == "invalid"
