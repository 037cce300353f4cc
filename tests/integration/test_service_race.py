"""A reader catching up between a decision and its append must not let a stale decision in."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from domain import commands as cmd
from domain.state import GM
from domain.verify import verify
from server.services.encounters import EncounterService
from server.services.metrics import Metrics
from server.store.port import Store
from tests.integration.store_contract import Backend


class HookedStore:
    """The real store, but its first transaction() first lets `hook` run (an interleaving)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.hook: Callable[[], Awaitable[None]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Any]:
        hook, self.hook = self.hook, None
        if hook is not None:
            await hook()
        async with self.store.transaction() as conn:
            yield conn


async def test_a_decision_overtaken_by_another_process_is_made_again_not_appended_stale(
    stores: Backend,
) -> None:
    other = EncounterService(stores.another(), Metrics())
    made = await other.create("plain-d100", "Race", {})
    eid = made["id"]
    hooked = HookedStore(stores.store)
    mine = EncounterService(hooked, Metrics())
    await mine.load(eid)

    async def meanwhile() -> None:
        # Between this process's decision and its append: another process rolls, and a
        # reader here (a GET of the board) catches the cached projection up.
        await other.execute(eid, cmd.Roll(expr="1d6", purpose="other"), GM)
        await mine.load(eid)

    hooked.hook = meanwhile
    await mine.execute(eid, cmd.Roll(expr="1d6", purpose="mine"), GM)
    envelopes = await mine.envelopes(eid)
    rolls = [
        (e["data"]["purpose"], e["data"]["roll"]) for e in envelopes if e["type"] == "die_rolled"
    ]
    assert rolls == [("other", 1), ("mine", 2)]  # decided again: roll 1 is not drawn twice
    assert verify(envelopes, eid)["chain"] is True
    assert mine.metrics.conflicts == 1


async def test_what_a_close_does_then_shares_its_transaction_and_a_conflict_there_retries_both(
    stores: Backend,
) -> None:
    """A War's carry-back runs as the `then` of its encounter's close: if the War moved on
    (ConcurrencyError), the close is rolled back too and the whole command is decided
    again, so a close never stands without its carry-back."""
    from server.store.port import ConcurrencyError

    svc = EncounterService(stores.store, Metrics())
    eid = (await svc.create("plain-d100", "Close", {}))["id"]
    calls: list[int] = []

    async def then(conn: Any, state: Any) -> dict[str, Any] | None:
        calls.append(state.version)
        assert state.ledger.closed  # it sees the state the close leads to
        n = len(calls)
        await svc.store.add_token(eid, f"then-{n}-{eid}", "spectator", [], f"t{n}-{eid}", conn=conn)
        if len(calls) == 1:
            raise ConcurrencyError("campaign-x", 1, 2)  # the War moved on
        return {"carried": True}

    answer = await svc.execute(eid, cmd.Close(), GM, then=then)

    assert answer["campaign"] == {"carried": True}
    assert len(calls) == 2
    closes = [e for e in await svc.envelopes(eid) if e["type"] == "encounter_closed"]
    assert len(closes) == 1
    written = [t.id for t in await svc.store.live_tokens(eid) if t.role == "spectator"]
    assert f"t1-{eid}" not in written and f"t2-{eid}" in written  # the first rolled back
