"""Every refusal reason of every rule system has words in English and French, from the
same facts (issue 22 finding 2): the reasons are collected from the code itself (every
`reason=` of a refusal, every legal reason key), so a new refusal without words fails
here. No French answer is a generic "impossible pour l'instant", none holds None, a
Python repr or a raw combatant id (tests/e2e/test_refusal_words_http.py: real refused
HTTP commands in each rule system answer French that names the facts)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from domain.errors import Refused
from projections.words.refusals import CODES, WORDS, word, word_reason

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "domain"
REFUSALS = {"Refused", "RuleViolation", "Invalid", "Forbidden", "NotFound"}
# Keys a module assigns to a local before raising or listing it (`reason = ... if ...`).
_HOLDERS = {"reason", "waiting"}
# Reasons kept in event payloads (what happened), not refusals: worded by the narrators.
_PAYLOAD = {"critical_failure", "in_hand", "target_gone", "out_of_fight", "duration"}
KEY = re.compile(r"^[a-z][a-z0-9_]*$")
RULE_ID = re.compile(r"^(RK|NA|TC|PD)-")
GENERIC = ("impossible pour l'instant", "la requête ne convient pas")


def _system(path: Path) -> str:
    parts = path.relative_to(DOMAIN).parts
    if parts[0] == "rules" and len(parts) > 2:
        return parts[1]
    return parts[0].removesuffix(".py") if parts[0] != "rules" else parts[1].removesuffix(".py")


def _strings(node: ast.AST) -> list[str]:
    """The keys a value may be: a constant, or either branch of `a if test else b`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [s for v in node.values for s in _strings(v)]
    return []


def collected() -> dict[str, set[str]]:
    """system -> the reason keys its code refuses or lists with."""
    out: dict[str, set[str]] = {}
    for path in sorted(DOMAIN.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys = out.setdefault(_system(path), set())
        legal = path.name == "legal.py" or path.name == "plain_d100.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in REFUSALS or (node.func.id == "LegalAction" and legal):
                    for kw in node.keywords:
                        if kw.arg == "reason":
                            keys.update(s for s in _strings(kw.value) if KEY.match(s))
                if node.func.id == "why" and legal and len(node.args) == 2:
                    keys.update(s for s in _strings(node.args[1]) if KEY.match(s))
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in _HOLDERS for t in node.targets
            ):
                keys.update(s for s in _strings(node.value) if KEY.match(s))
            elif isinstance(node, ast.Tuple) and legal and len(node.elts) == 3:
                why, rule = node.elts[1], node.elts[2]
                if isinstance(rule, ast.Constant) and RULE_ID.match(str(rule.value)):
                    keys.update(s for s in _strings(why) if KEY.match(s))
        keys -= _PAYLOAD
    return {system: keys for system, keys in out.items() if keys}


REASONS = collected()
ALL = sorted({(system, key) for system, keys in REASONS.items() for key in keys})


def sample(template: str) -> dict[str, Any]:
    """A value for each placeholder of a template (a combatant's id for the names)."""
    names = {k for k in re.findall(r"(?<!\{)\{(\w+)\}", template)}
    return {k.removeprefix("de_"): f"c{n + 1}" for n, k in enumerate(sorted(names))}


def test_the_walk_finds_the_reasons_of_every_rule_system() -> None:
    assert {"d20_na", "ranks", "tcs", "plain_d100", "encounter", "campaign"} <= set(REASONS)
    assert len(ALL) >= 250, len(ALL)
    assert {"not_turn_of", "two_handed_with_shield", "rank_above_cap", "energy_short"} <= {
        key for _, key in ALL
    }


@pytest.mark.parametrize(("system", "reason"), ALL)
def test_every_refusal_reason_has_english_and_french_words(system: str, reason: str) -> None:
    assert reason in WORDS, f"{system}: refusal {reason!r} has no words"
    en, fr = WORDS[reason]
    assert en.strip() and fr.strip()
    holes_en = set(re.findall(r"(?<!\{)\{(\w+)\}", en))
    holes_fr = {k.removeprefix("de_") for k in re.findall(r"(?<!\{)\{(\w+)\}", fr)}
    assert holes_en == holes_fr, (reason, holes_en, holes_fr)  # same facts, both languages


@pytest.mark.parametrize(("system", "reason"), ALL)
def test_every_worded_refusal_names_its_facts_without_a_repr_or_a_raw_id(
    system: str, reason: str
) -> None:
    params = sample(WORDS[reason][0])
    names = {k: f"Aldric{n}" for n, k in enumerate(params)}
    said = word_reason(reason, params, names)
    assert said is not None
    for text in said:
        assert "None" not in text and not re.search(r"\{\w+\}", text), (reason, text)
        assert not re.search(r"<\w+ object|\bc\d+\b|\[\]|\(\)|'\s*'", text), (reason, text)
        for name in names.values():
            assert name in text, (reason, text)  # every parameter said, in each language
    assert not any(g in said[1] for g in GENERIC)


def test_a_refusal_given_combatants_keeps_their_ids_and_says_their_names() -> None:
    class Who:
        id, name = "c2", "Élise"

    refusal = Refused("not_your_turn", rule="RK-3", reason="not_turn_of", params={"actor": Who()})
    assert (refusal.params, refusal.names) == ({"actor": "c2"}, {"actor": "Élise"})
    en, fr = word(refusal.code, refusal.reason, refusal.params, refusal.names)
    assert (en, fr) == ("it is not Élise's turn", "ce n'est pas le tour d'Élise")


