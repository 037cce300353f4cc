"""Outbound HTTP for webhooks: which addresses may be called, and a tiny HTTP/1.1 POST.

The standard library is enough for one POST with a timeout (asyncio streams, TLS from
`ssl` with certificate and host name checks), so the server needs no HTTP client
dependency. The host is resolved once, every address it resolves to is vetted, and the
connection goes to a vetted address: a DNS answer cannot change between the check and
the connect (no rebinding).

Error messages name what failed, never the URL or an address (they reach the GM's
delivery list and the logs).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import ssl
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit

from projections.words.refusals import word_reason

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Net = ipaddress.IPv4Network | ipaddress.IPv6Network
_PRINTABLE = re.compile(r"[!-~]{1,2000}")  # ASCII, no space, no CR/LF (header injection)


class Unsafe(Exception):
    """A URL the server refuses to call: `reason` says why (a key worded in
    projections/words/refusals.py), never the URL; str() is its English words."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        said = word_reason(reason, {})
        super().__init__(said[0] if said else reason)


@dataclass(frozen=True)
class Allow:
    """The operator's exceptions (FRACAS_WEBHOOK_ALLOW: comma-separated hosts or CIDRs)."""

    hosts: frozenset[str] = frozenset()
    nets: tuple[Net, ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, raw: str | None) -> Allow:
        hosts: set[str] = set()
        nets: list[Net] = []
        for item in (raw or "").split(","):
            item = item.strip().lower()
            if not item:
                continue
            try:
                nets.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                hosts.add(item.rstrip("."))
        return cls(frozenset(hosts), tuple(nets))

    def permits(self, host: str, ip: IP) -> bool:
        return host.lower().rstrip(".") in self.hosts or any(ip in n for n in self.nets)


# IPv6 forms that carry an IPv4 address in their last 32 bits: IPv4-compatible (::/96,
# deprecated), SIIT's IPv4-translated (::ffff:0:0:0/96) and NAT64 (the well-known
# 64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 8215). A gateway on the path may
# deliver such an address to the IPv4 it wraps; Python calls most of them global.
_WRAPPING = tuple(
    ipaddress.IPv6Network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48")
)


def embedded(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address an IPv6 address wraps: mapped, compatible, translated, NAT64,
    6to4 (2002::/16) and Teredo (2001::/32: its server and its client)."""
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if any(ip in net for net in _WRAPPING):
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    return out


def public(ip: IP) -> bool:
    """A globally routable unicast address (not loopback, private, link-local, ...); an
    IPv6 address that wraps an IPv4 one is judged by the IPv4 address too."""
    if isinstance(ip, ipaddress.IPv6Address):
        wrapped = embedded(ip)
        if ip.ipv4_mapped is not None:  # ::ffff:0:0/96 is not global itself: judge the IPv4
            return public(ip.ipv4_mapped)
        if not all(public(v4) for v4 in wrapped):
            return False
    return ip.is_global and not ip.is_multicast


def check_url(url: str) -> SplitResult:
    """The parts of an http(s) URL the server may store; raises Unsafe otherwise."""
    if not _PRINTABLE.fullmatch(url):
        raise Unsafe("webhook_url_printable")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise Unsafe("webhook_url_http")
    if not parts.hostname:
        raise Unsafe("webhook_url_host")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as e:
        raise Unsafe("webhook_url_port") from e
    return parts


async def vetted(parts: SplitResult, allow: Allow) -> list[IP]:
    """Every address the URL's host resolves to, if each may be called; else Unsafe."""
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError) as e:
        raise Unsafe("webhook_host_unresolved") from e
    ips: list[IP] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not public(ip) and not allow.permits(host, ip):
            raise Unsafe("webhook_host_not_public")
        if ip not in ips:
            ips.append(ip)
    if not ips:
        raise Unsafe("webhook_host_unresolved")
    return ips


async def post(url: str, body: bytes, headers: dict[str, str], timeout: float, allow: Allow) -> int:
    """POST `body` to `url`; answers the HTTP status. Raises Unsafe, TimeoutError, OSError."""
    parts = check_url(url)
    async with asyncio.timeout(timeout):
        ips = await vetted(parts, allow)
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        context = ssl.create_default_context() if https else None
        last: OSError | None = None
        for ip in ips:
            try:
                reader, writer = await asyncio.open_connection(
                    str(ip), port, ssl=context, server_hostname=parts.hostname if https else None
                )
            except OSError as e:
                last = e
                continue
            try:
                return await _exchange(reader, writer, parts, body, headers)
            finally:
                writer.close()
                with contextlib.suppress(OSError, ssl.SSLError):
                    await writer.wait_closed()
        raise ConnectionError("the webhook host refused the connection") from last


async def _exchange(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    parts: SplitResult,
    body: bytes,
    headers: dict[str, str],
) -> int:
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [
        f"POST {target} HTTP/1.1",
        f"Host: {host}",
        "User-Agent: fracas-webhook/1",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body)
    await writer.drain()
    status = await reader.readline()
    match = re.match(rb"HTTP/1\.[01] (\d{3})", status)
    if match is None:
        raise ConnectionError("the webhook host did not answer HTTP")
    return int(match.group(1))
