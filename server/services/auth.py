"""Access tokens: opaque, random, stored only as their SHA-256.

Each token also has a short public id (random, not derived from the secret) by which
the GM lists and revokes it. A revoked token opens nothing. `last_used` is written at
most once a minute per token, so that checking a token stays a single read.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, cast

from domain.state import Principal, Role
from server.store.port import SideTables, Tx


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_token_id() -> str:
    return secrets.token_hex(8)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


async def issue(
    store: SideTables,
    scope: str,
    role: Role,
    combatants: list[str] | None = None,
    *,
    conn: Tx | None = None,
) -> str:
    """Store a new token's hash for `role` (on `conn`, so it joins the caller's transaction)."""
    _, token = await issue_with_id(store, scope, role, combatants, conn=conn)
    return token


async def issue_with_id(
    store: SideTables,
    scope: str,
    role: Role,
    combatants: list[str] | None = None,
    *,
    conn: Tx | None = None,
) -> tuple[str, str]:
    """Like `issue`, and also answer the token's public id: (id, token)."""
    token, token_id = new_token(), new_token_id()
    await store.add_token(scope, token_hash(token), role, combatants or [], token_id, conn=conn)
    return token_id, token


async def principal(store: SideTables, scope: str, token: str) -> Principal | None:
    """The role a token gives on an encounter or War, or None (none, or revoked)."""
    found = await store.grant(scope, token_hash(token))
    if found is None:
        return None
    role = cast(Role, found.role)
    combatants = frozenset(found.combatants)
    name = role if role != "player" else "player:" + ",".join(sorted(combatants))
    return Principal(role, combatants, name)


async def tokens_of(store: SideTables, scope: str) -> list[dict[str, Any]]:
    """The live tokens, oldest first: never their secret nor its hash."""
    return [
        {
            "id": r.id,
            "role": r.role,
            "combatants": r.combatants,
            "created": r.created_at.isoformat(),
            "last_used": r.last_used.isoformat() if r.last_used else None,
        }
        for r in await store.live_tokens(scope)
    ]


async def revoke(store: SideTables, scope: str, token_id: str) -> bool:
    """Revoke one token and tell every instance to close its websockets."""
    return await store.revoke_token(scope, token_id)


async def id_of(store: SideTables, scope: str, token: str) -> str | None:
    """The public id of a live token."""
    return await store.token_id(scope, token_hash(token))


def view_role(who: Principal) -> str:
    """The view a caller reads: the GM's, or the public one (players and spectators)."""
    return "gm" if who.role == "gm" else "public"
