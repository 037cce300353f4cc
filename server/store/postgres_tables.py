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
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy

from server.store.db import connect_hosts
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
    Unavailable,
    WebhookConfig,
    WebhookHead,
)
from server.store.settings import DbSettings

log = logging.getLogger(__name__)
REVOKED = "fracas_tokens"  # NOTIFY channel: payload = the revoked token's public id

# --- the SQL ------------------------------------------------------------------------

_SQL_ADD_TOKEN = """
INSERT INTO tokens (token_hash, scope, role, combatants, id)
VALUES ($1, $2, $3, $4, $5)"""
_SQL_GRANT = """
SELECT role, combatants FROM tokens
 WHERE token_hash = $1 AND scope = $2 AND revoked_at IS NULL"""
# The uses noted since the last batch, in one statement, off the read path (Touches).
_SQL_TOUCH = """
UPDATE tokens t SET last_used = u.at
  FROM unnest($1::text[], $2::timestamptz[]) AS u(token_hash, at)
 WHERE t.token_hash = u.token_hash AND (t.last_used IS NULL OR t.last_used < u.at)"""
_SQL_LIVE_TOKENS = """
SELECT id, role, combatants, created_at, last_used, token_hash FROM tokens
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
# A test sent again at the same checkpoint: the row starts over as a new delivery.
_SQL_REQUEUE = """
INSERT INTO webhook_deliveries (id, webhook, version, kind, body)
SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[])
ON CONFLICT ON CONSTRAINT webhook_deliveries_event_key DO UPDATE
   SET id = excluded.id, body = excluded.body, state = 'pending', attempts = 0,
       next_at = now(), last_status = NULL, last_error = NULL, created_at = now(),
       delivered_at = NULL"""
_SQL_HOLD = """
SELECT id, encounter::text AS encounter, format, kinds, lang, base, checkpoint
  FROM webhooks WHERE encounter = $1 FOR UPDATE"""
# Each webhook's queue goes in order, one delivery at a time: its head is its pending row
# first in (version, kind) order (`test` after a version's others), claimed only if due,
# so a row waiting for a retry (or leased to a sender) holds the rows after it. None of
# the webhooks in $3. The head is chosen without a lock, then locked SKIP LOCKED: a head
# another claim holds is skipped, never passed over for the row behind it, and the UPDATE
# checks again that it is pending and due (a concurrent claim or outcome moved it).
_SQL_CLAIM = """
WITH heads AS (
  SELECT DISTINCT ON (webhook) id, webhook, next_at FROM webhook_deliveries
   WHERE state = 'pending'
   ORDER BY webhook, version, kind = 'test', kind
), due AS (
  SELECT d.id, h.next_at FROM webhook_deliveries d JOIN heads h ON h.id = d.id
   WHERE h.next_at <= now() AND NOT (h.webhook = ANY($3::text[]))
   ORDER BY h.next_at LIMIT $1
   FOR UPDATE OF d SKIP LOCKED
)
UPDATE webhook_deliveries d
   SET attempts = d.attempts + 1, next_at = now() + make_interval(secs => $2)
  FROM webhooks w, due
 WHERE d.id = due.id AND w.id = d.webhook AND d.state = 'pending' AND d.next_at <= now()
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


_SQL_READY = """
INSERT INTO fracas_ready (id, at) VALUES (1, now())
ON CONFLICT (id) DO UPDATE SET at = excluded.at"""
_SQL_READ_ONLY = "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'"


class Touches:
    """Token uses, written in batches by a background task instead of on the read path.

    A token is noted at most once per `every` seconds by this instance; what is noted is
    written `delay` seconds later with every other use noted meanwhile, in one UPDATE.
    A batch that fails (the database away, or a replica) is dropped with a warning: the
    next use after `every` notes it again.
    """

    def __init__(self, pool: asyncpg.Pool[Any], every: float = 60.0, delay: float = 1.0) -> None:
        self._pool = pool
        self._every = every
        self._delay = delay
        self._pending: dict[str, datetime] = {}
        self._noted: OrderedDict[str, float] = OrderedDict()  # token hash -> loop time
        self._task: asyncio.Task[None] | None = None
        self.batches = 0  # statements sent (for tests and diagnostics)

    def note(self, token_hash: str) -> None:
        loop = asyncio.get_running_loop()
        last = self._noted.get(token_hash)
        if last is not None and loop.time() - last < self._every:
            return
        self._noted[token_hash] = loop.time()
        self._noted.move_to_end(token_hash)
        while len(self._noted) > _TOUCHES_KEPT:
            self._noted.popitem(last=False)
        self._pending[token_hash] = datetime.now(UTC)
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            self._task = loop.create_task(self._run())

    def latest(self, token_hash: str, stored: datetime | None) -> datetime | None:
        """The later of the stored last use and one noted here but not yet written."""
        pending = self._pending.get(token_hash)
        if pending is None or (stored is not None and stored >= pending):
            return stored
        return pending

    async def _run(self) -> None:
        while self._pending:
            await asyncio.sleep(self._delay)
            batch = dict(self._pending)
            try:
                await self._pool.execute(_SQL_TOUCH, list(batch), list(batch.values()))
                self.batches += 1
            except Exception as e:  # noted again at the next use after `every`
                log.warning("tokens: %d uses not written (%s)", len(batch), e)
                for token_hash in batch:
                    self._noted.pop(token_hash, None)
            for token_hash, at in batch.items():
                if self._pending.get(token_hash) == at:
                    del self._pending[token_hash]


