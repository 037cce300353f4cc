"""Webhook delivery: a subscriber with its own checkpoint per webhook, and an outbox.

Two tasks per server instance, each on its own pooled connections, apart from commands:

* the scanner wakes on NOTIFY (and every second), and for each webhook whose
  encounter moved past its checkpoint reads the new events, turns the announced ones
  into `webhook_deliveries` rows (unique per webhook, version and kind: ON CONFLICT DO
  NOTHING) and advances the checkpoint, in one transaction that holds the webhook row
  FOR UPDATE SKIP LOCKED: one instance scans a webhook at a time, and a crash mid-way
  rolls back whole;
* the worker claims due rows FOR UPDATE SKIP LOCKED, pushing next_at past a lease in
  the same statement, then POSTs each in its own task with a timeout. One webhook's
  deliveries go in order, one at a time, on every instance: a claim takes only a
  webhook's head (its pending row first in (version, kind) order), so a receiver gets
  version 10 before version 11, and a failing receiver holds its own queue only (never
  another webhook's; `concurrency` is only the instance's bound on open connections).
  A success marks the row delivered; a failure sets the next attempt with exponential
  backoff, until the row has had `attempts` attempts or is `max_age` old: then it is
  `failed` and its queue moves on. A crashed worker's lease runs out and another
  instance takes the row up: at least once, and the delivery id lets receivers dedupe.

A slow receiver only holds its own task: commands never wait on a delivery.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from domain import events as ev
from domain.chain import GENESIS
from projections.filter import filter_events, secret_resources
from projections.view import Projection
from projections.words.webhooks import content, message, story
from server.services.encounters import stream_of
from server.services.metrics import Metrics
from server.store.port import Claimed, HistoryRewritten, NewDelivery, Store
from server.webhooks.outbound import Allow, Unsafe, post

log = logging.getLogger(__name__)
KEEP = 200  # log lines a fold keeps while nothing is announced (the story's tail)


@dataclass(frozen=True)
class Settings:
    """Delivery tuning, from the environment (seconds)."""

    allow: Allow = field(default_factory=Allow)
    timeout: float = 10.0
    retry: float = 5.0  # the first retry's delay; doubles each time
    retry_max: float = 3600.0
    max_age: float = 86400.0  # retried for up to a day
    attempts: int = 12  # then failed: a queue is held about three hours at most
    concurrency: int = 512  # deliveries in flight on this instance, all webhooks

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ

        def num(name: str, default: float) -> float:
            try:
                return float(env.get(name, "") or default)
            except ValueError:
                return default

        return cls(
            allow=Allow.parse(env.get("FRACAS_WEBHOOK_ALLOW")),
            timeout=num("FRACAS_WEBHOOK_TIMEOUT", 10.0),
            retry=num("FRACAS_WEBHOOK_RETRY", 5.0),
            retry_max=num("FRACAS_WEBHOOK_RETRY_MAX", 3600.0),
            max_age=num("FRACAS_WEBHOOK_MAX_AGE", 86400.0),
            attempts=max(1, int(num("FRACAS_WEBHOOK_ATTEMPTS", 12))),
        )

    @property
    def lease(self) -> float:
        """How long a claimed row is hidden from other workers: past any attempt."""
        return 2 * self.timeout + 5


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


class Webhooks:
    """The webhook subscriber and delivery worker of one server instance."""

    def __init__(self, store: Store, settings: Settings, metrics: Metrics | None = None) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics or Metrics()  # deliveries by outcome
        self._folds: dict[str, Projection] = {}
        self._tips: dict[str, str] = {}  # the hash of the last event each fold holds
        self._watched: set[str] = set()  # encounters with a webhook, refreshed every tick
        self._due = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._sending: set[asyncio.Task[None]] = set()
        self._in_flight: dict[str, int] = {}  # webhook id -> its deliveries being sent

    @property
    def allow(self) -> Allow:
        return self.settings.allow

    def known(self, encounter: str) -> None:
        """A webhook was set here just now: scan it on the next wake."""
        self._watched.add(stream_of(encounter))

    def due(self) -> None:
        """A delivery was queued here just now: claim on the next wake."""
        self._due.set()

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._scanning()), asyncio.create_task(self._working())]

    async def stop(self) -> None:
        for task in [*self._tasks, *self._sending]:
            task.cancel()
        for task in [*self._tasks, *self._sending]:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- scanning --------------------------------------------------------------------
    async def _scanning(self) -> None:
        while True:
            try:
                async with self.store.subscribe(tick=1.0) as wakes:
                    async for wake in wakes:
                        if wake.stream is None or wake.stream in self._watched:
                            wakes.drain()
                            await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away: the checkpoints keep our place
                log.exception("webhook scan failed; retrying in 1 s")
                await asyncio.sleep(1.0)

    async def scan(self) -> None:
        """Turn every webhook's new events into deliveries."""
        hooks = await self.store.webhook_heads()
        self._watched = {stream_of(h.encounter) for h in hooks}
        for stream in set(self._folds) - self._watched:  # webhook gone: drop its fold
            self._drop(stream)
        for h in hooks:
            if h.head > h.checkpoint:
                await self._scan_one(h.id)

    async def _scan_one(self, hook_id: str) -> None:
        async with self.store.transaction() as conn:
            hook = await self.store.lock_webhook(hook_id, conn=conn)
            if hook is None:  # another instance holds it, or it was removed
                return
            stream = stream_of(hook.encounter)
            proj = await self._fold(stream, hook.checkpoint)
            try:
                envs, tip = await self.store.read_facts_on(
                    stream, proj.version, self._tips.get(stream, GENESIS), proj.version + 500
                )
            except HistoryRewritten:  # rewritten since the fold just now: next wake
                self._drop(stream)
                return
            if not envs:
                return
            rows: list[NewDelivery] = []
            link = f"{hook.base}/e/{hook.encounter}"
            for env in envs:
                state = proj.state
                shown = filter_events(
                    [env], "public", secret_resources(state), state.ledger.hidden_rolls
                )
                found = message(ev.event_from(env["type"], env["data"]), state, hook.lang)
                proj.apply(env)  # its log lines: the story the next announcement tells
                if not shown or found is None or found[0] not in hook.kinds:
                    del proj.lines[:-KEEP]
                    continue
                kind, text, combatant = found
                lines = story(proj.lines, env["version"], hook.lang)
                proj.lines.clear()
                body = payload(
                    hook.format, hook.encounter, env["version"], kind, combatant, text, link,
                    lines,
                )  # fmt: skip
                rows.append(NewDelivery(uuid.uuid4().hex, hook_id, env["version"], kind,
                                        body.decode()))  # fmt: skip
            self._tips[stream] = tip
            if rows:
                await self.store.enqueue(rows, conn=conn)
            await self.store.move_checkpoint(hook_id, proj.version, conn=conn)
        if rows:
            self._due.set()

    async def _fold(self, stream: str, upto: int) -> Projection:
        """The encounter folded to exactly `upto` (cached between scans).

        A cached fold is only extended if the store still holds the event it was folded
        to (its hash, like the service's cache): after a restore or an asynchronous
        failover behind this instance it is dropped and the stream folded again, so no
        delivery is worded from a history the database no longer has (issue 23)."""
        proj = self._folds.get(stream)
        if proj is None or proj.version > upto:
            self._drop(stream)
            proj = self._folds[stream] = Projection(keep=0)
        if proj.version == upto:
            return proj  # the scan's read checks it still holds that history
        tip = self._tips.get(stream, GENESIS)
        try:
            facts, tip = await self.store.read_facts_on(stream, proj.version, tip, upto)
        except HistoryRewritten:
            log.warning(
                "history reset: %s no longer holds the event the webhook fold saw at"
                " version %d (database restored or failed over); folding it again",
                stream,
                proj.version,
            )
            self.metrics.history_resets += 1
            self._drop(stream)
            proj = self._folds[stream] = Projection(keep=0)
            facts, tip = await self.store.read_facts_on(stream, 0, GENESIS, upto)
        proj.extend(facts)
        self._tips[stream] = tip
        return proj

    def _drop(self, stream: str) -> None:
        self._folds.pop(stream, None)
        self._tips.pop(stream, None)

    # --- delivering ------------------------------------------------------------------
    async def _working(self) -> None:
        while True:
            try:
                await self.deliver_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook delivery failed; retrying in 1 s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._due.wait(), 1.0)
            self._due.clear()

    async def deliver_due(self) -> None:
        """Claim what is due (as many as there are free slots, the head of each webhook's
        queue with none in flight here) and send each in a task."""
        free = self.settings.concurrency - len(self._sending)
        if free <= 0:
            return
        claimed = await self.store.claim_due(
            free, self.settings.lease, busy=sorted(self._in_flight)
        )
        for row in claimed:
            self._in_flight[row.webhook] = self._in_flight.get(row.webhook, 0) + 1
            task = asyncio.create_task(self._send(row))
            self._sending.add(task)
            task.add_done_callback(functools.partial(self._sent, row.webhook))

    def _sent(self, hook: str, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        left = self._in_flight.get(hook, 1) - 1
        if left > 0:
            self._in_flight[hook] = left
        else:
            self._in_flight.pop(hook, None)
            self._due.set()  # its next deliveries may be claimed now

    async def _send(self, row: Claimed) -> None:
        body = row.body.encode()
        headers = {
            "X-Fracas-Delivery": row.id,
            "X-Fracas-Signature": signature(row.secret, body),
        }
        status: int | None = None
        error: str | None = None
        try:
            status = await post(row.url, body, headers, self.settings.timeout, self.allow)
            if not 200 <= status < 300:
                error = f"the receiver answered HTTP {status}"
        except TimeoutError:
            error = f"no answer within {self.settings.timeout:g} s"
        except Unsafe as e:
            error = str(e)
        except (OSError, ValueError) as e:
            error = f"connection failed ({type(e).__name__})"
        try:
            if error is None:
                await self.store.delivered(row.id, status)
                self.metrics.webhooks["delivered"] += 1
                return
            age = datetime.now(UTC) - row.created_at
            give_up = (
                age >= timedelta(seconds=self.settings.max_age)
                or row.attempts >= self.settings.attempts
            )
            delay = min(self.settings.retry * 2 ** (row.attempts - 1), self.settings.retry_max)
            await self.store.delivery_failed(row.id, status, give_up, delay, error)
            self.metrics.webhooks["failed" if give_up else "retrying"] += 1
            log.info("webhook delivery %s: attempt %d: %s", row.id, row.attempts, error)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            # The lease runs out and the row is retried: at least once holds.
            log.warning("webhook delivery %s: could not record the outcome", row.id)


def payload(
    fmt: str,
    encounter: str,
    version: int,
    kind: str,
    combatant: str | None,
    text: str,
    link: str,
    lines: list[str] | None = None,
) -> bytes:
    """The exact bytes POSTed: the json body (with the story's `lines`), or Discord's:
    the lines, the announcement and the link within 2,000 characters, no pings."""
    told = lines or []
    if fmt == "discord":
        body: dict[str, Any] = {
            "content": content(told, text, link),
            "allowed_mentions": {"parse": []},
        }
    else:
        body = {"encounter": encounter, "version": version, "kind": kind}
        if combatant is not None:
            body["combatant"] = combatant
        body |= {"text": text, "link": link, "lines": told}
    return msgspec.json.encode(body)
