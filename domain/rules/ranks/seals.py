"""ranks-d100 Command Seals (Sceaux de Commandement): the forced interception (RK-39).

What the source says of Command Seals, all of it (seed 000, lines 35 and 62):

- "actions gratuites, qui se font sans qu'il y ait besoin d'un lancé de dés [...] utiliser
  un sceau de commandement" (RK-18): using one rolls no die and takes no complex action.
- "Un Servant peut volontairement (ou non, via un Sceau de Commandement) effectuer une
  Action d'Interception : soit prendre les Dégâts à la place de son Master, dans ce cas là
  il peut uniquement effectuer une Action d'Endurance" (RK-39): a seal forces the Servant
  to intercept, whoever controls the Servant; it then reduces with Endurance or not at all.

Implemented: `react {actor: <the Master attacked>, reaction: "intercept", options:
{"command_seal": true}}` spends one of the Master's seals (a `resource_changed` of
`command_seals`, -1, rule RK-39) and the Servant intercepts even if the caller does not
control it. The Master's count is the GM-declared sheet field `command_seals` (a whole
number), since the source gives none.

What has NO numbers in the source and stays out (RK-AMB-26, "Command Seal effects"):

- how many seals a Master has: no number in the source (no default is invented; a Master
  whose sheet declares none has 0 and cannot force an interception);
- whether seals come back (per Day, per War): not said;
- every other effect of a seal (orders, boosts, teleport): not in the source.
"""

from __future__ import annotations

from typing import Any

from domain.context import Ctx
from domain.errors import Invalid, Refused, RuleViolation
from domain.state import Combatant

MAX_SEALS = 99
RESOURCE = "command_seals"


def validate_seals(kind: str, raw: Any) -> int | None:
    """The GM-declared `command_seals` of a Master (RK-39); None when not declared."""
    if raw is None:
        return None
    if kind != "master":
        raise RuleViolation(rule="RK-39", reason="seals_masters_only")
    if type(raw) is not int or not 0 <= raw <= MAX_SEALS:
        raise Invalid(
            rule="RK-39", reason="sheet_command_seals_whole_number", params={"max": MAX_SEALS}
        )
    return int(raw)


def left(master: Combatant) -> int:
    """Seals the Master still has."""
    return int(master.resources.get(RESOURCE, 0))


def spend(ctx: Ctx, master: Combatant) -> None:
    """One seal for a forced interception (RK-39, RK-18: free, no die)."""
    if left(master) < 1:
        raise Refused(
            "limit_reached", rule="RK-39", reason="no_seal_left", params={"master": master}
        )
    ctx.change(master.id, RESOURCE, -1, "command seal: forced interception", "RK-39")
