"""Every rule system's log reads as a narration: a scripted fight of two rounds or more,
exported in every format and both languages, holds no debug trace (no `is now`, no JSON,
no combatant id, no None, no code name), says each HP change in exactly one line, and its
French export holds no English word. Hidden rolls and GM-only resources stay out of every
text export unless the GM asks."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide, decide_and_fold, open_encounter
from domain.evolve import evolve, replay
from domain.state import GM
from projections.export import FORMATS, last_turn, render
from tests.unit import test_golden_logs as golden
from tests.unit import test_tcs_support as tcs
from tests.unit.test_ranks_example import j1_attacks_j2

ENGLISH = ("takes", "hits", "misses", "turn", "attack", "parry", "dodge", "fails",
           "succeeds", "dead", "damage")  # fmt: skip
CODES = re.compile(r"attack_physical|attack_magic|atk_|defend_end|defend_agi|\bc\d+\b")


class Fight:
    """A scripted encounter: commands with their forced dice, kept as envelopes."""

    def __init__(self, ruleset: str, name: str, settings: dict[str, Any] | None = None) -> None:
        self.events: list[ev.Event] = open_encounter("fight", ruleset, name, settings or {}, {})
        self.state = replay(self.events)

    def do(self, command: cmd.Command, *faces: int) -> None:
        for event in decide(self.state, command, FixedRoller(faces), GM):
            evolve(self.state, event)
            self.events.append(event)

    def envelopes(self) -> list[dict[str, Any]]:
        return golden.envelopes("", "", self.events)


def plain() -> list[dict[str, Any]]:
    f = Fight("plain-d100", "Ambush at the ford")
    f.do(cmd.AddCombatant(name="Guard", side="Watch", preset="guard"))
    f.do(cmd.AddCombatant(name="Bandit", side="Bandits", preset="bandit"))
    f.do(cmd.StartCombat(), 50, 20)
    for faces in ((10, 90), (12, 95)):
        f.do(cmd.Act(actor="c1", action="attack", target="c2"), faces[0])
        f.do(cmd.React(actor="c2", reaction="dodge"), faces[1])
        f.do(cmd.EndTurn(actor="c1"))
        f.do(cmd.Act(actor="c2", action="attack", target="c1"), 99)
        f.do(cmd.EndTurn(actor="c2"), 50, 20)
    return f.envelopes()


def ranks() -> list[dict[str, Any]]:
    t, j1, j2 = j1_attacks_j2({})
    t.do(cmd.EndTurn(actor=j1))
    t.act(j2, "attack_physical", 71, target=j1, rank="A")
    t.do(cmd.EndTurn(actor=j2))
    t.act(j1, "attack_physical", 20, target=j2, rank="E")
    t.react(j2, "defend_end", 30)
    return golden.envelopes("ranks-d100", "", t.events)


SCRIPTS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "plain-d100": plain,
    "ranks-d100": ranks,
    "d20-na": golden.d20_milicien_fangeux,
    "d100-tcs": golden.tcs_exchange,
}


def rounds_of(envelopes: Sequence[dict[str, Any]]) -> int:
    return sum(e["type"] == "round_started" for e in envelopes)


def hp_changes(envelopes: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(e["data"]["value"] - e["data"]["delta"], e["data"]["value"]) for e in envelopes
            if e["type"] == "resource_changed" and e["data"]["resource"] == "hp"]  # fmt: skip


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("ruleset", sorted(SCRIPTS))
def test_a_scripted_fight_reads_as_a_narration_in_every_format(ruleset: str, fmt: str) -> None:
    envelopes = SCRIPTS[ruleset]()
    assert rounds_of(envelopes) >= 2
    for lang in ("en", "fr"):
        for page in (str(render(envelopes, "public", fmt, lang=lang)),
                     str(last_turn(envelopes, "public", fmt, lang=lang))):  # fmt: skip
            assert "is now" not in page and "vaut maintenant" not in page
            assert not re.search(r"\[\"|\{|\}", page), page
            assert "None" not in page
            assert not CODES.search(page), CODES.search(page)
        page = str(render(envelopes, "public", fmt, lang=lang))
        hp = "PV" if lang == "fr" else "HP"
        lines = page.splitlines()
        for before, after in hp_changes(envelopes):
            said = [x for x in lines if f"{hp} {before} -> {after}" in x]
            assert len(said) == 1, (before, after, said)
        if lang == "en":
            assert not re.search(r"\btakes\b", page)
        else:
            found = [w for w in ENGLISH if re.search(rf"\b{w}\b", page, re.IGNORECASE)]
            assert found == [], found


def hidden_fight() -> list[dict[str, Any]]:
    """A plain-d100 fight with a GM-only HP pool (the Ogre's) and a hidden roll."""
    f = Fight("plain-d100", "Under the bridge")
    f.do(cmd.AddCombatant(name="Guard", side="Watch", preset="guard"))
    f.do(cmd.AddCombatant(name="Ogre", side="Trolls", preset="bandit", hidden=["hp"]))
    f.do(cmd.StartCombat(), 50, 20)
    f.do(cmd.Act(actor="c1", action="attack", target="c2"), 10)
    f.do(cmd.React(actor="c2", reaction="none"))
    f.do(cmd.Roll(expr="1d20", hidden=True, purpose="the second ogre wakes"), 17)
    return f.envelopes()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_hidden_rolls_and_gm_only_resources_stay_out_unless_the_gm_asks(fmt: str) -> None:
    envelopes = hidden_fight()

    def pages(role: str, include: bool) -> list[str]:
        return [str(render(envelopes, role, fmt, include_hidden=include)),
                last_turn(envelopes, role, fmt, include_hidden=include)]  # fmt: skip

    for role, include in (("gm", False), ("public", False), ("public", True)):
        for page in pages(role, include):
            assert "second ogre" not in page
            assert "Ogre's HP" not in page and not re.search(r"Ogre \(side Trolls\): HP", page)
            assert "24 -> 16" not in page
    for page in pages("gm", True):
        assert "second ogre" in page
        assert "24 -> 16" in page
    # The Ogre's HP are the GM's: the public reads the outcome, not the damage it took.
    assert "Ogre does not defend: 8 damage" in str(
        render(envelopes, "gm", fmt, include_hidden=True)
    )
    public = str(render(envelopes, "public", fmt))
    assert "Ogre: no defense" in public and "8 damage" not in public


def test_the_json_bundle_is_unfiltered() -> None:
    envelopes = hidden_fight()
    bundle = render(envelopes, "gm", "json")
    assert isinstance(bundle, dict) and len(bundle["events"]) == len(envelopes)
    assert b"second ogre" in msgspec.json.encode(bundle)


def test_every_setting_of_every_rule_system_is_described_in_french() -> None:
    from domain.encounter import CORE_SETTINGS
    from domain.rules import REGISTRY
    from projections.log.core import NARRATORS
    from projections.words.settings import description_fr

    missing = [(rid, key) for rid, rules in REGISTRY.items()
               for key in {**rules.settings, **CORE_SETTINGS}
               if not description_fr(rid, key)]  # fmt: skip
    assert missing == []
    assert all(NARRATORS[rid].name_fr for rid in REGISTRY)


@pytest.mark.parametrize(
    ("reason", "params", "names", "french"),
    [
        ("not_your_turn", {}, {}, "ce n'est pas votre tour"),
        ("answer_pending_first", {"target": "c2"}, {"target": "Bandit"},
         "Bandit doit d'abord répondre à l'attaque en attente"),
        ("limit_used", {"actor": "c1", "ability": "attack", "limit": 1, "scope": "turn"},
         {"actor": "Guard"}, "Guard a déjà utilisé son attaque de ce tour (1 par tour)"),
        ("budget_short", {"actor": "c1", "cost": 2, "left": 1}, {"actor": "Milicien"},
         "Milicien a besoin de 2 demi-action(s), il en reste 1"),
        ("not_turn_of", {"actor": "c1"}, {"actor": "Aldric"}, "ce n'est pas le tour d'Aldric"),
    ],
)  # fmt: skip
def test_a_refusal_reads_in_french_from_its_facts(
    reason: str, params: dict[str, object], names: dict[str, str], french: str
) -> None:
    from projections.words.refusals import word_reason

    said = word_reason(reason, params, names)
    assert said is not None and said[1] == french


def test_a_gm_only_armor_and_hp_stay_off_the_public_hit_line() -> None:
    mail = {"name": "mail", "levels": [{"pr": 10, "pp": 3}, {"pr": 5, "pp": 1}],
            "end_required": 0}  # fmt: skip
    table = tcs.Table(tcs.QUIET)
    a = table.add("A", "a", weapons=[{"name": "blade", "damage": 12}])
    table.do(cmd.AddCombatant(name="B", side="b", sheet=tcs.fighter(armor=mail),
                              hidden=["hp", "armor_pr", "armor_level"]))  # fmt: skip
    table.do(cmd.StartCombat(), [10, 20])
    table.act(a, "attack", "c2", [10])
    envelopes = golden.envelopes("d100-tcs", "Secret mail", table.log, tcs.QUIET)
    public = str(render(envelopes, "public", "text"))
    # B's armor and HP are the GM's: the public reads who hit whom and the dice, and no
    # number of the blow (the PP that stopped 3 is B's sheet).
    assert "A: Attack (technique) on B, success" in public and "A rolls d100" in public
    assert "PP 3" not in public and "12 damage" not in public
    assert "PR 5" not in public and "20 -> 11" not in public and "level 1" not in public
    gm = str(render(envelopes, "gm", "text", include_hidden=True))
    assert "A hits B: 10 against 50. 12 damage, 3 stopped by PP 3; the armor degrades" in gm
    assert "B's HP: 20 -> 11" in gm and "B's armor PR: 10 -> 5" in gm


def test_a_dispute_names_the_players_combatant_never_an_id() -> None:
    from projections.log.core import describe

    state = replay(open_encounter("e", "plain-d100", "t", {}, {"main": ("00", False)}))
    for name in ("Ayla", "Brun"):
        state = decide_and_fold(
            state, cmd.AddCombatant(name=name, side=name, preset="guard"), FixedRoller([])
        )[1]
    line = describe(ev.RollDisputed(seq=1, by="player:c1,c2", reason="a 12"), state, 9)
    assert line is not None
    assert line.text == "Roll 1 disputed by Ayla and Brun: a 12"
    assert line.text_fr == "Jet 1 contesté par Ayla et Brun : a 12"
