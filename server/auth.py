"""Access tokens: opaque, random, stored only as their SHA-256.

Each token also has a short public id (random, not derived from the secret) by which
the GM lists and revokes it. A revoked token opens nothing. `last_used` is written at
most once a minute per token, so that checking a token stays a single read.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import asyncpg

from domain.state import Principal, Role

REVOKED = "fracas_tokens"  # NOTIFY channel: payload = the revoked token's public id


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_token_id() -> str:
    return secrets.token_hex(8)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


async def issue(
    conn: Any, encounter_id: str, role: Role, combatants: list[str] | None = None
) -> str:
    """Store a new token's hash for `role` (on `conn`, so it joins the caller's transaction)."""
    _, token = await issue_with_id(conn, encounter_id, role, combatants)
    return token


async def issue_with_id(
    conn: Any, encounter_id: str, role: Role, combatants: list[str] | None = None
) -> tuple[str, str]:
    """Like `issue`, and also answer the token's public id: (id, token)."""
    token, token_id = new_token(), new_token_id()
    await conn.execute(
        "INSERT INTO tokens (token_hash, encounter, role, combatants, id)"
        " VALUES ($1, $2, $3, $4, $5)",
        token_hash(token),
        encounter_id,
        role,
        combatants or [],
        token_id,
    )
    return token_id, token


_SQL_PRINCIPAL = """
SELECT role, combatants,
       last_used IS NULL OR last_used < now() - interval '1 minute' AS stale
  FROM tokens
 WHERE token_hash = $1 AND encounter = $2 AND revoked_at IS NULL"""
_SQL_TOUCH = """
UPDATE tokens SET last_used = now()
 WHERE token_hash = $1 AND (last_used IS NULL OR last_used < now() - interval '1 minute')"""


async def principal(pool: asyncpg.Pool[Any], encounter_id: str, token: str) -> Principal | None:
    """The role a token gives on an encounter, or None if it gives none (or was revoked)."""
    digest = token_hash(token)
    row = await pool.fetchrow(_SQL_PRINCIPAL, digest, encounter_id)
    if row is None:
        return None
    if row["stale"]:
        await pool.execute(_SQL_TOUCH, digest)
    role: Role = row["role"]
    combatants = frozenset(row["combatants"])
    name = role if role != "player" else "player:" + ",".join(sorted(combatants))
    return Principal(role, combatants, name)


async def tokens_of(pool: asyncpg.Pool[Any], encounter_id: str) -> list[dict[str, Any]]:
    """The encounter's live tokens, oldest first: never their secret nor its hash."""
    rows = await pool.fetch(
        "SELECT id, role, combatants, created_at, last_used FROM tokens"
        " WHERE encounter = $1 AND revoked_at IS NULL"
        " ORDER BY created_at, array_position(ARRAY['gm', 'spectator', 'player'], role),"
        " combatants, id",
        encounter_id,
    )
    return [
        {
            "id": r["id"],
            "role": r["role"],
            "combatants": list(r["combatants"]),
            "created": r["created_at"].isoformat(),
            "last_used": r["last_used"].isoformat() if r["last_used"] else None,
        }
        for r in rows
    ]


async def revoke(pool: asyncpg.Pool[Any], encounter_id: str, token_id: str) -> bool:
    """Revoke one token and tell every instance (NOTIFY) to close its websockets."""
    async with pool.acquire() as conn, conn.transaction():
        done = await conn.fetchval(
            "UPDATE tokens SET revoked_at = now()"
            " WHERE encounter = $1 AND id = $2 AND revoked_at IS NULL RETURNING id",
            encounter_id,
            token_id,
        )
        if done is None:
            return False
        await conn.execute("SELECT pg_notify($1, $2)", REVOKED, token_id)
    return True


async def id_of(pool: asyncpg.Pool[Any], encounter_id: str, token: str) -> str | None:
    """The public id of a live token."""
    found: str | None = await pool.fetchval(
        "SELECT id FROM tokens WHERE token_hash = $1 AND encounter = $2 AND revoked_at IS NULL",
        token_hash(token),
        encounter_id,
    )
    return found
