"""Prometheus text metrics, kept in-process (no client library needed for a few series).

What an operator reads off GET /metrics: commands by type and outcome, the append
latency, the hub's lag from a wake-up to the updates handed to the websockets, the
websockets open by role, webhook deliveries by outcome, and the database pool's
connections in use and callers waiting for one. Every family has its HELP and TYPE
(`promtool check metrics` runs in .ci/api-documents and tests/e2e/test_metrics.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

# Seconds: an append is a few milliseconds; a hub wake-up to send, up to a busy second.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5)


class Histogram:
    """Cumulative buckets, a sum and a count, in seconds."""

    def __init__(self) -> None:
        self.buckets = [0] * len(_BUCKETS)
        self.sum = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        self.sum += seconds
        self.count += 1
        for i, bound in enumerate(_BUCKETS):
            if seconds <= bound:
                self.buckets[i] += 1

    def lines(self, name: str) -> list[str]:
        out = [
            f'{name}_bucket{{le="{bound}"}} {count}'
            for bound, count in zip(_BUCKETS, self.buckets, strict=True)
        ]
        return [
            *out,
            f'{name}_bucket{{le="+Inf"}} {self.count}',
            f"{name}_sum {self.sum:.6f}",
            f"{name}_count {self.count}",
        ]


# The pool's connections: (open, idle, most, callers waiting for one).
PoolStats = Callable[[], tuple[int, int, int, int]]
ROLES = ("gm", "player", "spectator")


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    """Counters, gauges and two latency histograms, rendered as Prometheus text."""

    def __init__(self) -> None:
        self.appends = 0
        self.events = 0
        self.conflicts = 0
        self.history_resets = 0  # caches dropped: the database was behind them
        self.refusals: Counter[str] = Counter()
        self.commands: Counter[tuple[str, str]] = Counter()  # (type, outcome)
        self.ws_by_role: Counter[str] = Counter()
        self.ws_dropped = 0
        self.webhooks: Counter[str] = Counter()  # delivery outcome
        self.append_seconds = Histogram()
        self.hub_lag = Histogram()
        self.pool: PoolStats | None = None

    def observe_append(self, seconds: float, events: int) -> None:
        self.appends += 1
        self.events += events
        self.append_seconds.observe(seconds)

    def command(self, kind: str, outcome: str) -> None:
        """One command handled: `outcome` is `ok` or the refusal's code."""
        self.commands[(kind, outcome)] += 1

    def ws_opened(self, role: str) -> None:
        self.ws_by_role[_role(role)] += 1

    def ws_closed(self, role: str) -> None:
        self.ws_by_role[_role(role)] -= 1

    @property
    def ws_connections(self) -> int:
        return sum(self.ws_by_role.values())

    def render(self) -> str:
        lines: list[str] = []

        def family(name: str, kind: str, help_: str, samples: Iterable[str]) -> None:
            lines.extend((f"# HELP {name} {help_}", f"# TYPE {name} {kind}", *samples))

        family("fracas_appends_total", "counter", "Appends to the event store (one per"
               " accepted command).", [f"fracas_appends_total {self.appends}"])  # fmt: skip
        family("fracas_events_appended_total", "counter", "Events appended.",
               [f"fracas_events_appended_total {self.events}"])  # fmt: skip
        family("fracas_append_conflicts_total", "counter", "Appends that lost a race to"
               " another writer and were retried.",
               [f"fracas_append_conflicts_total {self.conflicts}"])  # fmt: skip
        family("fracas_history_resets_total", "counter", "Streams whose caches were dropped"
               " and reloaded because the database was behind them (a failover lost history).",
               [f"fracas_history_resets_total {self.history_resets}"])  # fmt: skip
        family("fracas_commands_total", "counter", "Commands handled, by command type and"
               " outcome (ok, or the refusal's code).",
               [f'fracas_commands_total{{type="{_label(t)}",outcome="{_label(o)}"}} {n}'
                for (t, o), n in sorted(self.commands.items())])  # fmt: skip
        family("fracas_refusals_total", "counter", "Commands refused, by refusal code.",
               [f'fracas_refusals_total{{code="{_label(k)}"}} {v}'
                for k, v in sorted(self.refusals.items())])  # fmt: skip
        family("fracas_append_seconds", "histogram", "Time to decide and append one"
               " command, in seconds.",
               self.append_seconds.lines("fracas_append_seconds"))  # fmt: skip
        family("fracas_hub_wake_to_send_seconds", "histogram", "Time from a stream's"
               " wake-up (NOTIFY) to its updates handed to every websocket, in seconds.",
               self.hub_lag.lines("fracas_hub_wake_to_send_seconds"))  # fmt: skip
        family("fracas_websocket_connections", "gauge", "Websockets open, by the role of"
               " their token.",
               [f'fracas_websocket_connections{{role="{r}"}} {self.ws_by_role[r]}'
                for r in ROLES])  # fmt: skip
        family("fracas_websocket_dropped_total", "counter", "Websockets closed 1013 for"
               " falling behind.",
               [f"fracas_websocket_dropped_total {self.ws_dropped}"])  # fmt: skip
        family("fracas_webhook_deliveries_total", "counter", "Webhook delivery attempts, by"
               " outcome: delivered, retrying, or failed (given up).",
               [f'fracas_webhook_deliveries_total{{status="{s}"}} {self.webhooks[s]}'
                for s in ("delivered", "retrying", "failed")])  # fmt: skip
        if self.pool is not None:
            size, idle, most, waiting = self.pool()
            family("fracas_db_pool_connections", "gauge", "Database pool connections, by"
                   " state: in use, idle, and the most it opens.",
                   [f'fracas_db_pool_connections{{state="in_use"}} {size - idle}',
                    f'fracas_db_pool_connections{{state="idle"}} {idle}',
                    f'fracas_db_pool_connections{{state="max"}} {most}'])  # fmt: skip
            family("fracas_db_pool_waiting", "gauge", "Callers waiting for a pool connection.",
                   [f"fracas_db_pool_waiting {waiting}"])  # fmt: skip
        return "\n".join(lines) + "\n"


def _role(role: str) -> str:
    """A watcher's role as a metric label: a player's view ("player:c1") is a player."""
    kind = role.split(":", 1)[0]
    return kind if kind in ROLES else "spectator" if kind == "public" else kind


def sample_page() -> str:
    """A page with a sample of each series, for `promtool check metrics` in .ci/api-documents."""
    m = Metrics()
    m.observe_append(0.003, 2)
    m.command("act", "ok")
    m.command("act", "not_your_turn")
    m.refusals["not_your_turn"] += 1
    m.hub_lag.observe(0.004)
    m.ws_opened("gm")
    m.ws_opened("player:c1")
    m.webhooks["delivered"] += 1
    m.pool = lambda: (4, 3, 10, 0)
    return m.render()
