"""Rule systems, registered by id in a plain dict (no discovery by import side effects)."""

from __future__ import annotations

from domain.rules.base import RuleSystem
from domain.rules.plain_d100 import PlainD100

REGISTRY: dict[str, RuleSystem] = {
    PlainD100.id: PlainD100(),
}
