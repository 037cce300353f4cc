"""Command handling: load (cached fold) -> decide -> append with the expected version.

A conflict re-decides on fresh state a bounded number of times. Dice never get re-used
on a retry: the roller is rebuilt from the fresh state's roll counters, so a roll number
is drawn again only if nothing was appended with it. An Idempotency-Key is stored with
its answer in the same transaction as the append.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
import weakref
from collections import OrderedDict
from typing import Any

import asyncpg
import msgspec

from domain import commands as cmd
from domain import dice as dicelib
from domain.encounter import decide, open_encounter
from domain.errors import NotFound, Refused
from domain.events import event_data
from domain.state import Principal
from projections.filter import filter_events, secret_resources
from projections.view import Projection
from server import auth
from server.lru import Lru
from server.metrics import Metrics
from server.store import ConcurrencyError, NewEvent, PostgresEventStore, Recorded

RETRIES = 10
CACHE_SIZE = 512  # folded projections kept (one per recently used encounter)
SEEDS_SIZE = 4096  # encounters whose dice seeds are kept (32 bytes each, two per encounter)
LOCKS_SIZE = 2 * CACHE_SIZE  # per-stream load locks; a held or awaited one is never dropped
KEEP_LINES = 1000  # log lines a cached projection keeps (the board shows 100)


def stream_of(encounter_id: str) -> str:
    return f"encounter-{encounter_id}"


def parse_id(raw: str) -> str:
    """The canonical lower-case uuid, or NotFound."""
    try:
        return str(uuid.UUID(raw))
    except ValueError as e:
        raise NotFound(f"no encounter {raw!r}") from e


class Roller(dicelib.SeededRoller):
    """The server's roller, which can also reveal its seeds at close."""

    def reveal(self, seed_id: str) -> bytes | None:
        return self._seeds.get(seed_id)


def envelope(r: Recorded) -> dict[str, Any]:
    """A stored event as the envelope dict projections read (shallow: data is a dict)."""
    return msgspec.structs.asdict(r)


