"""The side tables of the store port in memory, and the memory store's transactions.

`MemoryTables` is a base of `server.store.memory.MemoryEventStore`, as
`server.store.postgres_tables.PostgresTables` is of the PostgreSQL store; both implement the port
`server.store.port.SideTables`, and the same contract tests hold both
(tests/integration/tables_contract.py). What the SQL promises, this keeps:

* a token's hash and id are unique; a revoked token opens nothing and is kept;
  `last_used` is written at most once a minute;
* a dice seed is inserted once and never changed (AlreadyStored, nothing written);
* an Idempotency-Key's first outcome is its only one, per (stream, caller, key);
* one webhook per encounter; a delivery is unique per (webhook, version, kind); a claim
  takes due pending rows oldest due first and hides them for the lease;
  a failure makes a pending row due again after its delay, or `failed`.

Transactions: one at a time per store (an asyncio lock), as if every transaction took
a table lock. While one is open, the task that opened it reads and writes inside it
(with or without `conn`: the memory store has one "connection"); every other task's
call waits until it ends, so nobody sees half of it. A transaction that raises is
undone, newest write first. Timestamps inside one transaction are its start time, as
PostgreSQL's now() is.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import msgspec

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

_TOUCH_EVERY = timedelta(minutes=1)
_ROLE_ORDER = {"gm": 0, "spectator": 1, "player": 2}


@dataclass
class _Tx:
    """An open transaction: the task inside it, its start time, how to undo its writes."""

    owner: asyncio.Task[Any] | None
    now: datetime
    undo: list[Callable[[], None]] = field(default_factory=list)


@dataclass
class _Token:
    hash: str
    scope: str
    role: str
    combatants: list[str]
    id: str
    created_at: datetime
    last_used: datetime | None = None
    revoked_at: datetime | None = None


@dataclass
class _Webhook:
    id: str
    encounter: str
    url: str
    format: str
    kinds: list[str]
    lang: str
    base: str
    secret: str
    checkpoint: int
    created_at: datetime


@dataclass
class _Delivery:
    id: str
    webhook: str
    version: int
    kind: str
    body: str
    created_at: datetime
    next_at: datetime
    state: str = "pending"
    attempts: int = 0
    last_status: int | None = None
    last_error: str | None = None
    delivered_at: datetime | None = None


def queue_order(d: _Delivery) -> tuple[int, bool, str]:
    """Where a delivery stands in its webhook's queue (the SQL's ORDER BY)."""
    return (d.version, d.kind == "test", d.kind)


class MemoryTables:
    """Tokens, dice seeds, command keys and webhooks in the process's memory."""

    def __init__(self) -> None:
        self._gate = asyncio.Lock()
        self._tx: _Tx | None = None
        self._tokens: dict[str, _Token] = {}  # by hash
        self._token_ids: dict[str, str] = {}  # public id -> hash
        self._on_revoked: set[Callable[[str], None]] = set()
        self._seeds: dict[str, dict[str, bytes]] = {}
        self._keys: dict[tuple[str, str, str], tuple[str, int, bytes]] = {}
        self._webhooks: dict[str, _Webhook] = {}  # by encounter
        self._deliveries: dict[str, _Delivery] = {}  # by id, in insertion order

    # --- the gate --------------------------------------------------------------------
    async def _turn(self) -> _Tx | None:
        """Yield to the loop once (as a round trip would), then wait out any other
        task's transaction; answers the caller's own open transaction, if any."""
        await asyncio.sleep(0)
        me = asyncio.current_task()
        while self._tx is not None and self._tx.owner is not me:
            async with self._gate:
                pass
        # Nothing awaits between here and the caller's work: no transaction starts meanwhile.
        return self._tx

    def _now(self, tx: _Tx | None) -> datetime:
        return tx.now if tx is not None else datetime.now(UTC)

    @staticmethod
    def _undo(tx: _Tx | None, step: Callable[[], None]) -> None:
        if tx is not None:
            tx.undo.append(step)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """One transaction at a time; undone whole if the block raises."""
        me = asyncio.current_task()
        if self._tx is not None and self._tx.owner is me:
            raise RuntimeError("the memory store does not nest transactions")
        async with self._gate:
            tx = self._tx = _Tx(me, datetime.now(UTC))
            try:
                yield cast(Tx, tx)
            except BaseException:
                for step in reversed(tx.undo):
                    step()
                raise
            finally:
                self._tx = None

    async def ping(self) -> None:
        """Memory always answers."""
        await asyncio.sleep(0)

    async def writable(self) -> None:
        """Memory can always take a write."""
        await asyncio.sleep(0)

    # --- tokens ----------------------------------------------------------------------
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
        """Store a token; AlreadyStored if its hash or id is taken."""
        tx = await self._turn()
        if token_hash in self._tokens or token_id in self._token_ids:
            raise AlreadyStored(f"a token with this hash or id {token_id!r} exists")
        if role not in _ROLE_ORDER:
            raise ValueError(f"no role {role!r}")
        self._tokens[token_hash] = _Token(
            token_hash, scope, role, list(combatants), token_id, self._now(tx)
        )
        self._token_ids[token_id] = token_hash

        def undo() -> None:
            del self._tokens[token_hash], self._token_ids[token_id]

        self._undo(tx, undo)

    def _live(self, scope: str, token_hash: str) -> _Token | None:
        t = self._tokens.get(token_hash)
        return t if t is not None and t.scope == scope and t.revoked_at is None else None

    async def grant(self, scope: str, token_hash: str) -> Grant | None:
        """What a live token opens; its use noted at most once a minute."""
        tx = await self._turn()
        t = self._live(scope, token_hash)
        if t is None:
            return None
        now = self._now(tx)
        if t.last_used is None or t.last_used < now - _TOUCH_EVERY:
            before, t.last_used = t.last_used, now

            def undo() -> None:
                t.last_used = before

            self._undo(tx, undo)
        return Grant(t.role, list(t.combatants))

    async def live_tokens(self, scope: str) -> list[TokenRow]:
        """The live tokens of `scope`: oldest first, then gm, spectator, player."""
        await self._turn()
        found = [t for t in self._tokens.values() if t.scope == scope and t.revoked_at is None]
        found.sort(key=lambda t: (t.created_at, _ROLE_ORDER[t.role], t.combatants, t.id))
        return [TokenRow(t.id, t.role, list(t.combatants), t.created_at, t.last_used)
                for t in found]  # fmt: skip

    async def token_id(self, scope: str, token_hash: str) -> str | None:
        """The public id of a live token."""
        await self._turn()
        t = self._live(scope, token_hash)
        return None if t is None else t.id

    async def revoke_token(self, scope: str, token_id: str) -> bool:
        """Revoke a live token and call every listener."""
        tx = await self._turn()
        t = self._tokens.get(self._token_ids.get(token_id, ""))
        if t is None or t.scope != scope or t.revoked_at is not None:
            return False
        t.revoked_at = self._now(tx)

        def undo() -> None:
            t.revoked_at = None

        self._undo(tx, undo)
        for listener in list(self._on_revoked):
            listener(token_id)
        return True

    async def revoked_among(self, token_ids: Sequence[str]) -> list[str]:
        """The ids in `token_ids` whose token was revoked."""
        await self._turn()
        out = []
        for tid in token_ids:
            t = self._tokens.get(self._token_ids.get(tid, ""))
            if t is not None and t.revoked_at is not None:
                out.append(tid)
        return out

    @contextlib.asynccontextmanager
    async def listen_revoked(self, on_revoked: Callable[[str], None]) -> AsyncIterator[Alive]:
        """Registered while entered; the listener is never lost."""

        async def alive() -> None:
            await asyncio.sleep(0)

        self._on_revoked.add(on_revoked)
        try:
            yield alive
        finally:
            self._on_revoked.discard(on_revoked)

    # --- dice seeds ------------------------------------------------------------------
    async def add_seeds(
        self, encounter: str, seeds: Mapping[str, bytes], *, conn: Tx | None = None
    ) -> None:
        """Store the seeds; AlreadyStored (nothing written) if one of them exists."""
        tx = await self._turn()
        kept = self._seeds.get(encounter, {})
        if any(sid in kept for sid in seeds):
            raise AlreadyStored(f"encounter {encounter} already has such a seed")
        added = {sid: bytes(seed) for sid, seed in seeds.items()}
        self._seeds[encounter] = {**kept, **added}

        def undo() -> None:
            self._seeds[encounter] = kept

        self._undo(tx, undo)

    async def seeds(self, encounter: str) -> dict[str, bytes]:
        """Every seed of the encounter, by seed id."""
        await self._turn()
        return dict(self._seeds.get(encounter, {}))

    # --- command keys ----------------------------------------------------------------
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
        """Keep the key's first outcome; False if it has one (nothing written)."""
        tx = await self._turn()
        if not (status == 200 or 400 <= status <= 499):
            raise ValueError(f"no outcome has status {status}")
        key = (stream, caller, key_hash)
        if key in self._keys:
            return False
        self._keys[key] = (body_hash, status, msgspec.json.encode(outcome))

        def undo() -> None:
            del self._keys[key]

        self._undo(tx, undo)
        return True

    async def outcome_of(self, stream: str, caller: str, key_hash: str) -> KeyOutcome | None:
        """The outcome this caller's key has on `stream`, or None."""
        await self._turn()
        found = self._keys.get((stream, caller, key_hash))
        if found is None:
            return None
        body_hash, status, outcome = found
        return KeyOutcome(body_hash, status, msgspec.json.decode(outcome))

    # --- webhooks --------------------------------------------------------------------
    async def set_webhook(self, hook: NewWebhook) -> None:
        """The encounter's one webhook, replacing (with its deliveries) any it had."""
        tx = await self._turn()
        before = dict(self._webhooks), dict(self._deliveries)
        self._drop(hook.encounter)
        self._webhooks[hook.encounter] = _Webhook(
            hook.id, hook.encounter, hook.url, hook.format, list(hook.kinds), hook.lang,
            hook.base, hook.secret, hook.checkpoint, self._now(tx),
        )  # fmt: skip

        def undo() -> None:
            self._webhooks, self._deliveries = before

        self._undo(tx, undo)

    def _drop(self, encounter: str) -> bool:
        hook = self._webhooks.pop(encounter, None)
        if hook is None:
            return False
        self._deliveries = {k: d for k, d in self._deliveries.items() if d.webhook != hook.id}
        return True

    async def webhook_of(self, encounter: str) -> WebhookConfig | None:
        """The encounter's webhook, or None."""
        await self._turn()
        h = self._webhooks.get(encounter)
        if h is None:
            return None
        return WebhookConfig(h.id, h.url, h.format, list(h.kinds), h.lang, h.created_at)

    async def recent_deliveries(self, hook_id: str, limit: int) -> list[Delivery]:
        """The webhook's latest deliveries, newest first (then highest version)."""
        await self._turn()
        mine = [d for d in self._deliveries.values() if d.webhook == hook_id]
        mine.sort(key=lambda d: (d.created_at, d.version), reverse=True)
        return [
            Delivery(d.id, d.version, d.kind, d.state, d.attempts, d.last_status, d.last_error,
                     d.created_at, d.delivered_at, d.next_at)
            for d in mine[:limit]
        ]  # fmt: skip

    async def drop_webhook(self, encounter: str) -> bool:
        """Remove the encounter's webhook and its deliveries; False if it had none."""
        tx = await self._turn()
        before = dict(self._webhooks), dict(self._deliveries)
        if not self._drop(encounter):
            return False

        def undo() -> None:
            self._webhooks, self._deliveries = before

        self._undo(tx, undo)
        return True

    def _version_of(self, encounter: str) -> int:
        raise NotImplementedError  # the event half knows (MemoryEventStore)

    async def webhook_heads(self) -> list[WebhookHead]:
        """Every webhook's checkpoint beside its encounter's version."""
        await self._turn()
        return [
            WebhookHead(h.id, h.encounter, h.checkpoint, self._version_of(h.encounter))
            for h in self._webhooks.values()
        ]

    def _hook(self, hook_id: str) -> _Webhook | None:
        return next((h for h in self._webhooks.values() if h.id == hook_id), None)

    async def lock_webhook(self, hook_id: str, *, conn: Tx) -> LockedWebhook | None:
        """The webhook, held by the (one open) transaction; None if it is gone."""
        await self._turn()
        h = self._hook(hook_id)
        if h is None:
            return None
        return LockedWebhook(h.id, h.encounter, h.format, list(h.kinds), h.lang, h.base,
                             h.checkpoint)  # fmt: skip

    async def hold_webhook(self, encounter: str, *, conn: Tx) -> LockedWebhook | None:
        """The encounter's webhook, held by the (one open) transaction; None if none."""
        await self._turn()
        h = self._webhooks.get(encounter)
        if h is None:
            return None
        return LockedWebhook(h.id, h.encounter, h.format, list(h.kinds), h.lang, h.base,
                             h.checkpoint)  # fmt: skip

    async def enqueue(
        self, deliveries: Sequence[NewDelivery], *, conn: Tx, replace: bool = False
    ) -> None:
        """Add pending deliveries, due now; a (webhook, version, kind) already there stays,
        or with `replace` starts over as a new delivery."""
        tx = await self._turn()
        now = self._now(tx)
        taken = {(d.webhook, d.version, d.kind): d for d in self._deliveries.values()}
        hooks = {h.id for h in self._webhooks.values()}
        added: list[str] = []
        dropped: list[_Delivery] = []
        for d in deliveries:
            if d.webhook not in hooks:
                raise ValueError(f"no webhook {d.webhook!r}")
            if d.id in self._deliveries:
                raise AlreadyStored(f"a delivery {d.id!r} exists")
            old = taken.get((d.webhook, d.version, d.kind))
            if old is not None and not replace:
                continue
            if old is not None:
                dropped.append(self._deliveries.pop(old.id))
            new = _Delivery(d.id, d.webhook, d.version, d.kind, d.body, now, now)
            taken[(d.webhook, d.version, d.kind)] = self._deliveries[d.id] = new
            added.append(d.id)

        def undo() -> None:
            for did in added:
                self._deliveries.pop(did, None)
            for old in dropped:
                self._deliveries[old.id] = old

        self._undo(tx, undo)

    async def move_checkpoint(self, hook_id: str, version: int, *, conn: Tx) -> None:
        """The last version the webhook's deliveries were made from."""
        tx = await self._turn()
        h = self._hook(hook_id)
        if h is None:
            return
        if version < 0:
            raise ValueError("a checkpoint is never negative")
        before, h.checkpoint = h.checkpoint, version

        def undo() -> None:
            h.checkpoint = before

        self._undo(tx, undo)

    async def claim_due(
        self, limit: int, lease: float, *, busy: Sequence[str] = ()
    ) -> list[Claimed]:
        """Each webhook's head (its pending delivery first in (version, kind) order,
        `test` last of a version) if due, oldest due first, hidden for `lease` seconds;
        none of the `busy` webhooks'."""
        tx = await self._turn()
        now = self._now(tx)
        heads: dict[str, _Delivery] = {}
        for d in self._deliveries.values():
            if d.state != "pending":
                continue
            head = heads.get(d.webhook)
            if head is None or queue_order(d) < queue_order(head):
                heads[d.webhook] = d
        due = [d for d in heads.values() if d.next_at <= now and d.webhook not in busy]
        due.sort(key=lambda d: d.next_at)
        secrets = {h.id: h for h in self._webhooks.values()}
        out = []
        for d in due[: max(limit, 0)]:
            self._keep(tx, d)
            d.attempts += 1
            d.next_at = now + timedelta(seconds=lease)
            h = secrets[d.webhook]
            out.append(Claimed(d.id, d.body, d.attempts, d.created_at, h.url, h.secret, d.webhook))
        return out

    def _keep(self, tx: _Tx | None, d: _Delivery) -> None:
        """Remember a delivery as it is, to put it back if the transaction is undone."""
        kept = dataclasses.replace(d)

        def undo() -> None:
            d.__dict__.update(kept.__dict__)

        self._undo(tx, undo)

    async def delivered(self, delivery_id: str, status: int | None) -> None:
        """Done for good."""
        tx = await self._turn()
        d = self._deliveries.get(delivery_id)
        if d is not None:
            self._keep(tx, d)
            d.state, d.delivered_at, d.last_status, d.last_error = (
                "delivered", self._now(tx), status, None
            )  # fmt: skip

    async def delivery_failed(
        self, delivery_id: str, status: int | None, give_up: bool, delay: float, error: str
    ) -> None:
        """Due again in `delay` seconds, or `failed` if `give_up`; only while pending."""
        tx = await self._turn()
        d = self._deliveries.get(delivery_id)
        if d is None or d.state != "pending":
            return
        self._keep(tx, d)
        d.state = "failed" if give_up else "pending"
        d.next_at = self._now(tx) + timedelta(seconds=delay)
        d.last_status, d.last_error = status, error