_TOUCHES_KEPT = 100_000  # tokens whose last noted use this instance remembers


def _locked(r: asyncpg.Record | None) -> LockedWebhook | None:
    """A webhook row read FOR UPDATE (by `lock_webhook` or `hold_webhook`)."""
    if r is None:
        return None
    return LockedWebhook(
        r["id"], r["encounter"], r["format"], list(r["kinds"]), r["lang"], r["base"],
        r["checkpoint"],
    )  # fmt: skip


class PostgresTables:
    """The side tables on PostgreSQL: a base of PostgresEventStore, on its pool."""

    _pool: asyncpg.Pool[Any]
    _notify_dsn: str | None
    _settings: DbSettings
    touches: Touches  # token uses, written in the background

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """A pooled connection inside a transaction: committed on exit, rolled back on error."""
        async with self._pool.acquire() as conn, conn.transaction():
            yield conn

    async def ping(self) -> None:
        """One round trip to the database."""
        await self._pool.fetchval("SELECT 1")

    async def writable(self) -> None:
        """Commit a write now, or raise: Unavailable when the server is a standby or
        read-only, TimeoutError when the commit waits (a lost synchronous standby).

        The write rewrites one row of fracas_ready (server/store/db.py)."""
        async with self._pool.acquire() as conn:
            if await conn.fetchval(_SQL_READ_ONLY):
                raise Unavailable("the database server is read-only now (a standby?)")
            await conn.execute(_SQL_READY)

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
        """What a live token opens (a read only: its use is noted in the background, at
        most once a minute per token and instance, so a read can go to a replica)."""
        row = await self._pool.fetchrow(_SQL_GRANT, token_hash, scope)
        if row is None:
            return None
        self.touches.note(token_hash)
        return Grant(row["role"], list(row["combatants"]))

    async def live_tokens(self, scope: str) -> list[TokenRow]:
        """The live tokens of `scope`, oldest first (with uses noted but not yet written)."""
        rows = await self._pool.fetch(_SQL_LIVE_TOKENS, scope)
        touches = self.touches
        return [
            TokenRow(
                r["id"],
                r["role"],
                list(r["combatants"]),
                r["created_at"],
                touches.latest(r["token_hash"], r["last_used"]),
            )
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
            conn: Conn = await connect_hosts(self._notify_dsn, self._settings)
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
        return _locked(await as_conn(conn).fetchrow(_SQL_LOCK, hook_id))

    async def hold_webhook(self, encounter: str, *, conn: Tx) -> LockedWebhook | None:
        """SELECT ... FOR UPDATE: waits for a scanner holding the row."""
        return _locked(await as_conn(conn).fetchrow(_SQL_HOLD, encounter))

    async def enqueue(
        self, deliveries: Sequence[NewDelivery], *, conn: Tx, replace: bool = False
    ) -> None:
        """One INSERT for the batch, ON CONFLICT (webhook, version, kind) DO NOTHING (or
        with `replace`, the row made new)."""
        if not deliveries:
            return
        columns = zip(*(msgspec.structs.astuple(d) for d in deliveries), strict=True)
        sql = _SQL_REQUEUE if replace else _SQL_ENQUEUE
        await as_conn(conn).execute(sql, *map(list, columns))

    async def move_checkpoint(self, hook_id: str, version: int, *, conn: Tx) -> None:
        """The last version the webhook's deliveries were made from."""
        await as_conn(conn).execute(
            "UPDATE webhooks SET checkpoint = $2 WHERE id = $1", hook_id, version
        )

    async def claim_due(
        self, limit: int, lease: float, *, busy: Sequence[str] = ()
    ) -> list[Claimed]:
        """One UPDATE over the due heads taken FOR UPDATE SKIP LOCKED, next_at past the
        lease."""
        rows = await self._pool.fetch(_SQL_CLAIM, limit, lease, list(busy))
        return [Claimed(**dict(r)) for r in rows]

    async def delivered(self, delivery_id: str, status: int | None) -> None:
        """Done for good."""
        await self._pool.execute(_SQL_DONE, delivery_id, status)

    async def delivery_failed(
        self, delivery_id: str, status: int | None, give_up: bool, delay: float, error: str
    ) -> None:
        """Due again in `delay` seconds, or `failed` if `give_up`; only while pending."""
        await self._pool.execute(_SQL_FAILED, delivery_id, status, give_up, delay, error)
