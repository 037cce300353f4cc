"""Prometheus text metrics, kept in-process (no client library needed for a few series)."""

from __future__ import annotations

from collections import Counter

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Metrics:
    """Counters and one latency histogram, rendered as Prometheus text."""

    def __init__(self) -> None:
        self.appends = 0
        self.events = 0
        self.conflicts = 0
        self.history_resets = 0  # caches dropped: the database was behind them
        self.refusals: Counter[str] = Counter()
        self.commands: Counter[str] = Counter()
        self.ws_connections = 0
        self.ws_dropped = 0
        self._latency = [0] * len(_BUCKETS)
        self._latency_sum = 0.0
        self._latency_count = 0

    def observe_append(self, seconds: float, events: int) -> None:
        self.appends += 1
        self.events += events
        self._latency_sum += seconds
        self._latency_count += 1
        for i, bound in enumerate(_BUCKETS):
            if seconds <= bound:
                self._latency[i] += 1

    def render(self) -> str:
        lines = [
            "# TYPE fracas_appends_total counter",
            f"fracas_appends_total {self.appends}",
            "# TYPE fracas_events_appended_total counter",
            f"fracas_events_appended_total {self.events}",
            "# TYPE fracas_append_conflicts_total counter",
            f"fracas_append_conflicts_total {self.conflicts}",
            "# TYPE fracas_history_resets_total counter",
            f"fracas_history_resets_total {self.history_resets}",
            "# TYPE fracas_websocket_connections gauge",
            f"fracas_websocket_connections {self.ws_connections}",
            "# TYPE fracas_websocket_dropped_total counter",
            f"fracas_websocket_dropped_total {self.ws_dropped}",
            "# TYPE fracas_commands_total counter",
            *(f'fracas_commands_total{{type="{k}"}} {v}' for k, v in sorted(self.commands.items())),
            "# TYPE fracas_refusals_total counter",
            *(f'fracas_refusals_total{{code="{k}"}} {v}' for k, v in sorted(self.refusals.items())),
            "# TYPE fracas_append_seconds histogram",
        ]
        for bound, count in zip(_BUCKETS, self._latency, strict=True):
            lines.append(f'fracas_append_seconds_bucket{{le="{bound}"}} {count}')
        lines += [
            f'fracas_append_seconds_bucket{{le="+Inf"}} {self._latency_count}',
            f"fracas_append_seconds_sum {self._latency_sum:.6f}",
            f"fracas_append_seconds_count {self._latency_count}",
        ]
        return "\n".join(lines) + "\n"
