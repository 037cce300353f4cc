"""A small bounded mapping, least recently used first out, for the server's caches."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most `maxsize` entries; reading or writing one makes it the most recent.

    `keep(value)` may protect an entry from eviction (a lock still held): the oldest
    entry it does not protect goes first, and the mapping may stay over its size while
    every entry is protected.
    """

    def __init__(self, maxsize: int, keep: Callable[[V], bool] | None = None) -> None:
        if maxsize < 1:
            raise ValueError("an Lru holds at least one entry")
        self.maxsize = maxsize
        self._keep = keep
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        self._trim()

    def setdefault(self, key: K, default: V) -> V:
        value = self.get(key)
        if value is None:
            self[key] = value = default
        return value

    def pop(self, key: K, default: V | None = None) -> V | None:
        return self._items.pop(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def _trim(self) -> None:
        if len(self._items) <= self.maxsize:
            return
        for key in list(self._items)[:-1]:  # never the entry just written
            if len(self._items) <= self.maxsize:
                return
            if self._keep is not None and self._keep(self._items[key]):
                continue
            del self._items[key]
