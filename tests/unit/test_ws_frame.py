"""One update framed once is the frame the websockets library would write per connection."""

from __future__ import annotations

import pytest
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.live.transport import Shared


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 200_000])
def test_a_shared_frame_is_what_the_sans_io_protocol_sends_for_the_same_text(size: int) -> None:
    data = ("é" * size).encode()[:size]  # any bytes: the header depends on the length only
    conn = ServerProtocol(state=State.OPEN)
    conn.send_text(data)
    assert Shared(data).frame == b"".join(conn.data_to_send())


def test_a_shared_message_decodes_once_for_a_connection_served_through_asgi() -> None:
    shared = Shared("Hélène → 🗡".encode())
    assert shared.text == "Hélène → 🗡" and shared.text is shared.text


def test_a_framed_message_keeps_its_payload_as_a_view_into_the_frame() -> None:
    shared = Shared(b'{"type":"update"}')
    frame = shared.frame
    assert bytes(shared.data) == b'{"type":"update"}' and frame.endswith(bytes(shared.data))
    assert shared.text == '{"type":"update"}'
