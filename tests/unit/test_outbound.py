"""Which webhook URLs the server may call, and the signature receivers check (no I/O)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

import pytest

from server.webhooks.delivery import signature
from server.webhooks.outbound import Allow, Unsafe, check_url, embedded, public


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.5",
        "172.16.3.4",
        "192.168.1.1",
        "169.254.169.254",
        "::1",
        "fe80::1",
        "fc00::1",
        "0.0.0.0",
        "100.64.0.1",
        "::ffff:127.0.0.1",
        "224.0.0.1",
    ],
)
def test_loopback_private_link_local_and_the_like_are_not_public(address: str) -> None:
    assert not public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700::1111", "1.1.1.1"])
def test_global_unicast_addresses_are_public(address: str) -> None:
    assert public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address",
    [
        "::127.0.0.1",  # IPv4-compatible
        "::ffff:0:7f00:1",  # IPv4-translated (SIIT)
        "64:ff9b::7f00:1",  # NAT64, well-known prefix
        "64:ff9b::a00:5",  # NAT64 to 10.0.0.5
        "64:ff9b:1::a9fe:a9fe",  # NAT64 local-use prefix to 169.254.169.254
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "2002:c0a8:101::1",  # 6to4 of 192.168.1.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1
        "::ffff:10.0.0.5",  # IPv4-mapped
        "::a9fe:a9fe",  # compatible, the cloud metadata address
    ],
)
def test_ipv6_forms_that_wrap_an_internal_ipv4_address_are_not_public(address: str) -> None:
    assert not public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("address", "wrapped"),
    [
        ("::127.0.0.1", ["127.0.0.1"]),
        ("::ffff:0:7f00:1", ["127.0.0.1"]),
        ("64:ff9b::7f00:1", ["127.0.0.1"]),
        ("64:ff9b:1::808:808", ["8.8.8.8"]),
        ("2002:7f00:1::1", ["127.0.0.1"]),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", ["65.54.227.120", "127.0.0.1"]),
    ],
)
def test_the_embedded_ipv4_of_each_wrapping_form_is_found(address: str, wrapped: list[str]) -> None:
    ip = ipaddress.ip_address(address)
    assert isinstance(ip, ipaddress.IPv6Address)
    assert [str(a) for a in embedded(ip)] == wrapped


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"])
def test_a_wrapping_form_of_a_public_ipv4_address_stays_public(address: str) -> None:
    assert public(ipaddress.ip_address(address))


def test_the_operator_allows_hosts_and_cidrs() -> None:
    allow = Allow.parse(" 127.0.0.1, hooks.LAN ,10.0.0.0/8,")
    assert allow.permits("anything", ipaddress.ip_address("127.0.0.1"))
    assert allow.permits("hooks.lan.", ipaddress.ip_address("192.168.9.9"))
    assert allow.permits("x", ipaddress.ip_address("10.200.1.1"))
    assert not allow.permits("x", ipaddress.ip_address("192.168.9.9"))
    assert not Allow.parse(None).permits("localhost", ipaddress.ip_address("127.0.0.1"))


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/",
        "file:///etc/passwd",
        "http:///nohost",
        "http://a b/",
        "http://example.org/\r\nX-Evil: 1",
        "http://example.org:99999/",
        "javascript:alert(1)",
    ],
)
def test_urls_other_than_plain_http_or_https_are_refused(url: str) -> None:
    with pytest.raises(Unsafe):
        check_url(url)


def test_the_signature_is_the_hex_hmac_sha256_of_the_body() -> None:
    body = b'{"kind":"turn_started"}'
    expected = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signature("s3cret", body) == f"sha256={expected}"
