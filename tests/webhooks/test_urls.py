"""The form of an endpoint's URL: what registration may store, before any address is known."""

from __future__ import annotations

import pytest

from service.jobs.outbound import InvalidWebhookUrl, Target, check_url


def test_a_url_is_read_into_its_scheme_host_port_and_path():
    assert check_url("https://Hooks.Example.com/schnapsen?app=1") == Target(
        "https", "hooks.example.com", 443, "/schnapsen?app=1"
    )
    assert check_url("http://hooks.example.com:8080") == Target(
        "http", "hooks.example.com", 8080, "/"
    )
    assert check_url("https://[2606:4700::1111]:8443/x") == Target(
        "https", "2606:4700::1111", 8443, "/x"
    )


def test_an_address_literal_is_only_a_form_here():
    """Whether 10.0.0.1 may be reached is asked when a delivery is sent, not here."""
    assert check_url("http://10.0.0.1/hook").host == "10.0.0.1"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://hooks.example.com/",
        "file:///etc/passwd",
        "gopher://hooks.example.com/",
        "hooks.example.com/hook",
        "https:///hook",
        "https://user:pass@hooks.example.com/",
        "https://user@hooks.example.com/",
        "https://hooks.example.com/#fragment",
        "https://hooks.example.com/#",
        "https://hooks.example.com:0/",
        "https://hooks.example.com:65536/",
        "https://hooks.example.com:http/",
        "https://hooks.example.com/" + "a" * 2048,
        "https://hooks.example.com/a b",
        "https://hooks.example.com/\r\nX-Injected: 1",
        "https://hööks.example.com/",
        "https://hooks_example..com/",
        "https://[fe80::1%25eth0]/",
        "https://[not-an-address]/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://127.1/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://127.0.0.0x1/",
        "",
    ],
)
def test_a_url_of_the_wrong_form_is_refused(url):
    with pytest.raises(InvalidWebhookUrl):
        check_url(url)


def test_the_longest_url_is_2048_characters():
    base = "https://hooks.example.com/"
    assert check_url(base + "a" * (2048 - len(base))).path_and_query.startswith("/a")
    with pytest.raises(InvalidWebhookUrl):
        check_url(base + "a" * (2049 - len(base)))


def test_an_invalid_url_is_a_value_error_to_callers_that_know_no_more():
    assert issubclass(InvalidWebhookUrl, ValueError)
