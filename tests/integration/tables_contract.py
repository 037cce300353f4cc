"""The contract of the side tables of the store port (`server.store.port.SideTables`).

Not collected by itself: tests/integration/test_store_contract.py runs `TablesContract`
beside `StoreContract`, once per store, with the same `backend` fixture. Only the port
is used, never SQL. Ids are fresh per test, so tests may share one database; a claim of
due deliveries may take other tests' leftovers, so tests look only at their own rows.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import uuid

import pytest

from server.store.port import AlreadyStored, NewDelivery, NewEvent, NewWebhook, Store
from tests.integration.store_contract import META, Backend

LEASE = 60.0


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new_id() -> str:
    return str(uuid.uuid4())


class Boom(Exception):
    """Raised to roll a transaction back."""


async def a_webhook(store: Store, encounter: str | None = None) -> tuple[str, str]:
    encounter = encounter or new_id()
    hook = secrets.token_hex(8)
    await store.set_webhook(
        NewWebhook(hook, encounter, "https://example.org/h", "json", ["turn_started"], "en",
                   "http://board", "s3cret", 0)
    )  # fmt: skip
    return encounter, hook


def delivery(hook: str, version: int, kind: str = "turn_started") -> NewDelivery:
    return NewDelivery(uuid.uuid4().hex, hook, version, kind, f'{{"version": {version}}}')


async def enqueued(store: Store, hook: str, *versions: int) -> list[str]:
    rows = [delivery(hook, v) for v in versions]
    async with store.transaction() as conn:
        await store.enqueue(rows, conn=conn)
    return [r.id for r in rows]


class TablesContract:
    """What every store promises of its side tables. Subclasses define `backend`."""

    # --- transactions ----------------------------------------------------------------
    async def test_a_transaction_that_raises_leaves_nothing_of_its_writes(
        self, backend: Backend
    ) -> None:
        store, eid = backend.store, new_id()
        caller, key = digest("caller"), digest(eid)
        with pytest.raises(Boom):
            async with store.transaction() as conn:
                await store.add_seeds(eid, {"main": b"m" * 32}, conn=conn)
                await store.add_token(eid, digest(f"gm-{eid}"), "gm", [], f"g-{eid}", conn=conn)
                await store.append(f"encounter-{eid}", 0, [NewEvent("noted", {})], META, conn=conn)
                assert await store.keep_outcome(
                    f"encounter-{eid}", caller, key, digest("b"), 200, {"first": 1}, conn=conn
                )
                raise Boom()
        assert await store.seeds(eid) == {}
        assert await store.grant(eid, digest(f"gm-{eid}")) is None
        assert (await store.head(f"encounter-{eid}"))[0] == 0
        assert await store.outcome_of(f"encounter-{eid}", caller, key) is None

    async def test_a_transaction_that_ends_keeps_all_its_writes(self, backend: Backend) -> None:
        store, eid = backend.store, new_id()
        async with store.transaction() as conn:
            await store.add_seeds(eid, {"main": b"m" * 32, "hidden": b"h" * 32}, conn=conn)
            await store.add_token(eid, digest(f"gm-{eid}"), "gm", [], f"g-{eid}", conn=conn)
            await store.append(f"encounter-{eid}", 0, [NewEvent("noted", {})], META, conn=conn)
        assert await store.seeds(eid) == {"main": b"m" * 32, "hidden": b"h" * 32}
        assert (await store.grant(eid, digest(f"gm-{eid}"))) is not None
        assert (await store.head(f"encounter-{eid}"))[0] == 1

    # --- tokens ----------------------------------------------------------------------
    async def test_a_token_opens_its_own_scope_only(self, backend: Backend) -> None:
        store, eid, other = backend.store, new_id(), new_id()
        await store.add_token(eid, digest(f"p-{eid}"), "player", ["c2", "c1"], f"p-{eid}")
        found = await store.grant(eid, digest(f"p-{eid}"))
        assert found is not None and (found.role, found.combatants) == ("player", ["c2", "c1"])
        assert await store.grant(other, digest(f"p-{eid}")) is None
        assert await store.grant(eid, digest("never issued")) is None
        assert await store.token_id(eid, digest(f"p-{eid}")) == f"p-{eid}"
        assert await store.token_id(other, digest(f"p-{eid}")) is None

    async def test_a_token_hash_or_id_is_stored_once_and_the_first_stays(
        self, backend: Backend
    ) -> None:
        store, eid = backend.store, new_id()
        await store.add_token(eid, digest(f"a-{eid}"), "spectator", [], f"a-{eid}")
        with pytest.raises(AlreadyStored):
            await store.add_token(eid, digest(f"a-{eid}"), "gm", [], f"b-{eid}")
        with pytest.raises(AlreadyStored):
            await store.add_token(eid, digest(f"c-{eid}"), "gm", [], f"a-{eid}")
        found = await store.grant(eid, digest(f"a-{eid}"))
        assert found is not None and found.role == "spectator"
        assert [t.id for t in await store.live_tokens(eid)] == [f"a-{eid}"]

    async def test_live_tokens_list_oldest_first_then_gm_spectator_player(
        self, backend: Backend
    ) -> None:
        store, eid = backend.store, new_id()
        async with store.transaction() as conn:  # one transaction: one creation time
            for role, combatants in (("player", ["b"]), ("spectator", []), ("player", ["a"]),
                                     ("gm", [])):  # fmt: skip
                name = f"{role}{combatants}-{eid}"
                await store.add_token(eid, digest(name), role, combatants, name, conn=conn)
        await asyncio.sleep(0.01)
        await store.add_token(eid, digest(f"late-{eid}"), "gm", [], f"late-{eid}")
        listed = await store.live_tokens(eid)
        assert [(t.role, t.combatants) for t in listed] == [
            ("gm", []), ("spectator", []), ("player", ["a"]), ("player", ["b"]), ("gm", []),
        ]  # fmt: skip
        assert listed[-1].id == f"late-{eid}"
        assert all(t.last_used is None for t in listed)
        assert await store.live_tokens(new_id()) == []

    async def test_a_token_check_notes_its_use(self, backend: Backend) -> None:
        store, eid = backend.store, new_id()
        await store.add_token(eid, digest(f"g-{eid}"), "gm", [], f"g-{eid}")
        assert (await store.live_tokens(eid))[0].last_used is None
        await store.grant(eid, digest(f"g-{eid}"))
        (used,) = await store.live_tokens(eid)
        assert used.last_used is not None and used.last_used >= used.created_at

    async def test_a_revoked_token_opens_nothing_is_not_listed_and_is_revoked_once(
        self, backend: Backend
    ) -> None:
        store, eid = backend.store, new_id()
        await store.add_token(eid, digest(f"s-{eid}"), "spectator", [], f"s-{eid}")
        await store.add_token(eid, digest(f"k-{eid}"), "spectator", [], f"k-{eid}")
        assert not await store.revoke_token(new_id(), f"s-{eid}")  # not this scope's
        assert await store.revoke_token(eid, f"s-{eid}")
        assert not await store.revoke_token(eid, f"s-{eid}")
        assert await store.grant(eid, digest(f"s-{eid}")) is None
        assert await store.token_id(eid, digest(f"s-{eid}")) is None
        assert [t.id for t in await store.live_tokens(eid)] == [f"k-{eid}"]
        assert await store.revoked_among([f"s-{eid}", f"k-{eid}", "nobody"]) == [f"s-{eid}"]
        with pytest.raises(AlreadyStored):  # a revoked token's hash is still taken
            await store.add_token(eid, digest(f"s-{eid}"), "gm", [], f"new-{eid}")

    async def test_a_revocation_reaches_every_listener(self, backend: Backend) -> None:
        store, eid = backend.store, new_id()
        await store.add_token(eid, digest(f"r-{eid}"), "spectator", [], f"r-{eid}")
        heard: asyncio.Queue[str] = asyncio.Queue()
        async with store.listen_revoked(heard.put_nowait) as alive:
            await alive()
            assert await store.revoke_token(eid, f"r-{eid}")
            while await asyncio.wait_for(heard.get(), 10) != f"r-{eid}":
                pass  # another test's revocation, heard on the same database
            await alive()

    # --- dice seeds ------------------------------------------------------------------
    async def test_a_seed_is_stored_once_and_never_changed(self, backend: Backend) -> None:
        store, eid = backend.store, new_id()
        await store.add_seeds(eid, {"main": b"\x01" * 32})
        with pytest.raises(AlreadyStored):
            await store.add_seeds(eid, {"hidden": b"\x03" * 32, "main": b"\x02" * 32})
        assert await store.seeds(eid) == {"main": b"\x01" * 32}  # nor the other of the batch
        await store.add_seeds(eid, {"hidden": b"\x03" * 32})
        assert await store.seeds(eid) == {"main": b"\x01" * 32, "hidden": b"\x03" * 32}
        assert await store.seeds(new_id()) == {}

    # --- command keys ----------------------------------------------------------------
    async def test_a_keys_first_outcome_is_its_only_one(self, backend: Backend) -> None:
        store, stream = backend.store, f"encounter-{new_id()}"
        me, key = digest("me"), digest("key-1")
        assert await store.keep_outcome(stream, me, key, digest("body"), 200, {"first": 2})
        assert not await store.keep_outcome(stream, me, key, digest("other"), 409, {"code": "x"})
        found = await store.outcome_of(stream, me, key)
        assert found is not None
        assert (found.body_hash, found.status, found.outcome) == (digest("body"), 200,
                                                                  {"first": 2})  # fmt: skip

    async def test_a_key_belongs_to_its_caller_and_its_stream(self, backend: Backend) -> None:
        store, stream = backend.store, f"encounter-{new_id()}"
        me, you, key = digest("me"), digest("you"), digest("same key")
        assert await store.keep_outcome(stream, me, key, digest("b1"), 200, {"first": 1})
        assert await store.outcome_of(stream, you, key) is None
        assert await store.outcome_of(f"encounter-{new_id()}", me, key) is None
        assert await store.keep_outcome(stream, you, key, digest("b2"), 422, {"code": "invalid"})
        mine, yours = (
            await store.outcome_of(stream, me, key),
            await store.outcome_of(stream, you, key),
        )
        assert mine is not None and yours is not None
        assert (mine.status, yours.status) == (200, 422)

    # --- webhooks --------------------------------------------------------------------
    async def test_one_webhook_per_encounter_replaced_with_its_deliveries(
        self, backend: Backend
    ) -> None:
        store = backend.store
        eid, first = await a_webhook(store)
        await enqueued(store, first, 1, 2)
        _, second = await a_webhook(store, eid)
        hook = await store.webhook_of(eid)
        assert hook is not None and hook.id == second != first
        shown = (hook.url, hook.format, hook.kinds, hook.lang)
        assert shown == ("https://example.org/h", "json", ["turn_started"], "en")
        assert await store.recent_deliveries(first, 10) == []
        assert await store.drop_webhook(eid)
        assert not await store.drop_webhook(eid)
        assert await store.webhook_of(eid) is None

    async def test_the_scan_sees_each_webhooks_checkpoint_beside_its_encounters_version(
        self, backend: Backend
    ) -> None:
        store = backend.store
        eid, hook = await a_webhook(store)
        heads = {h.id: h for h in await store.webhook_heads()}
        assert (heads[hook].encounter, heads[hook].checkpoint, heads[hook].head) == (eid, 0, 0)
        await store.append(f"encounter-{eid}", 0, [NewEvent("noted", {}), NewEvent("noted", {})],
                           META)  # fmt: skip
        async with store.transaction() as conn:
            locked = await store.lock_webhook(hook, conn=conn)
            assert locked is not None and (locked.encounter, locked.base) == (eid, "http://board")
            await store.move_checkpoint(hook, 2, conn=conn)
        heads = {h.id: h for h in await store.webhook_heads()}
        assert (heads[hook].checkpoint, heads[hook].head) == (2, 2)
        async with store.transaction() as conn:
            assert await store.lock_webhook("no such hook", conn=conn) is None

    async def test_a_delivery_is_enqueued_once_per_version_and_kind(self, backend: Backend) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        (one,) = await enqueued(store, hook, 1)
        await enqueued(store, hook, 1)  # a re-scan: nothing new
        async with store.transaction() as conn:
            await store.enqueue([delivery(hook, 1, "round_started")], conn=conn)
        listed = await store.recent_deliveries(hook, 10)
        assert sorted((d.version, d.kind) for d in listed) == [(1, "round_started"),
                                                               (1, "turn_started")]  # fmt: skip
        assert one in {d.id for d in listed}
        assert all((d.state, d.attempts, d.delivered_at) == ("pending", 0, None) for d in listed)

    async def test_recent_deliveries_are_newest_first_and_bounded(self, backend: Backend) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        await enqueued(store, hook, 1, 2, 3)
        await asyncio.sleep(0.01)
        await enqueued(store, hook, 4)
        assert [d.version for d in await store.recent_deliveries(hook, 3)] == [4, 3, 2]

    async def test_a_claimed_delivery_is_hidden_for_its_lease_and_counted(
        self, backend: Backend
    ) -> None:
        store = backend.store
        _, one = await a_webhook(store)
        _, two = await a_webhook(store)
        mine = set(await enqueued(store, one, 1)) | set(await enqueued(store, two, 1))
        claimed = [c for c in await store.claim_due(100, LEASE) if c.id in mine]
        assert {c.id for c in claimed} == mine
        assert {(c.attempts, c.url, c.secret) for c in claimed} == {(1, "https://example.org/h",
                                                                     "s3cret")}  # fmt: skip
        assert not mine & {c.id for c in await store.claim_due(100, LEASE)}
        assert all(d.state == "pending" for d in await store.recent_deliveries(one, 10))

    async def test_a_claim_takes_no_more_than_asked_oldest_due_first(
        self, backend: Backend
    ) -> None:
        store = backend.store
        _, early = await a_webhook(store)
        _, late = await a_webhook(store)
        first = await enqueued(store, early, 1)
        await asyncio.sleep(0.01)
        later = await enqueued(store, late, 1)
        mine = set(first) | set(later)
        claimed: list[str] = []  # mine, in claim order (a shared database has others too)
        for _ in range(1000):
            got = await store.claim_due(1, LEASE)
            assert len(got) <= 1
            claimed += [c.id for c in got if c.id in mine]
            if not got or len(claimed) == 2:
                break
        assert claimed == first + later

    async def test_one_webhooks_deliveries_are_claimed_one_at_a_time_in_version_order(
        self, backend: Backend
    ) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        rows = [delivery(hook, v) for v in (11, 10, 12)]  # enqueued out of order
        rows.append(delivery(hook, 10, "test"))  # a test goes after its version's others
        async with store.transaction() as conn:
            await store.enqueue(rows, conn=conn)
        by_id = {r.id: (r.version, r.kind) for r in rows}
        sent: list[tuple[int, str]] = []
        for _ in range(20):
            got = [c for c in await store.claim_due(100, LEASE) if c.id in by_id]
            assert len(got) <= 1  # never two of one webhook at once
            if not got:
                break
            # Leased, the head holds the rest: nothing of this webhook is claimed now.
            assert not by_id.keys() & {c.id for c in await store.claim_due(100, LEASE)}
            sent.append(by_id[got[0].id])
            await store.delivered(got[0].id, 200)
        assert sent == [(10, "turn_started"), (10, "test"), (11, "turn_started"),
                        (12, "turn_started")]  # fmt: skip

    async def test_a_head_waiting_for_its_retry_holds_its_queue_until_it_fails(
        self, backend: Backend
    ) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        _, other = await a_webhook(store)
        head, behind = await enqueued(store, hook, 1, 2)
        (lone,) = await enqueued(store, other, 1)
        got = {c.id for c in await store.claim_due(100, LEASE)}
        assert head in got and lone in got and behind not in got
        await store.delivery_failed(head, 503, False, 3600.0, "the receiver answered HTTP 503")
        assert behind not in {c.id for c in await store.claim_due(100, LEASE)}
        await store.delivery_failed(head, 503, True, 0.0, "the receiver answered HTTP 503")
        assert behind in {c.id for c in await store.claim_due(100, LEASE)}

    async def test_a_claim_leaves_out_the_busy_webhooks(self, backend: Backend) -> None:
        store = backend.store
        _, loud = await a_webhook(store)
        _, other = await a_webhook(store)
        (first,) = await enqueued(store, loud, 1)
        (lone,) = await enqueued(store, other, 1)
        got = {c.id for c in await store.claim_due(100, LEASE, busy=[other])}
        assert first in got and lone not in got
        again = {c.id for c in await store.claim_due(100, LEASE, busy=[loud])}
        assert lone in again

    async def test_a_test_sent_again_starts_over_as_a_new_delivery(self, backend: Backend) -> None:
        store = backend.store
        eid, hook = await a_webhook(store)
        async with store.transaction() as conn:
            held = await store.hold_webhook(eid, conn=conn)
            assert held is not None and held.id == hook
            await store.enqueue([delivery(hook, 0, "test")], conn=conn, replace=True)
        (one,) = await store.recent_deliveries(hook, 10)
        assert one.id in {c.id for c in await store.claim_due(100, LEASE)}
        await store.delivery_failed(one.id, 500, True, 0.0, "the receiver answered HTTP 500")
        again = delivery(hook, 0, "test")
        async with store.transaction() as conn:
            await store.enqueue([again], conn=conn, replace=True)
        (row,) = await store.recent_deliveries(hook, 10)
        assert (row.id, row.state, row.attempts, row.last_error) == (again.id, "pending", 0, None)
        async with store.transaction() as conn:
            assert await store.hold_webhook(new_id(), conn=conn) is None

    async def test_a_delivered_row_is_never_claimed_again(self, backend: Backend) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        (one,) = await enqueued(store, hook, 1)
        assert one in {c.id for c in await store.claim_due(100, 0.0)}
        await store.delivered(one, 204)
        await store.delivery_failed(one, 500, False, 0.0, "late")  # only a pending row moves
        assert one not in {c.id for c in await store.claim_due(100, LEASE)}
        (row,) = await store.recent_deliveries(hook, 10)
        assert (row.state, row.last_status, row.last_error) == ("delivered", 204, None)
        assert row.delivered_at is not None

    async def test_a_failed_attempt_is_due_again_after_its_delay_until_given_up(
        self, backend: Backend
    ) -> None:
        store = backend.store
        _, hook = await a_webhook(store)
        (one,) = await enqueued(store, hook, 1)
        assert one in {c.id for c in await store.claim_due(100, LEASE)}
        await store.delivery_failed(one, 503, False, 3600.0, "the receiver answered HTTP 503")
        assert one not in {c.id for c in await store.claim_due(100, LEASE)}  # not yet due
        (row,) = await store.recent_deliveries(hook, 10)
        assert (row.state, row.attempts, row.last_status) == ("pending", 1, 503)
        assert row.last_error == "the receiver answered HTTP 503"
        await store.delivery_failed(one, None, False, 0.0, "no answer within 10 s")  # due now
        again = [c for c in await store.claim_due(100, LEASE) if c.id == one]
        assert [c.attempts for c in again] == [2]
        await store.delivery_failed(one, None, True, 0.0, "no answer within 10 s")
        assert one not in {c.id for c in await store.claim_due(100, LEASE)}
        (row,) = await store.recent_deliveries(hook, 10)
        assert (row.state, row.attempts, row.last_status) == ("failed", 2, None)
