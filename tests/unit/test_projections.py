"""The projections: given the events of a plain-d100 fight, then the board, the log, the
audit record of a roll and the exports say exactly what happened, per role."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
import pytest

from domain import commands as c
from domain import events as ev
from domain.chain import GENESIS, first_break, link
from domain.dice import FixedRoller, Roller, SeededRoller, commitment
from domain.encounter import decide, evolve, open_encounter
from domain.state import GM, EncounterState, Principal
from projections.audit import audit, audit_text
from projections.board import LOG_LINES, board
from projections.export import bbcode, bundle, last_turn, markdown, text
from projections.filter import filter_events, visible
from projections.view import Projection, fold

ENCOUNTER = "5f0c8a6e-9d2b-4c71-8e3a-0b6d4f2a9c15"
STREAM = f"encounter-{ENCOUNTER}"
MAIN = bytes(range(32))  # draws 100, 20, 23, 81 as rolls 1..4 of this encounter
HIDDEN = bytes(range(100, 132))
ALICE = Principal("player", frozenset({"c2"}), name="alice")


class Table:
    """An encounter being played: the domain decides, the table keeps chained envelopes."""

    def __init__(self, faces: Iterable[int] = (), dice: Roller | None = None) -> None:
        self.state = EncounterState()
        self.envelopes: list[dict[str, Any]] = []
        self.dice: Roller = dice if dice is not None else FixedRoller(faces)
        seeds = {"main": (commitment(MAIN), False), "hidden": (commitment(HIDDEN), True)}
        self.record(open_encounter(ENCOUNTER, "plain-d100", "Ambush at the ford", {}, seeds))

    def do(self, command: c.Command, who: Principal = GM) -> list[ev.Event]:
        events = decide(self.state, command, self.dice, who)
        self.record(events, who.name)
        return events

    def record(self, events: Sequence[ev.Event], actor: str = "gm") -> None:
        """Append events as the store would: gapless versions, one command id, a hash chain."""
        command_id = f"command-{len(self.envelopes) + 1}"
        for event in events:
            evolve(self.state, event)
            kind, data = ev.event_data(event)
            prev = self.envelopes[-1]["hash"] if self.envelopes else GENESIS
            envelope: dict[str, Any] = {
                "stream": STREAM,
                "version": self.state.version,
                "position": 100 + self.state.version,
                "type": kind,
                "data": data,
                "meta": {
                    "command_id": command_id,
                    "actor": actor,
                    "recorded_at": "2025-05-01T20:00:00Z",
                    "rules_version": "1",
                },
                "prev_hash": prev,
            }
            envelope["hash"] = link(prev, envelope)
            self.envelopes.append(envelope)

    def board(self, role: str = "gm") -> dict[str, Any]:
        return board(fold(self.envelopes), role)

    def texts(self, role: str = "gm", since: int = 0) -> list[str]:
        lines = board(fold(self.envelopes), role)["log"]
        return [line["text"] for line in lines if line["version"] > since]


def guard_and_bandit(table: Table, bandit_secret_hp: bool = False) -> Table:
    """Guard (Watch, c1) and Bandit (Bandits, c2, played by alice), no fight yet."""
    table.do(c.AddCombatant(name="Guard", side="Watch", preset="guard"))
    added = decide(
        table.state,
        c.AddCombatant(name="Bandit", side="Bandits", preset="bandit", controller="alice"),
        table.dice,
    )
    if bandit_secret_hp:
        added = [msgspec.structs.replace(added[0], gm_only=["hp"])]
    table.record(added)
    return table


def fight(faces: Iterable[int] = (), **kwargs: Any) -> Table:
    """Guard and Bandit, combat started: initiative d100 faces 50 (Guard, +5) and 20."""
    table = guard_and_bandit(Table([50, 20, *faces]), **kwargs)
    table.do(c.StartCombat())
    return table


# --- the projection itself ------------------------------------------------------------


def test_a_projection_knows_its_version_and_refuses_a_gap() -> None:
    envelopes = fight().envelopes
    proj = Projection()
    for envelope in envelopes[:5]:
        proj.apply(envelope)
    assert proj.version == 5
    with pytest.raises(ValueError, match=r"expected version 6 .* got 7"):
        proj.apply(envelopes[6])
    assert proj.version == 5


def test_a_projection_refuses_an_event_it_already_applied() -> None:
    envelopes = fight().envelopes
    proj = fold(envelopes[:3])
    with pytest.raises(ValueError, match="expected version 4"):
        proj.apply(envelopes[2])


def test_a_projection_stops_at_an_event_it_cannot_fold() -> None:
    envelopes = fight().envelopes
    bad = {**envelopes[3], "data": {"name": "nobody"}}  # a combatant_added missing fields
    proj = fold(envelopes[:3])
    with pytest.raises(ValueError, match="cannot fold version 4 \\(combatant_added\\)"):
        proj.apply(bad)
    with pytest.raises(ValueError, match="stopped at version 4"):
        proj.apply(envelopes[3])


def test_a_projection_refuses_another_streams_event() -> None:
    envelopes = fight().envelopes
    proj = fold(envelopes[:3])
    with pytest.raises(ValueError, match="belongs to 'encounter-other'"):
        proj.apply({**envelopes[3], "stream": "encounter-other"})


# --- the log --------------------------------------------------------------------------


def test_the_log_tells_a_fight_in_words_with_names_one_line_per_step() -> None:
    table = fight([10, 90])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="dodge"), ALICE)
    table.do(c.EndTurn(actor="c1"))
    assert table.texts() == [
        "Encounter “Ambush at the ford” opened (Plain d100)",
        f"Dice committed: sha256 {commitment(MAIN)[:12]}…",
        f"Hidden dice committed: sha256 {commitment(HIDDEN)[:12]}…",
        "Guard joins side Watch",
        "Bandit joins side Bandits",
        "Initiative: Guard 55, Bandit 20",
        "The fight begins",
        "Round 1",
        "Guard's turn",
        "Guard hits Bandit: 10 against 55, 8 to avoid",
        "Bandit fails to dodge (90 against 40): 8 damage, HP 24 -> 16",
        "Bandit's turn",
    ]


def test_the_french_log_says_the_same_facts() -> None:
    table = fight([10, 90])
    start = table.state.version
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="dodge"), ALICE)
    lines = [line["text_fr"] for line in table.board()["log"] if line["version"] > start]
    assert lines == [
        "Guard touche Bandit : 10 pour 55, 8 à éviter",
        "Bandit ne parvient pas à esquiver (90 pour 40) : 8 dégâts, PV 24 -> 16",
    ]


def test_a_step_carries_the_rolls_it_absorbed_and_its_rule() -> None:
    table = fight([10, 90])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="dodge"), ALICE)
    hit, answer = table.board()["log"][-2:]
    assert (hit["kind"], hit["rolls"], hit["actor"], hit["outcome"]) == (
        "action_resolved",
        [3],
        "c1",
        "success",
    )
    assert (answer["rolls"], answer["rule"], answer["outcome"]) == ([4], "PD-4", "hit")
    initiative = next(x for x in table.board()["log"] if x["kind"] == "initiative_set")
    assert initiative["rolls"] == [1, 2]


def test_a_free_roll_is_its_own_line_with_its_number_and_faces() -> None:
    table = fight([4, 5])
    table.do(c.Roll(expr="2d6+3", purpose="morale"), ALICE)
    line = table.board()["log"][-1]
    assert line == {
        "version": 12,
        "kind": "die_rolled",
        "text": "alice rolls 2d6+3 for morale: 12 (4, 5)",
        "text_fr": "alice lance 2d6+3 (morale) : 12 (4, 5)",
        "roll": 3,
        "faces": [4, 5],
    }  # the fields at their defaults (no actor, outcome, rule...) are left out


def test_undo_strikes_the_undone_steps_with_its_reason() -> None:
    table = fight([10])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="none"))
    start = table.state.version
    table.do(c.Dispute(roll=3, reason="the die fell off the table"), ALICE)
    table.do(c.Adjust(combatant="c1", resource="hp", delta=-3, reason="trap"))
    table.do(c.Undo(reason="oops"))
    lines = [x for x in table.board()["log"] if x["version"] > start]
    assert [(x["text"], x.get("undone")) for x in lines] == [
        ("Roll 3 disputed by alice: the die fell off the table", None),
        ("GM sets Guard's HP: 30 -> 27 (trap)", "oops"),
        (f"GM undid the steps after version {start + 1}: oops", None),
    ]
    assert table.board()["combatants"][0]["resources"] == {"hp": 30}
    post = bbcode(table.envelopes, "public")
    assert "[s]GM sets Guard's HP: 30 -> 27 (trap)[/s] (undone: oops)" in post
    assert "~~GM sets Guard's HP: 30 -> 27 (trap)~~ (undone: oops)" in markdown(
        table.envelopes, "public"
    )


def test_bookkeeping_says_nothing() -> None:
    table = fight([10, 90])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    kinds = {x["kind"] for x in table.board()["log"]}
    assert not kinds & {"status_set", "limit_used", "turn_ended", "action_declared",
                        "reaction_awaited"}  # fmt: skip


def test_a_fallen_combatant_is_named_and_the_other_side_wins() -> None:
    table = fight([3, 10])
    table.do(c.Act(actor="c1", action="attack", target="c2"))  # critical: 16 damage
    table.do(c.React(actor="c2", reaction="none"), ALICE)
    assert table.board()["winner"] is None
    table.do(c.EndTurn(actor="c1"))
    table.do(c.EndTurn(actor="c2"), ALICE)
    start = table.state.version
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="none"), ALICE)
    assert table.texts(since=start) == [
        "Guard hits Bandit: 10 against 55, 8 to avoid",
        "Bandit does not defend: 8 damage, HP 8 -> 0",
        "Bandit is out of the fight: down",
    ]
    view = table.board()
    assert view["winner"] == "Watch"
    bandit = view["combatants"][1]
    assert (bandit["out"], bandit["out_text"], bandit["out_text_fr"]) == ("down", "down", "à terre")


# --- the board ------------------------------------------------------------------------


def test_before_the_fight_the_board_lists_combatants_by_side() -> None:
    view = guard_and_bandit(Table()).board()
    assert view["encounter"] == {
        "id": ENCOUNTER,
        "name": "Ambush at the ford",
        "ruleset": "plain-d100",
        "settings": {},
        "closed": False,
        "campaign": None,
    }
    assert (view["version"], view["round"], view["actor"], view["started"]) == (5, 0, None, False)
    assert view["sides"] == ["Watch", "Bandits"]
    assert view["combatants"] == [
        {
            "id": "c1",
            "name": "Guard",
            "side": "Watch",
            "controller": None,
            "resources": {"hp": 30},
            "maxima": {"hp": 30},
            "out": None,
            "out_text": None,
            "out_text_fr": None,
            "status": {},
            "conditions": [],
            "chips": [],
            "labels": {"hp": "HP"},
            "labels_fr": {"hp": "PV"},
            "kinds": {"hp": "hp"},
            "hidden": [],
            "sheet": {"skill": 55, "dodge": 30, "damage": 8, "hp": 30, "initiative": 5},
            "gm_only": [],
        },
        {
            "id": "c2",
            "name": "Bandit",
            "side": "Bandits",
            "controller": "alice",
            "resources": {"hp": 24},
            "maxima": {"hp": 24},
            "out": None,
            "out_text": None,
            "out_text_fr": None,
            "status": {},
            "conditions": [],
            "chips": [],
            "labels": {"hp": "HP"},
            "labels_fr": {"hp": "PV"},
            "kinds": {"hp": "hp"},
            "hidden": [],
            "sheet": {"skill": 45, "dodge": 40, "damage": 6, "hp": 24, "initiative": 0},
            "gm_only": [],
        },
    ]
    assert view["order"] == []
    assert view["legal"] == {}
    assert view["winner"] is None
    assert (view["phase_text"], view["phase_text_fr"]) == ("", "")
    assert view["dice"] == {
        "commitments": {"main": commitment(MAIN), "hidden": commitment(HIDDEN)},
        "revealed": [],
        "rolls": 0,
    }


def test_once_combat_starts_the_board_shows_whose_turn_and_what_they_may_do() -> None:
    view = fight().board()
    assert (view["round"], view["actor"], view["started"], view["phase"]) == (1, "c1", True, "")
    assert view["order"] == [
        {"id": "c1", "name": "Guard", "score": 55},
        {"id": "c2", "name": "Bandit", "score": 20},
    ]
    assert view["legal"] == {
        "c1": [
            {
                "action": "attack",
                "enabled": True,
                "reason": "",
                "rule": "PD-2",
                "targets": ["c2"],
                "chance": 55,  # PD-1: d100 <= the guard's skill 55
                "stat": "skill",
                "threshold": 55,
                "die": "d100",
                "reason_fr": "",
            },
            {"action": "second_wind", "enabled": True, "reason": "", "rule": "PD-3",
             "targets": [], "reason_fr": ""},
        ]
    }  # fmt: skip
    assert view["pending"] == []
    assert view["dice"]["rolls"] == 2


def test_a_hit_leaves_a_pending_attack_the_target_must_answer() -> None:
    table = fight([10])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    view = table.board("public")
    assert view["pending"] == [
        {
            "id": 1,
            "attacker": "c1",
            "attacker_name": "Guard",
            "target": "c2",
            "target_name": "Bandit",
            "action": "attack",
            "rank": None,
            "damage": 8,
            "options": ["dodge", "none"],
            "text": "Bandit must answer Guard's attack (8 damage)",
            "text_fr": "Bandit doit répondre à Guard (attaque, 8 points)",
        }
    ]
    assert sorted(view["legal"]) == ["c1", "c2"]
    attack = view["legal"]["c1"][0]
    assert (attack["enabled"], attack["reason"]) == (False, "not your turn")
    assert attack["reason_fr"] == "ce n'est pas votre tour"


def test_after_the_answer_and_the_end_of_turn_the_board_moves_on() -> None:
    table = fight([10, 90])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="dodge"), ALICE)
    view = table.board()
    assert view["pending"] == []
    assert view["combatants"][1]["resources"] == {"hp": 16}
    assert view["legal"]["c1"][0]["reason"] == "already attacked"
    table.do(c.EndTurn(actor="c1"))
    view = table.board()
    assert (view["round"], view["actor"]) == (1, "c2")
    assert list(view["legal"]) == ["c2"]
    assert view["legal"]["c2"][0]["targets"] == ["c1"]


def test_the_public_board_hides_gm_only_resources() -> None:
    table = fight([10], bandit_secret_hp=True)
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="none"), ALICE)
    public = table.board("public")["combatants"][1]
    assert (public["resources"], public["maxima"], public["hidden"]) == (
        {"hp": None},
        {"hp": None},
        ["hp"],
    )
    gm = table.board("gm")["combatants"][1]
    assert (gm["resources"], gm["hidden"]) == ({"hp": 16}, [])
    assert "Bandit's HP: 24 -> 16" in table.texts("gm")  # the GM's own line, no damage
    # The public reads the outcome of a blow on a combatant the GM keeps secret, no number.
    assert "Bandit does not defend: 8 damage" in table.texts("gm")
    assert "Bandit: no defense" in table.texts("public")
    assert not any("-> 16" in line or "8 damage" in line for line in table.texts("public"))


def test_a_hidden_roll_is_on_the_gm_board_only() -> None:
    table = fight([17])
    table.do(c.Roll(expr="1d20", hidden=True, purpose="ambush"))
    table.do(c.Dispute(roll=3, reason="too convenient"))
    gm, public = table.board("gm"), table.board("public")
    assert gm["log"][-2:] == [
        {
            "version": 12,
            "kind": "die_rolled",
            "text": "GM rolls 1d20 for ambush: 17 [hidden]",
            "text_fr": "Le MJ lance 1d20 (ambush) : 17 [caché]",
            "roll": 3,
            "faces": [17],
            "hidden": True,
        },
        {
            "version": 13,
            "kind": "roll_disputed",
            "text": "Roll 3 disputed by GM: too convenient",
            "text_fr": "Jet 3 contesté par le MJ : too convenient",
            "hidden": True,
        },
    ]
    assert [line["version"] for line in public["log"]][-1] == 11
    assert gm["disputes"] == [
        {
            "roll": 3,
            "by": "gm",
            "by_name": "GM",
            "reason": "too convenient",
            "status": "open",
            "answer": None,
        }
    ]
    assert public["disputes"] == []
    assert (gm["dice"]["rolls"], public["dice"]["rolls"]) == (3, 2)
    assert public["dice"]["commitments"]["hidden"] == commitment(HIDDEN)


def test_the_board_is_plain_json_without_floats() -> None:
    table = fight([10])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    for role in ("gm", "public"):
        view = table.board(role)
        assert msgspec.json.decode(msgspec.json.encode(view)) == view
        assert b"." not in msgspec.json.encode(view["combatants"])


def test_the_log_on_the_board_keeps_the_last_log_lines() -> None:
    table = fight([5] * 120)
    for _ in range(120):
        table.do(c.Roll(expr="1d6"))
    log = table.board()["log"]
    assert len(log) == LOG_LINES == 30
    assert log[-1]["version"] == table.state.version


# --- filtering events -----------------------------------------------------------------


def test_players_do_not_receive_hidden_rolls_or_secret_resource_changes() -> None:
    table = fight([10, 4], bandit_secret_hp=True)
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="none"), ALICE)
    table.do(c.Roll(expr="1d6", hidden=True))
    everything = table.envelopes
    kinds = [e["type"] for e in filter_events(everything, "player")]
    assert len(filter_events(everything, "gm")) == len(everything)
    assert kinds.count("die_rolled") == 3
    assert "resource_changed" not in kinds
    assert len(kinds) == len(everything) - 2
    hidden_roll = everything[-1]
    assert not visible(hidden_roll, "spectator")
    assert visible(hidden_roll, "gm")


def test_a_slice_is_filtered_with_what_the_caller_already_knows() -> None:
    table = fight([10], bandit_secret_hp=True)
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    start = len(table.envelopes)
    table.do(c.React(actor="c2", reaction="none"), ALICE)
    tail = table.envelopes[start:]
    assert "resource_changed" in [e["type"] for e in filter_events(tail, "player")]
    kept = filter_events(tail, "player", secret={("c2", "hp")})
    assert "resource_changed" not in [e["type"] for e in kept]


# --- the audit of a roll --------------------------------------------------------------


def seeded(table: Table) -> SeededRoller:
    return SeededRoller(
        ENCOUNTER, {"main": MAIN, "hidden": HIDDEN}, table.state.ledger.next_roll, ""
    )


def seeded_attack() -> Table:
    """A fight on the server's dice: initiative 100+5 and 20, then Guard's attack rolls 23."""
    table = guard_and_bandit(Table())
    table.dice = seeded(table)
    table.do(c.StartCombat())
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    return table


def test_the_audit_of_an_attack_roll_gives_its_whole_provenance() -> None:
    table = seeded_attack()
    rolled = table.envelopes[13]
    record = audit(table.envelopes, 3, "public")
    assert record == {
        "roll": 3,
        "version": 14,
        "hash": rolled["hash"],
        "actor": "c1",
        "actor_name": "Guard",
        "purpose": "attack on Bandit",
        "purpose_fr": "attaque contre Bandit",
        "expr": "d100",
        "sizes": [100],
        "faces": [23],
        "total": 23,
        "check": {
            "stat": "skill",
            "base": 55,
            "modifiers": [],
            "threshold": 55,
            "outcome": "success",
            "margin": 32,
            "under": True,
            "rule": "PD-1",
        },
        "rules": ["PD-2", "PD-1"],
        "action": {
            "version": 12,
            "type": "action_declared",
            "actor": "c1",
            "actor_name": "Guard",
            "code": "attack",
            "label": "Attack",
            "label_fr": "Attaque",
            "target": "c2",
            "target_name": "Bandit",
            "rank": None,
            "rule": "PD-2",
            "text": "Guard declares attack against Bandit",
            "text_fr": "Guard déclare : attaque contre Bandit",
        },
        "seed_id": "main",
        "roll_number": 3,
        "client_seed": "",
        "source": "server",
        "hidden": False,
        "commitment": commitment(MAIN),
        "revealed_at": None,
        "proof": "committed",
        "proof_detail": "seed main is not revealed yet; its commitment is public",
        "disputes": [],
    }


def test_a_roll_is_verified_once_its_seed_is_revealed() -> None:
    table = seeded_attack()
    table.do(c.Close(reason="the bandit flees"))
    table.record([ev.SeedRevealed(seed_id="main", seed=MAIN.hex())])
    record = audit(table.envelopes, 3, "public")
    assert record is not None
    assert (record["proof"], record["revealed_at"]) == ("verified", table.state.version)
    assert first_break(table.envelopes) is None


def test_a_seed_that_does_not_match_its_commitment_is_a_mismatch() -> None:
    table = seeded_attack()
    table.record([ev.SeedRevealed(seed_id="main", seed=bytes(32).hex())])
    record = audit(table.envelopes, 3, "gm")
    assert record is not None
    assert record["proof"] == "mismatch"
    assert record["proof_detail"] == "the seed revealed for main does not match its commitment"


def test_faces_the_revealed_seed_does_not_give_are_a_mismatch() -> None:
    table = seeded_attack()
    table.record([ev.SeedRevealed(seed_id="main", seed=MAIN.hex())])
    table.envelopes[13]["data"]["faces"] = [24]  # tampered after the fact
    record = audit(table.envelopes, 3, "gm")
    assert record is not None
    assert (record["proof"], record["proof_detail"]) == (
        "mismatch",
        "the revealed seed gives [23], not [24]",
    )


def test_manual_dice_are_audited_as_manual() -> None:
    table = fight()
    table.do(c.Act(actor="c1", action="attack", target="c2", dice=[77]))
    record = audit(table.envelopes, 3, "gm")
    assert record is not None
    assert (record["proof"], record["source"], record["roll_number"]) == ("manual", "manual", None)
    assert record["check"]["outcome"] == "failure"


def test_a_hidden_roll_is_audited_for_the_gm_only_and_unknown_rolls_not_at_all() -> None:
    table = fight([9])
    table.do(c.Roll(expr="1d20", hidden=True))
    assert audit(table.envelopes, 3, "public") is None
    record = audit(table.envelopes, 3, "gm")
    assert record is not None
    assert (record["seed_id"], record["roll_number"], record["action"]) == ("hidden", 1, None)
    assert audit(table.envelopes, 4, "gm") is None


def test_the_audit_in_words_names_every_modifier_and_its_rule() -> None:
    table = fight()
    check = ev.Check(
        stat="skill",
        base=55,
        modifiers=[
            ev.Modifier(source="flanking", rule="PD-9", delta=10),
            ev.Modifier(source="wounded", rule="PD-10", delta=-5),
        ],
        threshold=60,
        outcome="failure",
        margin=-2,
        rule="PD-1",
    )
    rolled = ev.DieRolled(
        seq=3,
        roll=3,
        seed_id="main",
        source="server",
        expr="d100",
        sizes=[100],
        faces=[62],
        total=62,
        purpose="attack on Bandit",
        actor="c1",
        check=check,
    )
    table.record([rolled])
    table.do(c.Dispute(roll=3, reason="flanking is wrong"), ALICE)
    record = audit(table.envelopes, 3, "public")
    assert record is not None
    assert record["rules"] == ["PD-1", "PD-9", "PD-10"]
    assert audit_text(record).splitlines() == [
        f"Roll 3 (version 12, hash {record['hash']})",
        "Who: Guard (c1)",
        "Why: attack on Bandit",
        "Dice: d100 (d100) showed 62; total 62",
        "Check: skill, base 55",
        "  +10 flanking (PD-9)",
        "  -5 wounded (PD-10)",
        "  needs at most 60: failure, margin -2, rule PD-1",
        "Rules: PD-1, PD-9, PD-10",
        "Source: server, seed main, roll number 3, client seed none",
        f"Commitment: {commitment(MAIN)}",
        "Proof: committed (seed main is not revealed yet; its commitment is public)",
        "Disputed by alice at version 13: flanking is wrong",
    ]


# --- exports --------------------------------------------------------------------------


def played() -> Table:
    table = fight([10, 90, 6])
    table.do(c.Act(actor="c1", action="attack", target="c2"))
    table.do(c.React(actor="c2", reaction="dodge"), ALICE)
    table.do(c.Roll(expr="1d6", hidden=True, purpose="reinforcements"))
    table.do(c.EndTurn(actor="c1"))
    return table


def test_the_audit_bundle_holds_every_event_in_version_order() -> None:
    table = played()
    shuffled = list(reversed(table.envelopes))
    assert bundle(ENCOUNTER, shuffled) == {
        "format": "fracas-audit/2",
        "encounter": ENCOUNTER,
        "events": table.envelopes,
    }


def test_bbcode_pastes_a_title_rounds_and_turns_the_rolls_as_links_and_the_standings() -> None:
    post = bbcode(played().envelopes, "public")
    assert post.startswith(
        "[size=150][b]Ambush at the ford[/b][/size]\n[i]Plain d100, round 1[/i]\n"
    )
    assert "[size=120][b]Round 1[/b][/size]\n[b]Guard's turn[/b]\n[list]\n" in post
    link = f"/e/{ENCOUNTER}?roll=3"
    assert (
        "[*][color=green]Guard hits Bandit: 10 against 55, 8 to avoid"
        f" [url={link}]#3[/url][/color]\n" in post
    )
    assert (
        "[*][color=red]Bandit fails to dodge (90 against 40): 8 damage, HP 24 -> 16 [i]PD-4[/i]"
        in post
    )
    assert "reinforcements" not in post
    assert post.endswith(
        "[b]Where the fight stands[/b]\n[list]\n[*]Guard (side Watch): HP 30/30\n"
        "[*]Bandit (side Bandits): HP 16/24\n[/list]\n"
    )


def test_hidden_rolls_stay_out_of_the_gm_export_unless_the_gm_asks() -> None:
    assert "reinforcements" not in bbcode(played().envelopes, "gm")
    assert "reinforcements" in bbcode(played().envelopes, "gm", include_hidden=True)
    assert "GM rolls 1d6 for reinforcements: 6 [hidden]" in text(
        played().envelopes, "gm", include_hidden=True
    )
    assert "reinforcements" not in text(played().envelopes, "public", include_hidden=True)


def test_markdown_makes_rounds_and_turns_headings_and_lines_bullets() -> None:
    page = markdown(played().envelopes, "public")
    assert page.startswith("# Ambush at the ford\n\n*Plain d100, round 1*\n\n")
    assert ("\n## Round 1\n\n### Guard's turn\n\n- Guard hits Bandit: 10 against 55, 8 to avoid"
            f" [#3](/e/{ENCOUNTER}?roll=3)\n") in page  # fmt: skip
    assert "\n- Bandit (side Bandits): HP 16/24\n" in page


def test_text_is_for_a_chat_with_the_roll_numbers() -> None:
    lines = text(played().envelopes, "public").splitlines()
    assert lines[0] == "Ambush at the ford — Plain d100, round 1"
    assert "  Guard hits Bandit: 10 against 55, 8 to avoid (roll #3)" in lines
    assert "-- Guard's turn --" in lines and "== Round 1 ==" in lines


def test_every_export_speaks_french_when_asked() -> None:
    post = bbcode(played().envelopes, "public", lang="fr")
    assert "[b]Tour de Guard[/b]" in post
    assert "Bandit ne parvient pas à esquiver (90 pour 40) : 8 dégâts, PV 24 -> 16" in post
    assert "[*]Bandit (camp Bandits) : PV 16/24" in post
    assert "Où en est le combat" in text(played().envelopes, "public", lang="fr")


def test_the_last_turn_is_the_one_just_played() -> None:
    post = last_turn(played().envelopes, "public", "bbcode")
    assert post.splitlines()[3:7] == [
        "[size=120][b]Round 1[/b][/size]",
        "[b]Guard's turn[/b]",
        "[list]",
        "[*][color=green]Guard hits Bandit: 10 against 55, 8 to avoid"
        f" [url=/e/{ENCOUNTER}?roll=3]#3[/url][/color]",
    ]
    assert "[b]Bandit's turn[/b]\n" in post
    assert "Initiative" not in post


def test_the_last_turn_refuses_an_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        last_turn(played().envelopes, "public", "pdf")


def test_an_export_of_a_stream_with_a_gap_refuses() -> None:
    envelopes = played().envelopes
    with pytest.raises(ValueError, match="expected version 10"):
        text(envelopes[:9] + envelopes[10:], "gm")


def test_hidden_resources_are_redacted_from_the_arrival_and_their_changes_filtered() -> None:
    from domain import commands as cmd
    from domain.dice import FixedRoller
    from domain.encounter import decide_and_fold, open_encounter
    from domain.events import event_data
    from domain.evolve import replay
    from projections.filter import filter_events

    state = replay(open_encounter("e", "plain-d100", "t", {}, {"main": ("00", False)}))
    events: list[Any] = []
    for command in (
        cmd.AddCombatant(name="Ogre", side="foes", preset="guard", hidden=["hp"]),
        cmd.Adjust(combatant="c1", resource="hp", delta=-3, reason="trap"),
    ):
        new, state = decide_and_fold(state, command, FixedRoller([]))
        events += new
    envelopes = [
        {"stream": "encounter-e", "version": i, "type": t, "data": d, "meta": {}}
        for i, (t, d) in enumerate((event_data(e) for e in events), start=4)
    ]
    public = filter_events(envelopes, "spectator")
    assert [e["type"] for e in public] == ["combatant_added"]
    assert public[0]["data"]["resources"] == {"hp": None}
    assert public[0]["data"]["sheet"] == {} and public[0]["redacted"] is True
    assert filter_events(envelopes, "gm")[0]["data"]["resources"] == {"hp": 30}


def test_a_projection_that_keeps_a_tail_words_only_the_tail_and_folds_the_rest() -> None:
    from projections.view import Projection

    table = fight()
    for i in range(30):
        table.do(c.Adjust(combatant="c1", resource="hp", delta=-1, reason=f"cut {i}"))
    full = fold(table.envelopes)
    tail = Projection(keep=10)
    tail.extend(table.envelopes)
    assert tail.state == full.state
    assert tail.lines == [x for x in full.lines if x.version > len(table.envelopes) - 10]
    assert [line.text for line in tail.lines][-1] == full.lines[-1].text


@pytest.mark.parametrize(("ruleset", "pool"), [("ranks-d100", "mana"), ("d100-tcs", "energy")])
def test_the_board_says_which_resource_is_health_and_which_a_spell_pool(
    ruleset: str, pool: str
) -> None:
    """The page draws a bar from `kinds`, not from a resource's name (issue 22 finding 6):
    tcs's energy is its spell pool, and a GM's resource called "mana_potions" is other."""
    from projections.log.core import Words

    state = EncounterState()
    state.ledger.ruleset = ruleset
    words = Words(state)
    assert (words.kind("hp"), words.kind(pool), words.kind("mana_potions")) == (
        "hp",
        "mana",
        "other",
    )
