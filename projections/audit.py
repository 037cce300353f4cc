"""One roll's full provenance (`GET /rolls/{n}`, `fracas audit ENCOUNTER ROLL`).

Who rolled, why, which dice and faces, how the check was judged (every modifier with the
rule that gives it), which action it belonged to, where it sits in the hash chain, which
seed and roll number drew it, and whether the revealed seed proves it:

- "manual": physical dice a GM entered, drawn from no seed;
- "committed": the seed is not revealed yet (its commitment is public);
- "verified": the revealed seed matches its commitment and recomputes these faces;
- "mismatch": it does not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.dice import DiceError, draw
from domain.events import event_from
from domain.rules import REGISTRY
from projections.log import outcome_words, principal
from projections.log.core import declaration, purpose_words
from projections.view import Projection

__all__ = ["audit", "audit_text"]

_ACTIONS = ("action_declared", "reaction_declared")


@dataclass
class _Trail:
    """What the walk through the stream found about one roll."""

    rolled: Mapping[str, Any] | None = None
    action: Mapping[str, Any] | None = None
    action_line: tuple[str, str] | None = None
    commitments: dict[str, str] = field(default_factory=dict)
    commitment: str | None = None
    reveal: Mapping[str, Any] | None = None
    disputes: list[dict[str, Any]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    attackers: dict[int, str] = field(default_factory=dict)  # pending id -> attacker


def audit(envelopes: Sequence[Mapping[str, Any]], seq: int, role: str) -> dict[str, Any] | None:
    """The audit record of roll `seq`, or None if there is none `role` may see."""
    proj = Projection()
    trail = _Trail()
    for envelope in sorted(envelopes, key=lambda e: int(e.get("version", 0))):
        proj.apply(envelope)
        _step(trail, envelope, seq, proj)
    rolled = trail.rolled
    if rolled is None:
        return None
    data: Mapping[str, Any] = rolled.get("data") or {}
    if role != "gm" and data.get("hidden", False):
        return None
    stream = str(rolled.get("stream", ""))
    encounter_id = proj.state.ledger.encounter_id or stream.partition("-")[2]
    proof, detail = _proof(data, trail.commitment, trail.reveal, encounter_id)
    check = _check(data.get("check"))
    action = _action(trail, rolled, proj.state.ledger.ruleset)
    actor = data.get("actor")
    actor_name = trail.names.get(str(actor)) or (principal(str(actor)) if actor else None)
    return {
        "roll": seq,
        "version": rolled.get("version"),
        "hash": rolled.get("hash"),
        "actor": actor,
        "actor_name": actor_name,
        "purpose": data.get("purpose"),
        "purpose_fr": purpose_words(str(data.get("purpose") or ""), proj.state)[1],
        "expr": data.get("expr"),
        "sizes": list(data.get("sizes", [])),
        "faces": list(data.get("faces", [])),
        "total": data.get("total"),
        "check": check,
        "rules": _rules(action, check),
        "action": action,
        "seed_id": data.get("seed_id"),
        "roll_number": data.get("roll"),
        "client_seed": data.get("client_seed", ""),
        "source": data.get("source"),
        "hidden": bool(data.get("hidden", False)),
        "commitment": trail.commitment,
        "revealed_at": trail.reveal.get("version") if trail.reveal is not None else None,
        "proof": proof,
        "proof_detail": detail,
        "disputes": trail.disputes,
    }


def _step(trail: _Trail, envelope: Mapping[str, Any], seq: int, proj: Projection) -> None:
    kind, data = envelope.get("type"), envelope.get("data") or {}
    if kind == "combatant_added":
        trail.names[str(data["combatant_id"])] = str(data["name"])
    elif kind == "reaction_awaited":
        trail.attackers[int(data["pending_id"])] = str(data["attacker"])
    if trail.rolled is None:
        if kind in _ACTIONS:
            trail.action = envelope
            trail.action_line = declaration(event_from(str(kind), dict(data)), proj.state)
        elif kind == "seed_committed":
            trail.commitments[str(data["seed_id"])] = str(data["commitment"])
        elif kind == "die_rolled" and data.get("seq") == seq:
            trail.rolled = envelope
            trail.commitment = trail.commitments.get(str(data.get("seed_id")))
    elif kind == "seed_revealed" and trail.reveal is None:
        if data.get("seed_id") == (trail.rolled.get("data") or {}).get("seed_id"):
            trail.reveal = envelope
    elif kind == "roll_disputed" and data.get("seq") == seq:
        trail.disputes.append(
            {"by": data.get("by"), "reason": data.get("reason"), "version": proj.version}
        )
    elif kind == "dispute_answered" and data.get("seq") == seq:
        # The GM's answer closes every dispute of the roll still open (CONTRACT 4).
        for d in trail.disputes:
            if "answer" not in d:
                d["answer"], d["answered_version"] = data.get("answer"), proj.version


def _command(envelope: Mapping[str, Any]) -> Any:
    return (envelope.get("meta") or {}).get("command_id")


def _action(trail: _Trail, rolled: Mapping[str, Any], ruleset: str) -> dict[str, Any] | None:
    """The action or reaction this roll was made for: declared by the same command."""
    env = trail.action
    if env is None or _command(env) != _command(rolled):
        return None
    data = env.get("data") or {}
    reaction = env.get("type") == "reaction_declared"
    code = str(data.get("reaction") if reaction else data.get("action"))
    pending = int(data.get("pending_id", 0))
    target = trail.attackers.get(pending) if reaction else data.get("target")
    rules = REGISTRY.get(ruleset)
    specs = (rules.reactions if reaction else rules.actions) if rules is not None else {}
    spec = specs.get(code)
    actor = data.get("actor")
    return {
        "version": env.get("version"),
        "type": env.get("type"),
        "actor": actor,
        "actor_name": trail.names.get(str(actor), actor),
        "code": code,
        "label": spec.label if spec is not None else code,
        "label_fr": spec.label_fr if spec is not None else code,
        "target": target,
        "target_name": trail.names.get(str(target), target) if target is not None else None,
        "rank": data.get("rank"),
        "rule": spec.rule if spec is not None else None,
        "text": trail.action_line[0] if trail.action_line else None,
        "text_fr": trail.action_line[1] if trail.action_line else None,
    }


def _check(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, Mapping):
        return None
    return {
        "stat": raw.get("stat"),
        "base": raw.get("base"),
        "modifiers": [
            {"source": m.get("source"), "rule": m.get("rule"), "delta": m.get("delta")}
            for m in raw.get("modifiers", [])
        ],
        "threshold": raw.get("threshold"),
        "outcome": raw.get("outcome"),
        "margin": raw.get("margin"),
        "under": raw.get("under", True),
        "rule": raw.get("rule"),
    }


def _rules(action: Mapping[str, Any] | None, check: Mapping[str, Any] | None) -> list[str]:
    found: list[Any] = []
    if action is not None:
        found.append(action["rule"])
    if check is not None:
        found.append(check["rule"])
        found += [m["rule"] for m in check["modifiers"]]
    return [str(r) for r in dict.fromkeys(found) if r]


def _proof(
    data: Mapping[str, Any],
    commitment: str | None,
    reveal: Mapping[str, Any] | None,
    encounter_id: str,
) -> tuple[str, str]:
    """The proof status of a roll and why, in words."""
    seed_id = data.get("seed_id")
    if data.get("source") == "manual":
        return "manual", "physical dice entered by the GM, drawn from no seed"
    if reveal is None:
        return "committed", f"seed {seed_id} is not revealed yet; its commitment is public"
    try:
        seed = bytes.fromhex(str((reveal.get("data") or {}).get("seed")))
    except ValueError:
        return "mismatch", f"the seed revealed for {seed_id} is not hexadecimal"
    if hashlib.sha256(seed).hexdigest() != commitment:
        return "mismatch", f"the seed revealed for {seed_id} does not match its commitment"
    faces = list(data.get("faces", []))
    try:
        number = int(data["roll"])
        expected = draw(
            seed,
            encounter_id,
            str(data.get("client_seed", "")),
            number,
            list(data.get("sizes", [])),
        )
    except (DiceError, KeyError, TypeError, ValueError) as error:
        return "mismatch", f"the roll cannot be recomputed: {error}"
    if expected != faces:
        return "mismatch", f"the revealed seed gives {expected}, not {faces}"
    return "verified", f"seed {seed_id} matches its commitment and gives these faces"


def audit_text(record: Mapping[str, Any]) -> str:
    """The audit record in English words, one fact per line."""
    out = [f"Roll {record['roll']} (version {record['version']}, hash {record['hash']})"]
    out.append(f"Who: {record['actor_name']} ({record['actor']})")
    out.append(f"Why: {record['purpose']}")
    action = record.get("action")
    if action is not None:
        said = action["text"] or f"{action['actor_name']}: {action['label']}"
        rule = f", rule {action['rule']}" if action["rule"] else ""
        out.append(f"Action: {said} (version {action['version']}{rule})")
    dice = ", ".join(f"d{size}" for size in record["sizes"])
    faces = ", ".join(map(str, record["faces"]))
    out.append(f"Dice: {record['expr']} ({dice}) showed {faces}; total {record['total']}")
    out += _check_text(record.get("check"))
    rules = ", ".join(record["rules"]) or "none"
    out.append(f"Rules: {rules}")
    if record["source"] == "manual":
        out.append("Source: manual (physical dice entered by the GM)")
    else:
        client = record["client_seed"] or "none"
        out.append(
            f"Source: server, seed {record['seed_id']}, roll number {record['roll_number']}, "
            f"client seed {client}"
        )
        out.append(f"Commitment: {record['commitment']}")
    out.append(f"Proof: {record['proof']} ({record['proof_detail']})")
    disputes = record.get("disputes") or []
    if not disputes:
        out.append("Disputes: none")
    for d in disputes:
        out.append(
            f"Disputed by {principal(str(d['by']))} at version {d['version']}: {d['reason']}"
        )
        if "answer" in d:
            out.append(f"  GM's answer at version {d['answered_version']}: {d['answer']}")
    return "\n".join(out)


def _check_text(check: Mapping[str, Any] | None) -> list[str]:
    if check is None:
        return ["Check: none (a plain roll)"]
    out = [f"Check: {check['stat']}, base {check['base']}"]
    for m in check["modifiers"]:
        rule = f" ({m['rule']})" if m["rule"] else ""
        out.append(f"  {m['delta']:+d} {m['source']}{rule}")
    if not check["modifiers"]:
        out.append("  no modifiers")
    how = "at most" if check["under"] else "at least"
    margin = f", margin {check['margin']}" if check["margin"] is not None else ""
    rule = f", rule {check['rule']}" if check["rule"] else ""
    out.append(
        f"  needs {how} {check['threshold']}: {outcome_words(check['outcome'])}{margin}{rule}"
    )
    return out
