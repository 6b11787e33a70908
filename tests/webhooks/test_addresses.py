"""Which addresses a delivery may reach, judged without connecting anywhere."""

from __future__ import annotations

import ipaddress

import pytest

from service.jobs.outbound import address_allowed, parse_allowances
from tests.support.webhooks import loopback_only

REFUSED = {
    "10.0.0.1": "private (RFC 1918)",
    "172.16.5.4": "private (RFC 1918)",
    "192.168.1.1": "private (RFC 1918)",
    "100.64.0.1": "carrier-grade NAT",
    "127.0.0.1": "loopback",
    "169.254.169.254": "link-local: the cloud metadata service",
    "0.0.0.0": "unspecified",
    "224.0.0.1": "multicast",
    "255.255.255.255": "broadcast",
    "192.0.2.1": "documentation",
    "240.0.0.1": "reserved",
    "::1": "loopback",
    "::": "unspecified",
    "fe80::1": "link-local",
    "fe80::1%eth0": "link-local, with a zone",
    "fd00::1": "unique local",
    "fd00:ec2::254": "a cloud metadata service",
    "ff02::1": "multicast",
    "::ffff:10.0.0.1": "IPv4-mapped private",
    "::ffff:127.0.0.1": "IPv4-mapped loopback",
    "::a00:1": "IPv4-compatible private",
    "64:ff9b::a00:1": "NAT64 of a private address",
    "64:ff9b::7f00:1": "NAT64 of loopback",
    "2002:a00:1::1": "6to4 of a private address",
    "2002:a9fe:a9fe::1": "6to4 of the metadata service",
    "2001::1": "Teredo",
    "2001:db8::1": "documentation",
    "100::1": "discard-only",
    "4000::1": "outside global unicast",
    "localhost": "a name, not an address",
    "not an address": "nothing",
}
ALLOWED = ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]


@pytest.mark.parametrize("address", list(REFUSED), ids=[f"{a} {w}" for a, w in REFUSED.items()])
def test_an_address_that_is_no_public_host_is_refused(address):
    assert address_allowed(address) is False


@pytest.mark.parametrize("address", ALLOWED)
def test_a_public_unicast_address_is_allowed(address):
    assert address_allowed(address) is True


def test_allowances_let_their_own_network_through_and_nothing_beside_it():
    allowances = parse_allowances("127.0.0.1/32")
    assert address_allowed("127.0.0.1", allowances)
    assert not address_allowed("127.0.0.2", allowances)
    assert not address_allowed("10.0.0.1", allowances)
    assert not address_allowed("::1", allowances)
    assert address_allowed("::1", parse_allowances("127.0.0.1/32, ::1"))


def test_an_allowance_covers_the_ipv4_an_ipv6_address_carries():
    assert address_allowed("::ffff:127.0.0.1", parse_allowances("127.0.0.1/32"))


def test_allowances_are_read_from_a_comma_separated_list():
    assert parse_allowances("") == ()
    assert parse_allowances("  ") == ()
    assert parse_allowances("127.0.0.1/32,::1") == (
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("::1/128"),
    )
    assert parse_allowances("10.1.0.0/16") == (ipaddress.ip_network("10.1.0.0/16"),)


@pytest.mark.parametrize("text", ["127.0.0.1/33", "localhost", "10.0.0.1/8", "127.0.0.1,,::1", ","])
def test_an_invalid_allowance_is_a_value_error(text):
    with pytest.raises(ValueError):
        parse_allowances(text)


@pytest.mark.parametrize(
    "sockaddr", [("8.8.8.8", 443), ("10.0.0.1", 80), ("::2", 80, 0, 0), ("example.com", 80)]
)
def test_the_tests_own_guard_refuses_anything_but_loopback(sockaddr):
    with pytest.raises(AssertionError):
        loopback_only(sockaddr)
    loopback_only(("127.0.0.2", 80))
    loopback_only(("::1", 80, 0, 0))
