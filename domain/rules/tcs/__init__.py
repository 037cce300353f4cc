"""d100-tcs (shared/rules/d100-tcs.md): two declared actions per round, TCS, armor, morale."""

from domain.rules.tcs.system import TCS

__all__ = ["TCS"]
