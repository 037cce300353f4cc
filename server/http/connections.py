"""Connection limits: what a client may hold of the server before it is shed.

Without them, 300 slowloris connections (headers sent a byte at a time) were held 40 s,
100 slow bodies 30 s, and 1,100 idle connections under the systemd default of 1,024 open
files made `/healthz` time out (issue 20 section 5). So:

- header read timeout: a connection has `header_timeout` seconds to send a request's
  headers, from when it opens or its previous answer ended; past it, 408 and the
  connection closes. (uvicorn's keep-alive timer, `timeout_keep_alive`, closes a
  connection that sends nothing at all between requests; it is cancelled by the first
  byte, which is why a slowloris needs this one.)
- body read timeout: a request's body must have arrived `body_timeout` seconds after its
  headers, else 408 (`BodyDeadline`, around the app's `receive`).
- max concurrent connections: past `max_connections` open connections (HTTP and
  websockets alike), a new one is answered 503 with Retry-After at once and closed, so the
  ones within the cap keep being served and the file limit is never reached
  (deploy/fracas@.service sets LimitNOFILE=65536 above any cap an operator would pick).

The limits are one mixin over either of uvicorn's HTTP/1.1 protocols: `LimitedHttpTools`
(httptools, the C parser `fracas serve` uses by default, issue 26) and `LimitedH11` (the
pure-Python h11, `--http h11`). Both reach into uvicorn's protocol (`cycle`,
`connections`, `transport`, `on_response_complete`, and where a request's headers are
complete: h11's `handle_events`, httptools' `on_headers_complete`): pyproject.toml pins
the uvicorn range they were tested with.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.http.errors import HTTPError, error_body
from server.http.headers import HEADERS

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
KEEP_ALIVE = 5.0
MAX_CONNECTIONS = 10_000
RETRY_AFTER = 2
_LINGER = 1.0  # how long a shed connection is read (and dropped) before it is closed


def _answer(status: int, phrase: str, code: str, *, reason: str, extra: str = "") -> bytes:
    body = json.dumps(error_body(code, "", reason=reason)).encode()
    security = "".join(f"{k.decode()}: {v.decode()}\r\n" for k, v in HEADERS)
    head = (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n{extra}{security}\r\n"
    )
    return head.encode("ascii") + body


OVER_CAP = _answer(
    503, "Service Unavailable", "unavailable",
    reason="too_many_connections", extra=f"retry-after: {RETRY_AFTER}\r\n",
)  # fmt: skip
HEADERS_TOO_SLOW = _answer(408, "Request Timeout", "timeout", reason="headers_too_slow")


class _Limits(asyncio.Protocol):
    """The header read timeout and the connection cap, over a uvicorn HTTP protocol (the
    class that follows this one in the bases). Build a class with `http_protocol(...)`."""

    header_timeout: float = HEADER_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    # What the protocol underneath provides (uvicorn's H11Protocol, HttpToolsProtocol).
    connections: set[Any]
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timer: asyncio.TimerHandle | None = None
        self.shed = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            self._shed()
            return
        self._arm()

    def _shed(self) -> None:
        """Answer 503 now, stop sending, drop what the client still sends, close soon:
        closing at once would reset a client whose request is on its way, and it might
        never read the answer."""
        self.shed = True
        self.connections.discard(self)  # a shed connection holds no place in the cap
        self.transport.write(OVER_CAP)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER, self.transport.close)

    def data_received(self, data: bytes) -> None:
        if self.shed:
            return
        super().data_received(data)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]  # the protocol's
        if not self.transport.is_closing():
            self._arm()  # the next request's headers are due in time too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.shed:
            return  # never entered the protocol's cycle
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.header_timer = self.loop.call_later(self.header_timeout, self._headers_late)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _headers_late(self) -> None:
        self.header_timer = None
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: its body has its own deadline
        if not self.transport.is_closing():
            self.transport.write(HEADERS_TOO_SLOW)
            self.transport.close()


class LimitedH11(_Limits, H11Protocol):
    """uvicorn's h11 protocol with the limits."""

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a new request's headers arrived
            self._disarm()

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._disarm()
        super().handle_websocket_upgrade(event)


class LimitedHttpTools(_Limits, HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits."""

    def on_headers_complete(self) -> None:
        self._disarm()  # a request's headers arrived (an upgrade's too)
        super().on_headers_complete()


PARSERS: dict[str, type[_Limits]] = {"httptools": LimitedHttpTools, "h11": LimitedH11}


def http_protocol(
    header_timeout: float = HEADER_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    parser: str = "httptools",
) -> type[asyncio.Protocol]:
    """The protocol class for uvicorn's `http=`, with these limits, over `parser`'s
    protocol (httptools or h11)."""
    attrs = {"header_timeout": header_timeout, "max_connections": max_connections}
    base = PARSERS[parser]
    return type(base.__name__, (base,), attrs)


class BodyDeadline:
    """ASGI middleware: a request's body must have arrived `seconds` after its headers,
    else 408 `timeout` (and the connection closes: its unread body cannot be skipped)."""

    def __init__(self, app: ASGIApp, seconds: float = BODY_TIMEOUT) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        done = False

        async def timed() -> Message:
            nonlocal done
            if done:
                return await receive()  # after the body: a disconnect, whenever it comes
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise HTTPError(
                    408, "timeout", reason="body_too_slow",
                    params={"seconds": f"{self.seconds:g}"}, headers={"Connection": "close"},
                ) from None  # fmt: skip
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        await self.app(scope, timed, send)
