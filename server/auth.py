"""Access tokens: opaque, random, stored only as their SHA-256."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import asyncpg

from domain.state import Principal, Role


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


async def issue(
    conn: Any, encounter_id: str, role: Role, combatants: list[str] | None = None
) -> str:
    """Store a new token's hash for `role` (on `conn`, so it joins the caller's transaction)."""
    token = new_token()
    await conn.execute(
        "INSERT INTO tokens (token_hash, encounter, role, combatants) VALUES ($1, $2, $3, $4)",
        token_hash(token),
        encounter_id,
        role,
        combatants or [],
    )
    return token


async def principal(pool: asyncpg.Pool[Any], encounter_id: str, token: str) -> Principal | None:
    """The role a token gives on an encounter, or None if it gives none."""
    row = await pool.fetchrow(
        "SELECT role, combatants FROM tokens WHERE token_hash = $1 AND encounter = $2",
        token_hash(token),
        encounter_id,
    )
    if row is None:
        return None
    role: Role = row["role"]
    combatants = frozenset(row["combatants"])
    name = role if role != "player" else "player:" + ",".join(sorted(combatants))
    return Principal(role, combatants, name)
