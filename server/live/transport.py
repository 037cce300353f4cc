"""uvicorn's Sans-I/O websocket protocol, made to shed clients that misbehave (CONTRACT section 7).

Two things the endpoint cannot do through ASGI:

- A client that stops reading. Its socket buffers fill, then the transport's, and every send
  waits for room that never comes. Once the write buffer has stayed over its high-water mark
  for `send_timeout` seconds, the connection is reset (SO_LINGER 0, then abort): a polite close
  would queue behind the unsent data and wait for the very peer that does not read. The clock
  starts only when the buffer is full, so a connection that keeps up carries no timer.
- A frame over `ws_max_size`. websockets fails the connection with 1009 as soon as it reads the
  frame's header. uvicorn then closes the socket while the client is still sending the frame;
  the kernel answers the unread bytes with a reset and the client never reads the close frame
  (it saw 1006). Here the close frame and a FIN go out, what the client still sends is read and
  dropped, and the socket closes on the client's EOF (or is reset after `send_timeout`).
  A text frame that is not UTF-8 fails the same way, with 1007 (uvicorn logged a traceback).

And one thing the endpoint should not do through ASGI: send each live update. Through ASGI,
each watcher's update costs a task woken through a future, an ASGI dict, uvicorn's `send`
awaiting its writable event, and the websockets Sans-I/O protocol framing the text again;
with a thousand watchers that was 1.5-2.2x what a bare websockets server spends per
connection (bench/RESULTS.md). So the connection offers itself to the app as a `Direct`
sender, in the ASGI scope's extensions (`DIRECT`): the hub frames a role's update once
(`Shared`) and writes the same bytes to every watcher's transport from its own task, as
`websockets.broadcast()` does. A transport over its high-water mark is not awaited: the
update waits in the connection's backlog (a reference to the shared frame, not a copy)
until the transport drains, and a client `backlog` messages behind is dropped (the caller
closes it 1013, after what it was sent). The send deadline above still resets a client that
stops reading. The app still gets the client's messages through ASGI `receive`.

This reaches into uvicorn's protocol object (`conn`, `transport`, `writable`, `queue`,
`close_sent`, `close_timer`, `read_paused`): pyproject.toml pins the uvicorn range it was
tested with. The framing itself is the websockets library's public Sans-I/O API.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State

_LINGER_ZERO = struct.pack("ii", 1, 0)  # on close: send RST, drop the unsent bytes

DIRECT = "fracas.direct"  # the ASGI scope extension holding a connection's `Direct` sender
BACKLOG = 256  # updates a client may be behind (its transport full) before it is dropped


class Shared:
    """One text message for many connections: its UTF-8 bytes, framed at most once.

    A server's frames are not masked, so without an extension (cli.py turns
    permessage-deflate off) the frame is the same bytes for every connection. Once framed,
    the payload is a view into the frame: one copy of the bytes is kept, not two."""

    __slots__ = ("_data", "_frame", "_text")

    def __init__(self, data: bytes) -> None:
        self._data: bytes | memoryview = data
        self._frame: bytes | None = None
        self._text: str | None = None

    @property
    def data(self) -> bytes | memoryview:
        return self._data

    @property
    def frame(self) -> bytes:
        if self._frame is None:
            size = len(self._data)
            self._frame = Frame(Opcode.TEXT, self._data).serialize(mask=False)
            self._data = memoryview(self._frame)[len(self._frame) - size :]
        return self._frame

    @property
    def text(self) -> str:
        """As a str, for a connection served through ASGI (`Direct` absent)."""
        if self._text is None:
            self._text = str(self._data, "utf-8")
        return self._text


class Direct(Protocol):
    """What the app may do with a connection below ASGI (see the module docstring)."""

    def send_shared(self, message: Shared) -> bool:
        """Write the message now, or hold it until the transport drains; False when the
        client is already `backlog` messages behind (nothing is queued: drop it). A
        connection that is closing or closed takes it and sends nothing."""

    def end(self, code: int, reason: str = "", *, after_backlog: bool) -> None:
        """Close with `code`: after the held messages, or now, dropping them."""


def direct(scope: Mapping[str, Any]) -> Direct | None:
    """The connection's `Direct` sender, if the server is ours (else use ASGI)."""
    found: Direct | None = scope.get("extensions", {}).get(DIRECT)
    return found