def test_every_error_code_of_the_adapters_has_french_words() -> None:
    for code, (en, fr) in CODES.items():
        assert en and fr and en != fr and not any(g == fr for g in GENERIC[:1]), code


def test_params_stay_plain_json_a_rank_as_its_text_a_set_sorted() -> None:
    from domain.rules.ranks.tables import parse_rank

    refusal = Refused("invalid", reason="x", params={"rank": parse_rank("B+"), "bad": {"z", "a"}})
    assert refusal.params == {"rank": "B+", "bad": ["a", "z"]}


# --- the server's own errors ---------------------------------------------------------

SERVER = ROOT / "server"
# Calls in server/ that carry a reason key: HTTPError(status, code, reason=...), the
# domain's refusals, the raw answers of the connection layer and the error bodies, and a
# webhook URL's Unsafe(reason).
_SERVER_CALLS = {"HTTPError", "_answer", "error_response", "error_body", *REFUSALS}


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def server_reasons() -> dict[str, set[str]]:
    """reason key -> the places in server/ that use it. A reason passed through (a
    parameter, a caught error's `e.reason`, a stored outcome's) is collected where it was
    raised; a literal that is no key is reported under "?"."""
    out: dict[str, set[str]] = {}
    for path in sorted(SERVER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        held: list[str] = []  # `reason = "a" if ... else "b"` before the raise
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "reason" for t in node.targets
            ):
                held += [s for s in _strings(node.value) if KEY.match(s)]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name, place = _name(node.func), f"{path.relative_to(ROOT)}:{node.lineno}"
            given: list[ast.expr] = [kw.value for kw in node.keywords if kw.arg == "reason"]
            if name == "Unsafe":
                given = node.args[:1]
            elif name not in _SERVER_CALLS:
                continue
            for value in given:
                if isinstance(value, ast.Name) and value.id == "reason" and held:
                    keys = held
                elif isinstance(value, ast.Constant | ast.IfExp | ast.BoolOp):
                    keys = _strings(value) or ["?"]
                else:
                    continue  # passed through
                for key in keys:
                    out.setdefault(key if KEY.match(key) else "?", set()).add(place)
    return out


SERVER_REASONS = server_reasons()


def test_the_walk_finds_the_reason_keys_of_the_servers_errors() -> None:
    assert "?" not in SERVER_REASONS, SERVER_REASONS.get("?")
    assert len(SERVER_REASONS) >= 40, sorted(SERVER_REASONS)
    assert {"send_bearer_token", "no_format_characters", "body_too_slow"} <= set(SERVER_REASONS)
    assert {"webhook_host_not_public", "gm_link_names_no_combatant"} <= set(SERVER_REASONS)


def test_no_http_error_in_server_is_raised_with_a_sentence_instead_of_a_reason_key() -> None:
    """HTTPError's reason is keyword-only; a positional third argument is an old English
    message."""
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _name(node.func) == "HTTPError":
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert len(node.args) == 2, where
                assert any(kw.arg == "reason" for kw in node.keywords), where


@pytest.mark.parametrize("reason", sorted(SERVER_REASONS))
def test_every_server_error_reason_has_english_and_specific_french_words(reason: str) -> None:
    places = sorted(SERVER_REASONS[reason])
    pair = WORDS.get(reason) or CODES.get(reason)
    assert pair is not None, f"{reason!r} ({places}) has no words"
    en, fr = pair
    assert en.strip() and fr.strip() and en != fr, reason
    assert not any(g in fr for g in GENERIC), (reason, fr)
    holes_en = set(re.findall(r"(?<!\{)\{(\w+)\}", en))
    holes_fr = {k.removeprefix("de_") for k in re.findall(r"(?<!\{)\{(\w+)\}", fr)}
    assert holes_en == holes_fr, (reason, holes_en, holes_fr)
    params = sample(en)
    said = word("invalid", reason, params) if reason in WORDS else pair
    for value in params.values():
        assert value in said[0] and value in said[1], (reason, said)


def test_every_refusal_raised_in_the_http_room_names_a_reason_not_only_a_message() -> None:
    """A refusal with a message and no reason would answer its code's generic French."""
    rooms = [*sorted((SERVER / "http").rglob("*.py")), SERVER / "app.py"]
    for path in rooms:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _name(node.func) in REFUSALS:
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert any(kw.arg == "reason" for kw in node.keywords), where


def test_every_option_of_every_rule_system_is_named_in_both_languages() -> None:
    """The action forms label each option with the server's words (projections/words/
    options.py), never with its key: every key any act or react takes has them."""
    from domain.rules import REGISTRY
    from projections.words.options import OPTION_WORDS

    for rid, rules in REGISTRY.items():
        tables = (rules.options.actions, rules.options.reactions)
        keys = {key for table in tables for opts in table.values() for key in opts}
        missing = sorted(keys - set(OPTION_WORDS))
        assert missing == [], f"{rid}: no words for {missing}"
    assert all(en and fr for en, fr in OPTION_WORDS.values())
