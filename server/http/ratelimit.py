"""A per-client-address limit on creating encounters and Wars (token buckets, bounded).

Creation is the one thing anyone may do without a token, and each one stores rows (the
stream, its seeds, two tokens): POST /api/encounters, POST /api/campaigns and
POST /api/simulate with `save` share one bucket per client address. The address is the
TCP peer's: behind a reverse proxy every client shares the proxy's address (and bucket),
so raise the limit there or let the proxy limit per client (docs/operating.md, Deploying).
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict

DEFAULT_PER_MINUTE = 60
ENV = "FRACAS_CREATE_RATE"
ADDRESSES = 10_000  # buckets kept; the least recently seen address is forgotten first


def configured(flag: int | None) -> int:
    """Creations per minute per address: the flag, else $FRACAS_CREATE_RATE, else 60.

    0 turns the limit off.
    """
    if flag is not None:
        return max(0, flag)
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return DEFAULT_PER_MINUTE
    try:
        return max(0, int(raw))
    except ValueError as e:
        raise ValueError(f"{ENV} must be a whole number of creations per minute") from e


class RateLimiter:
    """`per_minute` creations per address, in bursts of up to `per_minute`."""

    def __init__(self, per_minute: int, addresses: int = ADDRESSES) -> None:
        self.per_minute = per_minute
        self.addresses = addresses
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str, now: float | None = None) -> float:
        """Take one creation for `address`: 0 if allowed, else seconds until one is."""
        if self.per_minute <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        rate = self.per_minute / 60.0
        tokens, since = self._buckets.pop(address, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - since) * rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / rate
        self._buckets[address] = (tokens, now)
        while len(self._buckets) > self.addresses:
            self._buckets.popitem(last=False)
        return wait

    def retry_after(self, wait: float) -> int:
        return max(1, math.ceil(wait))
