"""Words for a Command Seal spent (ranks-d100, RK-39): the log calls this for the
`resource_changed` of `command_seals` that a forced interception records."""

from __future__ import annotations

RESOURCE = "command_seals"


def seal_spent(who: str, left: int) -> tuple[str, str]:
    """English and French for `who` spending one Command Seal, `left` remaining."""
    return (
        f"{who} uses a Command Seal: their Servant must intercept (seals left: {left})",
        f"{who} utilise un Sceau de Commandement : son Servant doit intercepter "
        f"(sceaux restants : {left})",
    )
