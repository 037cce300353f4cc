"""The options each rule system declares: what `legal` offers is accepted, what nobody
declared (or of the wrong type, or too big) is refused with `invalid` and a rule id; the
settings are range-checked; exports keep a forged line break on its line."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain.context import RuleSystem
from domain.dice import SeededRoller
from domain.encounter import check_settings, decide, open_encounter
from domain.errors import Invalid, Refused
from domain.evolve import evolve, replay
from domain.rules import REGISTRY
from domain.rules.common.options import MAX_OPTIONS_BYTES, check
from domain.state import GM, EncounterState
from projections.export import bbcode, markdown, text
from tests.unit.test_projections import Table as ExportTable

# --- a table that plays a fight from `legal`, checking every option it offers -------------


def opened(ruleset: str, presets: tuple[str, str]) -> EncounterState:
    state = replay(open_encounter("enc", ruleset, "test", {}, {}))
    for side, preset in zip("ab", presets, strict=True):
        command = cmd.AddCombatant(name=f"{preset} {side}", side=side, preset=preset)
        for event in decide(state, command, SeededRoller("enc", {}, {}, "")):
            evolve(state, event)
    return state


def variants(entry: dict[str, Any], rules: RuleSystem) -> Iterator[dict[str, Any]]:
    """Every options object the UI builds from one `legal` entry (encounter/actions.js choiceFields,
    readOptions and the TC-7 second-action row)."""
    choices = entry.get("choices") or {}
    if isinstance(choices, list):
        yield from ({"name": n} for n in choices)
    else:
        for key, values in choices.items():
            if isinstance(values, list):
                yield from ({key: v} for v in values)
            else:  # a number field, e.g. a distance in metres
                yield {key: 0}
                yield {key: 30}
    if rules.turn == "two_declared" and kind_of(entry, rules) == "action":
        for second in rules.actions:
            yield {"then": {"action": second}}
            yield {"then": {"action": second, "target": "c2", "options": {}}}


def kind_of(entry: dict[str, Any], rules: RuleSystem) -> str:
    return "reaction" if entry.get("reaction") or entry["action"] not in rules.actions else "action"


def play_checking_options(ruleset: str, presets: tuple[str, str], seed: int) -> int:
    """Play up to 60 commands picked from `legal`; every option offered must pass."""
    rules = REGISTRY[ruleset]
    state = opened(ruleset, presets)
    dice = SeededRoller("enc", {"main": bytes([seed]) * 32, "hidden": bytes(32)}, {}, "")
    pick = random.Random(seed)
    checked = 0

    def run(command: cmd.Command) -> bool:
        try:
            events = decide(state, command, dice, GM)
        except Refused:
            return False
        for event in events:
            evolve(state, event)
        return True

    run(cmd.StartCombat())
    for _ in range(60):
        game = state.game
        for cid in game.combatants:
            for entry in msgspec.to_builtins(rules.legal(game, cid, state.ledger.settings)):
                for options in variants(entry, rules):
                    kind = kind_of(entry, rules)
                    check(rules, game, cid, kind, entry["action"], options)  # type: ignore[arg-type]
                    checked += 1
        if game.pending:
            p = game.pending[0]
            listed = msgspec.to_builtins(rules.legal(game, p.target, state.ledger.settings))
            answers = [e for e in listed
                       if kind_of(e, rules) == "reaction" and e.get("enabled", True)]  # fmt: skip
            answer = pick.choice(answers) if answers else {"action": "none"}
            options = pick.choice([{}, *variants(answer, rules)])
            if not run(cmd.React(actor=p.target, reaction=answer["action"], options=options)):
                run(cmd.React(actor=p.target, reaction="none"))
            continue
        actor = game.actor
        if actor is None:
            break
        entries = [e for e in msgspec.to_builtins(rules.legal(game, actor, state.ledger.settings))
                   if e.get("enabled") and kind_of(e, rules) == "action"]  # fmt: skip
        if entries:
            entry = pick.choice(entries)
            targets = entry.get("targets") or [None]
            options = pick.choice([{}, *variants(entry, rules)])
            act = cmd.Act(actor=actor, action=entry["action"], target=targets[0], options=options)
            if run(act):
                continue
        run(cmd.EndTurn(actor=actor))
    return checked


@pytest.mark.parametrize(
    ("ruleset", "presets"),
    [
        ("plain-d100", ("guard", "bandit")),
        ("ranks-d100", ("J1", "Lancer")),
        ("d20-na", ("milicien", "fangeux")),
        ("d100-tcs", ("archer", "duelist")),
        ("d100-tcs", ("mage", "shield_bearer")),
    ],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_option_legal_offers_is_accepted(
    ruleset: str, presets: tuple[str, str], seed: int
) -> None:
    assert set(presets) <= set(REGISTRY[ruleset].presets)
    assert play_checking_options(ruleset, presets, seed) > 0 or ruleset == "plain-d100"


def test_every_action_and_reaction_of_every_system_declares_its_options() -> None:
    for rules in REGISTRY.values():
        assert set(rules.options.actions) == set(rules.actions), rules.id
        assert set(rules.options.reactions) - {"none"} == set(rules.reactions), rules.id
        for table in (rules.options.actions, rules.options.reactions):
            for declared in table.values():
                for option in declared.values():
                    assert option.rule, rules.id
                    if option.type == "int":
                        assert option.low is not None and option.high is not None


# --- refusals, per rule system ------------------------------------------------------------


def refusal(ruleset: str, presets: tuple[str, str], kind: str, name: str,
            options: dict[str, Any]) -> Invalid:  # fmt: skip
    state = opened(ruleset, presets)
    with pytest.raises(Invalid) as refused:
        check(REGISTRY[ruleset], state.game, "c1", kind, name, options)  # type: ignore[arg-type]
    return refused.value


def accepted(ruleset: str, presets: tuple[str, str], kind: str, name: str,
             options: dict[str, Any]) -> None:  # fmt: skip
    state = opened(ruleset, presets)
    check(REGISTRY[ruleset], state.game, "c1", kind, name, options)  # type: ignore[arg-type]


def test_plain_d100_takes_no_option_at_all() -> None:
    assert refusal("plain-d100", ("guard", "bandit"), "action", "attack", {"x": 1}).rule == "PD-2"
    assert refusal("plain-d100", ("guard", "bandit"), "reaction", "dodge", {"x": 1}).rule == "PD-4"


@pytest.mark.parametrize(
    ("kind", "name", "options", "rule"),
    [
        ("action", "transfer_mana", {"amount": "5"}, "RK-30"),
        ("action", "transfer_mana", {"amount": 0}, "RK-30"),
        ("action", "attack_physical", {"activate": ["FOO"]}, "RK-8"),
        ("action", "attack_physical", {"activate": "STR"}, "RK-8"),
        ("action", "attack_physical", {"name": "Gae Bolg"}, "RK-32"),
        ("reaction", "counter", {"action": "kick"}, "RK-60"),
        ("reaction", "intercept", {"reduce": "AGI"}, "RK-39"),
        ("reaction", "none", {"activate": ["STR"]}, "RK-59"),
    ],
)
def test_ranks_d100_refuses_options_it_does_not_declare(
    kind: str, name: str, options: dict[str, Any], rule: str
) -> None:
    got = refusal("ranks-d100", ("J1", "Lancer"), kind, name, options)
    assert (got.code, got.rule) == ("invalid", rule)


@pytest.mark.parametrize(
    ("kind", "name", "options", "rule"),
    [
        ("action", "attack", {"aim": "tail"}, "NA-24"),
        ("action", "attack", {"distance": 10}, "NA-11"),
        ("action", "shoot", {"distance": -1}, "NA-30"),
        ("action", "shoot", {"distance": True}, "NA-30"),
        ("action", "charge", {"path_clear": "yes"}, "NA-AMB-9"),
        ("action", "move", {"metres": 3}, "NA-7"),
        ("reaction", "parry", {"weapon": 3}, "NA-AMB-27"),
    ],
)
def test_d20_na_refuses_options_it_does_not_declare(
    kind: str, name: str, options: dict[str, Any], rule: str
) -> None:
    got = refusal("d20-na", ("milicien", "fangeux"), kind, name, options)
    assert (got.code, got.rule) == ("invalid", rule)


@pytest.mark.parametrize(
    ("name", "options", "rule"),
    [
        ("attack", {"range_m": 30}, "TC-8"),
        ("attack", {"long_range": True}, "TC-8"),
        ("attack", {"weapon": "sword"}, "TC-19"),  # the archer carries it but holds the bow
        ("attack", {"then": {"action": "attack", "options": {"weapon": "sword"}}}, "TC-19"),
        ("move", {"sprint": 5}, "TC-22"),
        ("attack", {"then": {"action": "dance"}}, "TC-7"),
        ("attack", {"then": {"action": "move", "options": {"then": {"action": "move"}}}}, "TC-7"),
        ("attack", {"then": {"action": "move", "extra": 1}}, "TC-7"),
        ("cast", {"at": "shield"}, "TC-9"),
    ],
)
def test_d100_tcs_refuses_options_it_does_not_declare(
    name: str, options: dict[str, Any], rule: str
) -> None:
    got = refusal("d100-tcs", ("archer", "duelist"), "action", name, options)
    assert (got.code, got.rule) == ("invalid", rule)


def test_d100_tcs_an_attack_may_name_the_weapon_the_first_action_takes_in_hand() -> None:
    then = {"action": "attack", "target": "c2", "options": {"weapon": "sword"}}
    accepted("d100-tcs", ("archer", "duelist"), "action", "use_item",
             {"weapon": "sword", "then": then})  # fmt: skip
    accepted("d100-tcs", ("archer", "duelist"), "action", "attack", {"weapon": "bow"})


def test_options_over_2_kib_encoded_are_refused_whatever_they_hold() -> None:
    got = refusal("d100-tcs", ("archer", "duelist"), "action", "attack",
                  {"tcs": "x" * (MAX_OPTIONS_BYTES)})  # fmt: skip
    assert got.rule == "TC-8" and "bytes" in got.message


# --- settings -----------------------------------------------------------------------------


def test_every_setting_of_every_system_declares_its_range_or_choices() -> None:
    for rules in REGISTRY.values():
        for key, spec in rules.settings.items():
            spec.validate(key, spec.default)  # every default fits its own declaration
            if type(spec.default) is int and not spec.choices:
                assert spec.low is not None and spec.high is not None, (rules.id, key)
            if type(spec.default) is list:
                assert spec.items or spec.check is not None, (rules.id, key)
            if type(spec.default) is dict:
                assert spec.check is not None, (rules.id, key)


@pytest.mark.parametrize(
    ("ruleset", "settings", "rule"),
    [
        ("plain-d100", {"critical_range": 2**70}, "PD-1"),
        ("plain-d100", {"second_wind_heal": -1}, "PD-3"),
        ("ranks-d100", {"pool.base_hp": 0}, "RK-AMB-7"),
        ("ranks-d100", {"tables": {"reduction.master.B": 2**40}}, "RK-AMB-2"),
        ("ranks-d100", {"init.tie_break": ["agility", "coin"]}, "RK-AMB-16"),
        ("ranks-d100", {"health_malus.stats": ["STR"] * 17}, "RK-AMB-22"),
        ("d20-na", {"defense.max_per_type": 10**9}, "NA-AMB-4"),
        ("d100-tcs", {"aoo.max": -1}, "TC-AMB-10"),
        ("d100-tcs", {"crit.table_d10": ["x"] * 11}, "TC-AMB-2"),
        ("d100-tcs", {"crit.table_d10": [1] * 10}, "TC-AMB-2"),
    ],
)
def test_a_setting_out_of_its_range_is_refused_with_its_rule(
    ruleset: str, settings: dict[str, Any], rule: str
) -> None:
    with pytest.raises(Invalid) as refused:
        check_settings(REGISTRY[ruleset], settings)
    assert (refused.value.code, refused.value.rule) == ("invalid", rule)


# --- exports ------------------------------------------------------------------------------


def test_a_line_break_stored_in_a_name_forges_no_line_in_any_export() -> None:
    table = ExportTable()
    table.do(cmd.AddCombatant(name="Alba\n- GM: Brun dies", side="a\r\n[/list]", preset="guard"))
    for render, closings in ((markdown, 0), (bbcode, 2), (text, 0)):  # bbcode: log, standings
        page = render(table.envelopes, "gm")
        lines = page.split("\n")
        assert not any(line.lstrip("[*]> ").startswith("- GM: Brun dies") for line in lines)
        assert sum(line.startswith("[/list]") for line in lines) == closings  # bbcode's own
        assert "Alba - GM: Brun dies" in page