class EncounterService:
    """Loads, decides and appends for every encounter of one database."""

    def __init__(self, pool: asyncpg.Pool[Any], store: PostgresEventStore, metrics: Metrics):
        self.pool = pool
        self.store = store
        self.metrics = metrics
        # Every per-encounter map is bounded: a request for an encounter that does not
        # exist (any uuid) must not leave an entry behind for good.
        self._cache: OrderedDict[str, Projection] = OrderedDict()
        self._locks: Lru[str, asyncio.Lock] = Lru(LOCKS_SIZE, keep=asyncio.Lock.locked)
        # Only the locks of commands in flight: an entry goes with its last user.
        self._writers: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._seeds: Lru[str, dict[str, bytes]] = Lru(SEEDS_SIZE)

    # --- reading -------------------------------------------------------------------------
    async def load(self, encounter_id: str) -> Projection:
        """The encounter's projection at its latest stored version (cached, caught up)."""
        stream = stream_of(encounter_id)
        lock = self._locks.setdefault(stream, asyncio.Lock())
        async with lock:
            proj = self._cache.get(stream) or Projection(keep=KEEP_LINES)
            try:
                proj.extend(await self.store.read_facts(stream, after=proj.version))
            except ValueError:
                # A projection that failed to fold is never served again: the next
                # load starts over from the first event.
                self._cache.pop(stream, None)
                raise
            if proj.version == 0:
                # Not cached, so the lock guards nothing shared: forget it (a load that
                # starts meanwhile folds its own fresh projection).
                self._locks.pop(stream, None)
                raise NotFound(f"no encounter {encounter_id}")
            self._cache[stream] = proj
            self._cache.move_to_end(stream)
            while len(self._cache) > CACHE_SIZE:
                old, _ = self._cache.popitem(last=False)
                self._locks.pop(old, None)
            return proj

    async def at(self, encounter_id: str, version: int) -> Projection:
        """The projection as it stood at `version` (folded fresh, not cached)."""
        proj = Projection(keep=KEEP_LINES)
        proj.extend(await self.store.read_facts(stream_of(encounter_id), upto=version))
        if proj.version == 0:
            raise NotFound(f"no encounter {encounter_id}")
        return proj

    async def envelopes(
        self, encounter_id: str, after: int = 0, upto: int | None = None
    ) -> list[dict[str, Any]]:
        recs = await self.store.read_stream(stream_of(encounter_id), after=after, upto=upto)
        return [envelope(r) for r in recs]

    async def principal(self, encounter_id: str, token: str | None) -> Principal | None:
        if not token:
            return None
        return await auth.principal(self.pool, encounter_id, token)

    async def _seeds_of(self, encounter_id: str) -> dict[str, bytes]:
        seeds = self._seeds.get(encounter_id)
        if seeds is None:
            rows = await self.pool.fetch(
                "SELECT seed_id, seed FROM dice_seeds WHERE encounter = $1", encounter_id
            )
            seeds = {r["seed_id"]: bytes(r["seed"]) for r in rows}
            self._seeds[encounter_id] = seeds
        return seeds

    # --- writing -------------------------------------------------------------------------
    async def create(
        self,
        ruleset: str,
        name: str,
        settings: dict[str, Any],
        campaign: str | None = None,
    ) -> dict[str, Any]:
        encounter_id = str(uuid.uuid4())
        seeds = {"main": dicelib.new_seed(), "hidden": dicelib.new_seed()}
        events = open_encounter(
            encounter_id,
            ruleset,
            name,
            settings,
            {sid: (dicelib.commitment(s), sid == "hidden") for sid, s in seeds.items()},
            campaign,
        )
        async with self.pool.acquire() as conn, conn.transaction():
            for sid, seed in seeds.items():
                await conn.execute(
                    "INSERT INTO dice_seeds (encounter, seed_id, seed) VALUES ($1, $2, $3)",
                    encounter_id,
                    sid,
                    seed,
                )
            gm = await auth.issue(conn, encounter_id, "gm")
            spectator = await auth.issue(conn, encounter_id, "spectator")
            recorded = await self._append(
                conn, encounter_id, 0, events, {"actor": "gm", "command_id": "create"}
            )
        self._seeds[encounter_id] = seeds
        return {
            "id": encounter_id,
            "version": recorded[-1].version,
            "gm_token": gm,
            "spectator_token": spectator,
            "links": {
                "gm": f"/e/{encounter_id}#token={gm}",
                "spectator": f"/e/{encounter_id}#token={spectator}",
                "board": f"/e/{encounter_id}#token={spectator}",
            },
        }

    async def _append(
        self,
        conn: Any,
        encounter_id: str,
        expected: int,
        events: list[Any],
        meta: dict[str, Any],
    ) -> list[Recorded]:
        started = time.perf_counter()
        new = [NewEvent(*event_data(e)) for e in events]
        recorded = await self.store.append(
            stream_of(encounter_id), expected, new, {"rules_version": "1", **meta}, conn=conn
        )
        self.metrics.observe_append(time.perf_counter() - started, len(new))
        return recorded

    async def execute(
        self,
        encounter_id: str,
        command: cmd.Command,
        who: Principal,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Decide and append one command; the same `key` again returns the first answer."""
        stream = stream_of(encounter_id)
        if key is not None:
            first = await self._answer(stream, key)
            if first is not None:
                return first
        self.metrics.commands[type(command).__name__] += 1
        for attempt in range(RETRIES):
            # Commands of one process on one encounter take turns: they would only
            # conflict with each other. Conflicts with other processes are retried.
            lock = self._writers.get(stream)
            if lock is None:
                lock = self._writers[stream] = asyncio.Lock()
            async with lock:
                answer = await self._attempt(encounter_id, command, who, key)
            if answer is not None:
                return answer
            self.metrics.conflicts += 1
            if key is not None:
                first = await self._answer(stream, key)
                if first is not None:
                    return first
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        self.metrics.refusals["conflict"] += 1
        raise Refused("conflict", "the encounter kept changing under this command; send it again")

    async def _attempt(
        self, encounter_id: str, command: cmd.Command, who: Principal, key: str | None
    ) -> dict[str, Any] | None:
        """Load, decide and append once; None if another writer got there first."""
        stream = stream_of(encounter_id)
        proj = await self.load(encounter_id)
        state = proj.state
        roller = Roller(
            encounter_id,
            await self._seeds_of(encounter_id),
            state.ledger.next_roll,
            dicelib.client_seed(state.ledger.entropy),
        )
        try:
            events = decide(state, command, roller, who)
        except Refused as refusal:
            self.metrics.refusals[refusal.code] += 1
            raise
        # The cached projection may move on (a reader catching up) at the next await:
        # take what the decision stood on now, so the append expects exactly that.
        expected = state.version
        secret, hidden = secret_resources(state), set(state.ledger.hidden_rolls)
        extra: dict[str, Any] = {}
        meta = {"actor": who.name or who.role, "command_id": key or uuid.uuid4().hex}
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                if isinstance(command, cmd.AddCombatant):
                    cid = getattr(events[0], "combatant_id", "")
                    extra["combatant_id"] = cid
                    extra["player_token"] = await auth.issue(conn, encounter_id, "player", [cid])
                recorded = await self._append(conn, encounter_id, expected, events, meta)
                role = "gm" if who.role == "gm" else "public"
                answer = {
                    "version": recorded[-1].version,
                    "events": filter_events([envelope(r) for r in recorded], role, secret, hidden),
                    **extra,
                }
                if key is not None:
                    await conn.execute(
                        "INSERT INTO idempotency (stream, key, answer) VALUES ($1, $2, $3)",
                        stream,
                        key,
                        msgspec.json.encode(answer).decode(),
                    )
        except ConcurrencyError:
            return None
        except asyncpg.UniqueViolationError:
            # Another request with the same key won; ours rolled back whole.
            first = await self._answer(stream, key or "")
            if first is not None:
                return first
            raise
        return answer

    async def _answer(self, stream: str, key: str) -> dict[str, Any] | None:
        raw = await self.pool.fetchval(
            "SELECT answer::text FROM idempotency WHERE stream = $1 AND key = $2", stream, key
        )
        if raw is None:
            return None
        answer: dict[str, Any] = msgspec.json.decode(raw)
        return answer
