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
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

_LINGER_ZERO = struct.pack("ii", 1, 0)  # on close: send RST, drop the unsent bytes


class SheddingProtocol(WebSocketsSansIOProtocol):
    """One websocket connection; see the module docstring for what it adds. Build the class
    with `protocol(send_timeout)`."""

    send_timeout: float

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stall_timer: asyncio.TimerHandle | None = None
        self.failed = False

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = self.loop.call_later(
                self.send_timeout, self.reset, "the client stopped reading"
            )

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_stall_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_stall_timer()
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


def protocol(send_timeout: float) -> type[SheddingProtocol]:
    """The protocol class for uvicorn's `ws=`, with this send deadline in seconds."""
    return type("SheddingProtocol", (SheddingProtocol,), {"send_timeout": send_timeout})
