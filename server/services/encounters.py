"""Command handling: load (cached fold) -> decide -> append with the expected version.

A conflict re-decides on fresh state a bounded number of times. Dice never get re-used
on a retry: the roller is rebuilt from the fresh state's roll counters, so a roll number
is drawn again only if nothing was appended with it. An Idempotency-Key belongs to its
caller; an applied command's outcome is stored in the same transaction as its append, a
refusal's right after it, so one key has one outcome.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from domain import commands as cmd
from domain import dice as dicelib
from domain.chain import GENESIS
from domain.encounter import decide_and_fold, open_encounter
from domain.errors import NotFound, Refused
from domain.events import event_data
from domain.state import EncounterState, Principal
from projections.filter import filter_events, secret_resources, veils
from projections.view import Projection
from server.services import auth
from server.services.lru import Lru
from server.services.metrics import Metrics
from server.store.port import ConcurrencyError, HistoryRewritten, NewEvent, Recorded, Store

log = logging.getLogger(__name__)
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


class IdempotencyMismatch(Refused):
    """The caller's key was first sent with another command body."""

    status = 422

    def __init__(self) -> None:
        super().__init__(
            "idempotency_mismatch",
            "this Idempotency-Key was first sent with another command; use a new key",
        )


# Runs inside a command's append transaction with the state its events lead to; what it
# answers joins the command's answer as "campaign" (a War encounter's close carries its
# outcome back in the same transaction). It may raise ConcurrencyError: all is retried.
Then = Callable[[Any, EncounterState], Awaitable[dict[str, Any] | None]]

# Refusals that say "try again", not "no": never kept as a key's outcome.
TRANSIENT = frozenset({"conflict", "unavailable"})


class Replayed(dict[str, Any]):
    """An answer given again for an Idempotency-Key (the route says so in a header)."""


class CommandKey(msgspec.Struct, frozen=True):
    """An Idempotency-Key as the caller's own: who sent it, its hash, the body's hash."""

    caller: str  # the sending token's hash (tokens.token_hash)
    key_hash: str
    body_hash: str

    @classmethod
    def of(cls, token: str, key: str, command: cmd.Command) -> CommandKey:
        return cls(
            auth.token_hash(token),
            hashlib.sha256(key.encode("utf-8")).hexdigest(),
            hashlib.sha256(msgspec.json.encode(command)).hexdigest(),
        )


def envelope(r: Recorded) -> dict[str, Any]:
    """A stored event as the envelope dict projections read (shallow: data is a dict)."""
    return msgspec.structs.asdict(r)


class _KeyTaken(Exception):
    """Raised inside a command's transaction to roll it back: its key has an outcome."""


