"""Security headers on every HTTP answer: pages, API, static files, errors (issue 20
section 5).

- Content-Security-Policy: scripts, styles, connections (fetch and the same-origin
  websocket), fonts and images from this origin only; no plugins, no <base>, no framing.
  The pages build their markup from modules, never inline scripts; the bars of the
  board, the War sheet and the resolver set their width with a `style` attribute, so
  inline style attributes (not <style> elements) are allowed (`style-src-attr`). The
  favicon is `data:,`.
- X-Frame-Options DENY (what frame-ancestors says, for older browsers), X-Content-Type-
  Options nosniff (a JSON answer is never read as a script), Referrer-Policy no-referrer
  (a page's address never leaves with a link: the links' fragments hold tokens, and
  a roll link's query names the encounter).
An answer that already sets one of them keeps its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware adding HEADERS to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in HEADERS if k not in present]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
