"""The side tables of the store port on PostgreSQL: their SQL, in `PostgresTables`.

`PostgresTables` is a base of `server.store.postgres.PostgresEventStore`, so the adapter is one
object and all the server's SQL lives in server/store.py (the events) and here (tokens,
dice seeds, command keys, webhooks and their deliveries). The port and its rows are
`server.store.port`; asyncpg errors are translated here (a unique violation on a row that
is only inserted once becomes `AlreadyStored`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy

from server.store.listen import Conn, as_conn
from server.store.port import (
    Alive,
    AlreadyStored,
    Claimed,
    Delivery,
    Grant,
    KeyOutcome,
    LockedWebhook,
    NewDelivery,
    NewWebhook,
    TokenRow,
    Tx,
    WebhookConfig,
    WebhookHead,
)

REVOKED = "fracas_tokens"  # NOTIFY channel: payload = the revoked token's public id

# --- the SQL ------------------------------------------------------------------------

_SQL_ADD_TOKEN = """
INSERT INTO tokens (token_hash, scope, role, combatants, id)
VALUES ($1, $2, $3, $4, $5)"""
_SQL_GRANT = """
SELECT role, combatants,
       last_used IS NULL OR last_used < now() - interval '1 minute' AS stale
  FROM tokens
 WHERE token_hash = $1 AND scope = $2 AND revoked_at IS NULL"""
_SQL_TOUCH = """
UPDATE tokens SET last_used = now()
 WHERE token_hash = $1 AND (last_used IS NULL OR last_used < now() - interval '1 minute')"""
_SQL_LIVE_TOKENS = """
SELECT id, role, combatants, created_at, last_used FROM tokens
 WHERE scope = $1 AND revoked_at IS NULL
 ORDER BY created_at, array_position(ARRAY['gm', 'spectator', 'player'], role), combatants, id"""
_SQL_TOKEN_ID = """
SELECT id FROM tokens WHERE token_hash = $1 AND scope = $2 AND revoked_at IS NULL"""
_SQL_REVOKE = """
UPDATE tokens SET revoked_at = now()
 WHERE scope = $1 AND id = $2 AND revoked_at IS NULL RETURNING id"""
_SQL_REVOKED_AMONG = """
SELECT id FROM tokens WHERE id = ANY($1::text[]) AND revoked_at IS NOT NULL"""

_SQL_ADD_SEED = "INSERT INTO dice_seeds (encounter, seed_id, seed) VALUES ($1, $2, $3)"
_SQL_SEEDS = "SELECT seed_id, seed FROM dice_seeds WHERE encounter = $1"

_SQL_KEEP_OUTCOME = """
INSERT INTO command_keys (stream, caller, key_hash, body_hash, status, outcome)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING true"""
_SQL_OUTCOME = """
SELECT body_hash, status, outcome::text AS outcome FROM command_keys
 WHERE stream = $1 AND caller = $2 AND key_hash = $3"""

_SQL_SET_WEBHOOK = """
INSERT INTO webhooks (id, encounter, url, format, kinds, lang, base, secret, checkpoint)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"""
_SQL_WEBHOOK = """
SELECT id, url, format, kinds, lang, created_at FROM webhooks WHERE encounter = $1"""
_SQL_RECENT = """
SELECT id, version, kind, state, attempts, last_status, last_error, created_at,
       delivered_at, next_at
  FROM webhook_deliveries WHERE webhook = $1
 ORDER BY created_at DESC, version DESC LIMIT $2"""
_SQL_HOOKS = """
SELECT w.id, w.encounter::text AS encounter, w.checkpoint,
       (SELECT max(e.version) FROM events e WHERE e.stream = 'encounter-' || w.encounter::text)
         AS head
  FROM webhooks w"""
_SQL_LOCK = """
SELECT id, encounter::text AS encounter, format, kinds, lang, base, checkpoint
  FROM webhooks WHERE id = $1 FOR UPDATE SKIP LOCKED"""
_SQL_ENQUEUE = """
INSERT INTO webhook_deliveries (id, webhook, version, kind, body)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[])
ON CONFLICT ON CONSTRAINT webhook_deliveries_event_key DO NOTHING"""
# Due rows per webhook, at most $3 of each ($3 NULL: no limit) and none of the webhooks in
# $4, oldest due first: one webhook's backlog cannot take every slot of a worker.
_SQL_CLAIM = """
UPDATE webhook_deliveries d
   SET attempts = d.attempts + 1, next_at = now() + make_interval(secs => $2)
  FROM webhooks w
 WHERE w.id = d.webhook
   AND d.id IN (SELECT due.id
                  FROM (SELECT DISTINCT webhook FROM webhook_deliveries
                         WHERE state = 'pending' AND next_at <= now()
                           AND NOT (webhook = ANY($4::text[]))) h
                 CROSS JOIN LATERAL (
                       SELECT id, next_at FROM webhook_deliveries
                        WHERE webhook = h.webhook AND state = 'pending' AND next_at <= now()
                        ORDER BY next_at LIMIT $3
                        FOR UPDATE SKIP LOCKED) due
                 ORDER BY due.next_at LIMIT $1)
