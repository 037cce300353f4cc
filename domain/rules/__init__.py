"""Rule systems, registered by id in a plain dict (no discovery by import side effects)."""

from __future__ import annotations

from domain.context import RuleSystem
from domain.rules.d20_na import D20NA
from domain.rules.plain_d100 import PlainD100
from domain.rules.ranks import RanksD100
from domain.rules.tcs import TCS

REGISTRY: dict[str, RuleSystem] = {
    PlainD100.id: PlainD100(),
    D20NA.id: D20NA(),
    RanksD100.id: RanksD100(),
    TCS.id: TCS(),
}
