"""ranks-d100 (shared/rules/ranks-d100.md): Masters & Servants, ranks EX..E, the War's rules."""

from domain.rules.ranks.system import RanksD100

__all__ = ["RanksD100"]