RETURNING d.id, d.body, d.attempts, d.created_at, w.url, w.secret, d.webhook"""
_SQL_DONE = """
UPDATE webhook_deliveries
   SET state = 'delivered', delivered_at = now(), last_status = $2, last_error = NULL
 WHERE id = $1"""
_SQL_FAILED = """
UPDATE webhook_deliveries
   SET state = CASE WHEN $3 THEN 'failed' ELSE 'pending' END,
       next_at = now() + make_interval(secs => $4), last_status = $2, last_error = $5
 WHERE id = $1 AND state = 'pending'"""


class PostgresTables:
    """The side tables on PostgreSQL: a base of PostgresEventStore, on its pool."""

    _pool: asyncpg.Pool[Any]
    _notify_dsn: str | None

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """A pooled connection inside a transaction: committed on exit, rolled back on error."""
        async with self._pool.acquire() as conn, conn.transaction():
            yield conn

    async def ping(self) -> None:
        """One round trip to the database."""
        await self._pool.fetchval("SELECT 1")

    # --- tokens ------------------------------------------------------------------------
    async def add_token(
        self,
        scope: str,
        token_hash: str,
        role: str,
        combatants: Sequence[str],
        token_id: str,
        *,
        conn: Tx | None = None,
    ) -> None:
        """Store a token for `scope`; AlreadyStored if its hash or id is taken."""
        runner = self._pool if conn is None else as_conn(conn)
        try:
            await runner.execute(
                _SQL_ADD_TOKEN, token_hash, scope, role, list(combatants), token_id
            )
        except asyncpg.UniqueViolationError as e:
            raise AlreadyStored(f"a token with this hash or id {token_id!r} exists") from e

    async def grant(self, scope: str, token_hash: str) -> Grant | None:
        """What a live token opens; `last_used` is written at most once a minute."""
        row = await self._pool.fetchrow(_SQL_GRANT, token_hash, scope)
        if row is None:
            return None
        if row["stale"]:
            await self._pool.execute(_SQL_TOUCH, token_hash)
        return Grant(row["role"], list(row["combatants"]))

    async def live_tokens(self, scope: str) -> list[TokenRow]:
        """The live tokens of `scope`, oldest first."""
        rows = await self._pool.fetch(_SQL_LIVE_TOKENS, scope)
        return [
            TokenRow(r["id"], r["role"], list(r["combatants"]), r["created_at"], r["last_used"])
            for r in rows
        ]

    async def token_id(self, scope: str, token_hash: str) -> str | None:
        """The public id of a live token."""
        found: str | None = await self._pool.fetchval(_SQL_TOKEN_ID, token_hash, scope)
        return found

    async def revoke_token(self, scope: str, token_id: str) -> bool:
        """Revoke one token and NOTIFY every instance, in one transaction."""
        async with self._pool.acquire() as conn, conn.transaction():
            done = await conn.fetchval(_SQL_REVOKE, scope, token_id)
            if done is None:
                return False
            await conn.execute("SELECT pg_notify($1, $2)", REVOKED, token_id)
        return True

    async def revoked_among(self, token_ids: Sequence[str]) -> list[str]:
        """The revoked ones among `token_ids`, in one query."""
        rows = await self._pool.fetch(_SQL_REVOKED_AMONG, list(token_ids))
        return [r["id"] for r in rows]

    @contextlib.asynccontextmanager
    async def listen_revoked(self, on_revoked: Callable[[str], None]) -> AsyncIterator[Alive]:
        """LISTEN fracas_tokens on a dedicated connection (the pool's, without a DSN)."""

        def on_notify(conn: object, pid: int, channel: str, payload: object) -> None:
            on_revoked(str(payload))

        pooled: PoolConnectionProxy[Any] | None = None
        if self._notify_dsn is not None:
            conn: Conn = await asyncpg.connect(self._notify_dsn)
        else:
            conn = pooled = await self._pool.acquire()
        try:
            await conn.add_listener(REVOKED, on_notify)

            async def alive() -> None:
                await asyncio.wait_for(conn.execute("SELECT 1"), 5)  # still listening?

            yield alive
        finally:
            if not conn.is_closed():
                with contextlib.suppress(Exception):
                    if pooled is None:
                        await asyncio.wait_for(conn.close(), 2)
                    else:
                        await pooled.remove_listener(REVOKED, on_notify)
                        await self._pool.release(pooled, timeout=2)

    # --- dice seeds --------------------------------------------------------------------
    async def add_seeds(
        self, encounter: str, seeds: Mapping[str, bytes], *, conn: Tx | None = None
    ) -> None:
        """Insert the seeds (in `conn`'s transaction, else in one of their own)."""
        try:
            if conn is not None:
                for sid, seed in seeds.items():
                    await as_conn(conn).execute(_SQL_ADD_SEED, encounter, sid, seed)
                return
            async with self.transaction() as own:
                for sid, seed in seeds.items():
                    await as_conn(own).execute(_SQL_ADD_SEED, encounter, sid, seed)
        except asyncpg.UniqueViolationError as e:
            raise AlreadyStored(f"encounter {encounter} already has such a seed") from e

    async def seeds(self, encounter: str) -> dict[str, bytes]:
        """Every seed of the encounter, by seed id."""
        rows = await self._pool.fetch(_SQL_SEEDS, encounter)
        return {r["seed_id"]: bytes(r["seed"]) for r in rows}

    # --- command keys ------------------------------------------------------------------
    async def keep_outcome(
        self,
        stream: str,
        caller: str,
        key_hash: str,
        body_hash: str,
        status: int,
        outcome: Mapping[str, Any],
        *,
        conn: Tx | None = None,
    ) -> bool:
        """INSERT ... ON CONFLICT DO NOTHING: a concurrent insert of the same key waits
        for the other transaction, and finds the key taken if it commits."""
        runner = self._pool if conn is None else as_conn(conn)
        kept = await runner.fetchval(
            _SQL_KEEP_OUTCOME,
            stream,
            caller,
            key_hash,
            body_hash,
            status,
            msgspec.json.encode(outcome).decode(),
        )
        return kept is not None

    async def outcome_of(self, stream: str, caller: str, key_hash: str) -> KeyOutcome | None:
        """The outcome this caller's key has on `stream`, or None."""
        row = await self._pool.fetchrow(_SQL_OUTCOME, stream, caller, key_hash)
        if row is None:
            return None
        return KeyOutcome(row["body_hash"], row["status"], msgspec.json.decode(row["outcome"]))

    # --- webhooks ----------------------------------------------------------------------
    async def set_webhook(self, hook: NewWebhook) -> None:
        """Delete the encounter's webhook (its deliveries cascade) and insert the new one."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("DELETE FROM webhooks WHERE encounter = $1", hook.encounter)
            await conn.execute(
                _SQL_SET_WEBHOOK, hook.id, hook.encounter, hook.url, hook.format,
                list(hook.kinds), hook.lang, hook.base, hook.secret, hook.checkpoint,
            )  # fmt: skip

    async def webhook_of(self, encounter: str) -> WebhookConfig | None:
        """The encounter's webhook, or None."""
        r = await self._pool.fetchrow(_SQL_WEBHOOK, encounter)
        if r is None:
            return None
        return WebhookConfig(r["id"], r["url"], r["format"], list(r["kinds"]), r["lang"],
                             r["created_at"])  # fmt: skip

    async def recent_deliveries(self, hook_id: str, limit: int) -> list[Delivery]:
        """The webhook's latest deliveries, newest first."""
        rows = await self._pool.fetch(_SQL_RECENT, hook_id, limit)
        return [Delivery(**dict(r)) for r in rows]

    async def drop_webhook(self, encounter: str) -> bool:
        """DELETE the webhook (its deliveries cascade)."""
        gone = await self._pool.fetchval(
            "DELETE FROM webhooks WHERE encounter = $1 RETURNING id", encounter
        )
        return gone is not None

    async def webhook_heads(self) -> list[WebhookHead]:
        """Every webhook's checkpoint and its encounter's version, in one query."""
        rows = await self._pool.fetch(_SQL_HOOKS)
        return [WebhookHead(r["id"], r["encounter"], r["checkpoint"], r["head"] or 0) for r in rows]

    async def lock_webhook(self, hook_id: str, *, conn: Tx) -> LockedWebhook | None:
        """SELECT ... FOR UPDATE SKIP LOCKED: one scanner per webhook at a time."""
        r = await as_conn(conn).fetchrow(_SQL_LOCK, hook_id)
        if r is None:
            return None
        return LockedWebhook(
            r["id"], r["encounter"], r["format"], list(r["kinds"]), r["lang"], r["base"],
            r["checkpoint"],
        )  # fmt: skip

    async def enqueue(self, deliveries: Sequence[NewDelivery], *, conn: Tx) -> None:
        """One INSERT for the batch, ON CONFLICT (webhook, version, kind) DO NOTHING."""
        if not deliveries:
            return
        columns = zip(*(msgspec.structs.astuple(d) for d in deliveries), strict=True)
        await as_conn(conn).execute(_SQL_ENQUEUE, *map(list, columns))

    async def move_checkpoint(self, hook_id: str, version: int, *, conn: Tx) -> None:
        """The last version the webhook's deliveries were made from."""
        await as_conn(conn).execute(
            "UPDATE webhooks SET checkpoint = $2 WHERE id = $1", hook_id, version
        )

    async def claim_due(
        self,
        limit: int,
        lease: float,
        *,
        per_webhook: int | None = None,
        busy: Sequence[str] = (),
    ) -> list[Claimed]:
        """One UPDATE over due rows taken FOR UPDATE SKIP LOCKED, next_at past the lease."""
        rows = await self._pool.fetch(_SQL_CLAIM, limit, lease, per_webhook, list(busy))
        return [Claimed(**dict(r)) for r in rows]

    async def delivered(self, delivery_id: str, status: int | None) -> None:
        """Done for good."""
        await self._pool.execute(_SQL_DONE, delivery_id, status)

    async def delivery_failed(
        self, delivery_id: str, status: int | None, give_up: bool, delay: float, error: str
    ) -> None:
        """Due again in `delay` seconds, or `failed` if `give_up`; only while pending."""
        await self._pool.execute(_SQL_FAILED, delivery_id, status, give_up, delay, error)