class SheddingProtocol(WebSocketsSansIOProtocol):
    """One websocket connection; see the module docstring for what it adds. Build the class
    with `protocol(send_timeout)`."""

    send_timeout: float
    backlog_limit: int = BACKLOG

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stall_timer: asyncio.TimerHandle | None = None
        self.failed = False
        # Messages waiting for the transport to drain; an int is a close code to send
        # after what is before it.
        self.backlog: deque[Shared | int] = deque()
        self.ending = False  # `end` was called: nothing more is taken

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # set only for an upgrade the server accepts
        if scope is not None:
            scope["extensions"][DIRECT] = self

    # --- Direct -----------------------------------------------------------------------

    def send_shared(self, message: Shared) -> bool:
        if self.ending or not self._open():
            return True
        if self.backlog or not self.writable.is_set():
            if len(self.backlog) >= self.backlog_limit:
                return False
            self.backlog.append(message)
            return True
        self._write(message)
        return True

    def end(self, code: int, reason: str = "", *, after_backlog: bool) -> None:
        if self.ending:
            return
        self.ending = True
        if not after_backlog:
            self.backlog.clear()
        if self.backlog:
            self.backlog.append(code)  # the reason is only for closes sent now (1003)
        else:
            self._close_now(code, reason)

    def _open(self) -> bool:
        return (
            self.conn.state is State.OPEN
            and not self.close_sent
            and not self.transport.is_closing()
        )

    def _write(self, message: Shared) -> None:
        if self.conn.extensions:  # negotiated by the client: its frames are its own
            self.conn.send_text(message.data)
            self.transport.write(b"".join(self.conn.data_to_send()))
        else:
            self.transport.write(message.frame)

    def _flush(self) -> None:
        while self.backlog and self.writable.is_set():
            item = self.backlog.popleft()
            if isinstance(item, int):
                self._close_now(item, "")
            elif self._open():
                self._write(item)  # may pause writing again: the loop stops there

    def _close_now(self, code: int, reason: str) -> None:
        """What uvicorn does for an ASGI `websocket.close`, without awaiting room."""
        self.backlog.clear()
        if not self._open():
            return
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        if self.read_paused:  # read the client's close frame
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)

    # --- below ASGI -------------------------------------------------------------------

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = self.loop.call_later(
                self.send_timeout, self.reset, "the client stopped reading"
            )

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_stall_timer()
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_stall_timer()
        self.backlog.clear()
        super().connection_lost(exc)

    def _stop_stall_timer(self) -> None:
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None

    def reset(self, why: str) -> None:
        """Close the TCP connection hard: a RST to the peer, the unsent bytes thrown away.

        connection_lost follows (from the event loop): the app's receive gets a disconnect and
        a send waiting for room raises ClientDisconnected."""
        self.stall_timer = None
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_ZERO)
        self.logger.info("%s - websocket reset: %s", self._peer(), why)
        self.transport.abort()

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "-"

    def data_received(self, data: bytes) -> None:
        if self.failed:
            return  # what a failed client still sends is dropped unparsed
        super().data_received(data)

    def send_receive_event_to_app(self) -> None:
        # uvicorn logs a traceback for a text frame that is not UTF-8: anyone could fill the
        # log. Fail the connection with 1007 without one. (Frames are small: see ws_max_size.)
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                self.conn.fail(1007, "invalid UTF-8")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def handle_parser_exception(self) -> None:
        close = self.conn.close_sent
        if close is None:
            super().handle_parser_exception()
            return
        self.failed = True
        self.queue.put_nowait(
            {"type": "websocket.disconnect", "code": close.code, "reason": close.reason}
        )
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.disconnected = True  # the app's sends now raise ClientDisconnected
        if self.transport.can_write_eof():
            self.transport.write_eof()
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        if self.close_timer is None:
            self.close_timer = self.loop.call_later(
                self.send_timeout, self.reset, "the client did not close after a failure"
            )


def protocol(send_timeout: float, backlog: int = BACKLOG) -> type[SheddingProtocol]:
    """The protocol class for uvicorn's `ws=`, with this send deadline in seconds and this
    many updates a client may be behind before it is dropped."""
    attrs = {"send_timeout": send_timeout, "backlog_limit": backlog}
    return type("SheddingProtocol", (SheddingProtocol,), attrs)