class EncounterService:
    """Loads, decides and appends for every encounter of one store."""

    def __init__(self, store: Store, metrics: Metrics):
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
        # The hash of the last event each cached projection folded: what the store must
        # still hold there for the cache to be extended (load).
        self._tips: dict[str, str] = {}

    # --- reading -------------------------------------------------------------------------
    async def load(self, encounter_id: str) -> Projection:
        """The encounter's projection at its latest stored version (cached, caught up).

        A cached projection is only extended if the store still holds the event it was
        folded up to; otherwise (a database restored, an asynchronous failover) the
        stream's caches are dropped and it is folded again from the start."""
        stream = stream_of(encounter_id)
        lock = self._locks.setdefault(stream, asyncio.Lock())
        async with lock:
            proj = self._cache.get(stream) or Projection(keep=KEEP_LINES)
            tip = self._tips.get(stream, GENESIS) if proj.version else GENESIS
            try:
                try:
                    facts, tip = await self.store.read_facts_on(stream, proj.version, tip)
                except HistoryRewritten:
                    self._history_went_back(encounter_id, proj.version)
                    proj = Projection(keep=KEEP_LINES)
                    facts, tip = await self.store.read_facts_on(stream, 0, GENESIS)
                proj.extend(facts)
            except ValueError:
                # A projection that failed to fold is never served again: the next
                # load starts over from the first event.
                self._forget(stream)
                raise
            if proj.version == 0:
                # Not cached, so the lock guards nothing shared: forget it (a load that
                # starts meanwhile folds its own fresh projection).
                self._forget(stream)
                self._locks.pop(stream, None)
                raise NotFound(f"no encounter {encounter_id}")
            self._cache[stream] = proj
            self._tips[stream] = tip
            self._cache.move_to_end(stream)
            while len(self._cache) > CACHE_SIZE:
                old, _ = self._cache.popitem(last=False)
                self._tips.pop(old, None)
                self._locks.pop(old, None)
            return proj

    def _forget(self, stream: str) -> None:
        self._cache.pop(stream, None)
        self._tips.pop(stream, None)

    def _history_went_back(self, encounter_id: str, version: int) -> None:
        """The store no longer holds what this instance cached: say so, drop the caches."""
        stream = stream_of(encounter_id)
        log.warning(
            "history reset: %s no longer holds the event cached at version %d (database"
            " restored or failed over behind this instance); reloading it",
            stream,
            version,
        )
        self.metrics.history_resets += 1
        self._forget(stream)
        self._seeds.pop(encounter_id, None)

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
        return await auth.principal(self.store, encounter_id, token)

    async def _seeds_of(self, encounter_id: str) -> dict[str, bytes]:
        seeds = self._seeds.get(encounter_id)
        if seeds is None:
            seeds = await self.store.seeds(encounter_id)
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
        async with self.store.transaction() as conn:
            await self.store.add_seeds(encounter_id, seeds, conn=conn)
            gm = await auth.issue(self.store, encounter_id, "gm", conn=conn)
            spectator = await auth.issue(self.store, encounter_id, "spectator", conn=conn)
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
        # 128 random bits in every command's hashed meta: no hash covers a secret that
        # can be guessed (projections/filter.py says who reads the blind).
        full = {"rules_version": "1", **meta, "blind": secrets.token_hex(16)}
        recorded = await self.store.append(stream_of(encounter_id), expected, new, full, conn=conn)
        self.metrics.observe_append(time.perf_counter() - started, len(new))
        return recorded

    async def execute(
        self,
        encounter_id: str,
        command: cmd.Command,
        who: Principal,
        key: CommandKey | None = None,
        then: Then | None = None,
    ) -> dict[str, Any]:
        """Decide and append one command (and `then`, in the same transaction), counted
        by its type and outcome (`ok` or the refusal's code) in the metrics."""
        kind = str(command.__struct_config__.tag)
        try:
            answer = await self._execute(encounter_id, command, who, key, then)
        except Refused as refusal:
            self.metrics.command(kind, refusal.code)
            raise
        self.metrics.command(kind, "ok")
        return answer

    async def _execute(
        self,
        encounter_id: str,
        command: cmd.Command,
        who: Principal,
        key: CommandKey | None = None,
        then: Then | None = None,
    ) -> dict[str, Any]:
        """Decide and append one command (and `then`, in the same transaction).

        With a `key` (the caller's own Idempotency-Key) the first outcome is the only
        one: the same caller sending the same key and body again gets the first answer,
        re-filtered for it now, or the first refusal; another body is refused.
        """
        stream = stream_of(encounter_id)
        if key is not None:
            replay = await self._replay(encounter_id, key, who)
            if replay is not None:
                return replay
        for attempt in range(RETRIES):
            # Commands of one process on one encounter take turns: they would only
            # conflict with each other. Conflicts with other processes are retried.
            lock = self._writers.get(stream)
            if lock is None:
                lock = self._writers[stream] = asyncio.Lock()
            async with lock:
                try:
                    answer = await self._attempt(encounter_id, command, who, key, then)
                except Refused as refusal:
                    if key is None or refusal.code in TRANSIENT:
                        raise
                    # The state may refuse because this very key was applied meanwhile
                    # (by a concurrent request, here or on another instance): its first
                    # outcome wins. Otherwise the refusal becomes the key's outcome.
                    await self._store_refusal(stream, key, refusal)
                    replay = await self._replay(encounter_id, key, who)
                    if replay is not None:
                        return replay
                    raise
            if answer is not None:
                return answer
            self.metrics.conflicts += 1
            if key is not None:
                replay = await self._replay(encounter_id, key, who)
                if replay is not None:
                    return replay
            await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        self.metrics.refusals["conflict"] += 1
        raise Refused("conflict", reason="conflict")

    async def _attempt(
        self,
        encounter_id: str,
        command: cmd.Command,
        who: Principal,
        key: CommandKey | None,
        then: Then | None = None,
    ) -> dict[str, Any] | None:
        """Load, decide and append once; None if another writer got there first."""
        stream = stream_of(encounter_id)
        proj = await self.load(encounter_id)
        state = proj.state
        roller = Roller(
            encounter_id,
            await self._seeds_of(encounter_id),
            state.ledger.next_roll,
            dicelib.client_seed(state.ledger.entropy, state.ledger.entropy_join),
        )
        try:
            events, after = decide_and_fold(state, command, roller, who)
        except Refused as refusal:
            self.metrics.refusals[refusal.code] += 1
            raise
        # The cached projection may move on (a reader catching up) at the next await:
        # take what the decision stood on now, so the append expects exactly that.
        expected = state.version
        secret, hidden = secret_resources(state), set(state.ledger.hidden_rolls)
        extra: dict[str, Any] = {}
        # The server's own id: a client's Idempotency-Key is never published.
        meta: dict[str, Any] = {"actor": who.name or who.role, "command_id": uuid.uuid4().hex}
        if veils((event_data(e) for e in events), secret, hidden):
            meta["veiled"] = True
        try:
            async with self.store.transaction() as conn:
                if isinstance(command, cmd.AddCombatant):
                    cid = getattr(events[0], "combatant_id", "")
                    extra["combatant_id"] = cid
                    extra["player_token"] = await auth.issue(
                        self.store, encounter_id, "player", [cid], conn=conn
                    )
                recorded = await self._append(conn, encounter_id, expected, events, meta)
                if then is not None:
                    joined = await then(conn, after)
                    if joined is not None:
                        extra["campaign"] = joined
                role = "gm" if who.role == "gm" else "public"
                answer = {
                    "version": recorded[-1].version,
                    "events": filter_events([envelope(r) for r in recorded], role, secret, hidden),
                    **extra,
                }
                if key is not None:
                    kept = {k: v for k, v in extra.items() if k != "player_token"}
                    outcome = {
                        "first": recorded[0].version,
                        "last": recorded[-1].version,
                        "extra": kept,
                    }
                    first = await self.store.keep_outcome(
                        stream, key.caller, key.key_hash, key.body_hash, 200, outcome, conn=conn
                    )
                    if not first:  # roll the append back: the key's outcome is another
                        raise _KeyTaken()
        except ConcurrencyError:
            return None
        except _KeyTaken:
            # Another request with the same key won; ours rolled back whole.
            replay = await self._replay(encounter_id, key, who) if key is not None else None
            if replay is not None:
                return replay
            raise
        return answer

    async def _store_refusal(self, stream: str, key: CommandKey, refusal: Refused) -> None:
        """Keep a refusal as the key's outcome, unless the key already has one."""
        outcome = {
            "code": refusal.code,
            "message": refusal.message,
            "rule": refusal.rule,
            "reason": refusal.reason,
            "params": refusal.params,
            "names": refusal.names,
        }
        await self.store.keep_outcome(
            stream, key.caller, key.key_hash, key.body_hash, refusal.status, outcome
        )

    async def _replay(
        self, encounter_id: str, key: CommandKey, who: Principal
    ) -> dict[str, Any] | None:
        """The key's first outcome for the caller asking now, or None if it has none.

        An answer is rebuilt from the stored versions and filtered for `who` with the
        encounter's secrets as they stand now; a refusal is raised again as it was.
        """
        row = await self.store.outcome_of(stream_of(encounter_id), key.caller, key.key_hash)
        if row is None:
            return None
        if row.body_hash != key.body_hash:
            raise IdempotencyMismatch()
        outcome = row.outcome
        if row.status != 200:
            refusal = Refused(
                outcome["code"],
                outcome["message"],
                outcome.get("rule"),
                reason=outcome.get("reason", ""),
                params=outcome.get("params"),
                names=outcome.get("names"),
            )
            refusal.status = row.status
            raise refusal
        proj = await self.load(encounter_id)
        first, last = int(outcome["first"]), int(outcome["last"])
        envs = await self.envelopes(encounter_id, after=first - 1, upto=last)
        shown = filter_events(
            envs,
            "gm" if who.role == "gm" else "public",
            secret_resources(proj.state),
            set(proj.state.ledger.hidden_rolls),
        )
        answer = Replayed(version=last, events=shown, **outcome["extra"])
        if "combatant_id" in answer:
            # A player token is shown once and never stored in clear.
            answer["player_token"] = None
            answer["player_link"] = (
                f"not kept: POST /api/encounters/{encounter_id}/tokens "
                f'{{"role": "player", "combatants": ["{answer["combatant_id"]}"]}}'
                " issues a new link"
            )
        return answer
