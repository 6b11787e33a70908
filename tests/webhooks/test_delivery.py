"""A delivery over a real socket to a receiver on 127.0.0.1, and the deliveries refused
before a byte is sent."""

from __future__ import annotations

import json
import ssl
import threading
import time

import pytest
from standardwebhooks import Webhook

from service.jobs.outbound import (
    Delivered,
    InvalidWebhookUrl,
    RefusedAddress,
    parse_allowances,
    post,
)
from service.jobs.webhook_signing import new_secret, signed_headers
from tests.support.webhooks import Receiver, resolving, self_signed

LOOPBACK = parse_allowances("127.0.0.1/32")
BODY = b'{"type":"your_turn","game":"g1","seat":0}'
SECRET = new_secret()


@pytest.fixture
def receiver():
    with Receiver() as running:
        yield running


def test_a_delivery_reaches_an_allowed_receiver_with_its_body_and_headers(receiver):
    signed = signed_headers([SECRET], "evt_0a1b", int(time.time()), BODY)
    delivered = post(
        f"{receiver.base}/hook?app=7",
        BODY,
        {**signed, "Schnapsen-Event": "your_turn"},
        allowances=LOOPBACK,
    )
    assert delivered.status == 200
    assert delivered.error is None
    assert delivered.latency_ms > 0
    assert delivered.response_excerpt == "thanks"
    [got] = receiver.received
    assert (got.method, got.path, got.body) == ("POST", "/hook?app=7", BODY)
    assert got.headers["host"] == f"127.0.0.1:{receiver.port}"
    assert got.headers["content-type"] == "application/json"
    assert got.headers["schnapsen-event"] == "your_turn"
    assert {name: got.headers[name] for name in signed} == signed
    assert Webhook(SECRET).verify(got.body, got.headers) == json.loads(BODY)


def test_a_name_goes_in_the_host_header_while_the_checked_address_is_connected(receiver):
    resolve = resolving({"hooks.example.com": ["127.0.0.1"]})
    delivered = post(
        f"http://hooks.example.com:{receiver.port}/hook",
        BODY,
        {},
        allowances=LOOPBACK,
        resolve=resolve,
    )
    assert delivered.status == 200
    assert receiver.received[0].headers["host"] == f"hooks.example.com:{receiver.port}"


def test_loopback_without_an_allowance_is_refused_and_nothing_is_sent(receiver):
    with pytest.raises(RefusedAddress) as refused:
        post(f"{receiver.base}/hook", BODY, {})
    assert refused.value.address == "127.0.0.1"
    assert receiver.received == []


def test_a_name_that_resolves_to_loopback_is_refused_the_same_way(receiver):
    resolve = resolving({"hooks.example.com": ["127.0.0.1"]})
    with pytest.raises(RefusedAddress) as refused:
        post(f"http://hooks.example.com:{receiver.port}/hook", BODY, {}, resolve=resolve)
    assert (refused.value.host, refused.value.address) == ("hooks.example.com", "127.0.0.1")
    assert receiver.received == []


def test_one_refused_address_among_the_answers_refuses_them_all():
    """Were the public one tried first, a second connection could still land on 10.0.0.1."""
    calls = []

    def resolve(host, port, *args, **kwargs):
        calls.append(host)
        return resolving({"hooks.example.com": ["8.8.8.8", "10.0.0.1"]})(host, port)

    with pytest.raises(RefusedAddress) as refused:
        post("https://hooks.example.com/hook", BODY, {}, resolve=resolve)
    assert refused.value.address == "10.0.0.1"
    assert calls == ["hooks.example.com"]


def test_the_metadata_service_behind_a_name_is_refused():
    resolve = resolving({"hooks.example.com": ["169.254.169.254", "fd00:ec2::254"]})
    with pytest.raises(RefusedAddress):
        post("http://hooks.example.com/latest/meta-data/", BODY, {}, resolve=resolve)


def test_the_name_is_resolved_once_per_delivery(receiver):
    """No second lookup for http.client to make: a rebinding name gets one answer only."""
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])
    calls = []

    def rebinding(host, port, *args, **kwargs):
        calls.append(host)
        return resolving({host: next(answers)})(host, port)

    delivered = post(
        f"http://rebinding.example.com:{receiver.port}/hook",
        BODY,
        {},
        allowances=LOOPBACK,
        resolve=rebinding,
    )
    assert delivered.status == 200
    assert calls == ["rebinding.example.com"]


def test_a_redirect_is_a_status_and_is_not_followed(receiver):
    delivered = post(f"{receiver.base}/redirect", BODY, {}, allowances=LOOPBACK)
    assert delivered.status == 302
    assert delivered.error is None
    assert [got.path for got in receiver.received] == ["/redirect"]


def test_a_receiver_that_never_answers_times_out_within_the_bound(receiver):
    delivered = post(f"{receiver.base}/silent", BODY, {}, allowances=LOOPBACK, timeout=0.5)
    assert delivered.status is None
    assert "timed out" in delivered.error
    assert delivered.response_excerpt == ""
    assert [got.path for got in receiver.received] == ["/silent"]


def test_an_answer_trickled_past_the_deadline_is_cut_at_the_deadline(receiver):
    """A byte every 0.05 s never trips a read's own timeout: only the one deadline ends it."""
    delivered = post(f"{receiver.base}/trickle", BODY, {}, allowances=LOOPBACK, timeout=0.5)
    assert delivered.status == 200
    assert set(delivered.response_excerpt) <= {"y"}
    assert len(delivered.response_excerpt) < 500


def test_a_resolver_that_hangs_times_out_within_the_bound():
    released = threading.Event()

    def hanging(host, port, *args, **kwargs):
        released.wait(10)
        return []

    try:
        delivered = post("http://slow.example.com/", BODY, {}, resolve=hanging, timeout=0.3)
    finally:
        released.set()
    assert delivered.status is None
    assert "timed out" in delivered.error


def test_a_huge_answer_is_cut_at_the_cap(receiver):
    delivered = post(f"{receiver.base}/huge", BODY, {}, allowances=LOOPBACK, max_response_bytes=100)
    assert delivered.status == 200
    assert delivered.response_excerpt == "x" * 100
    longer = post(f"{receiver.base}/huge", BODY, {}, allowances=LOOPBACK)
    assert longer.response_excerpt == "x" * 500  # the excerpt's own bound


def test_https_is_verified_for_the_name_while_the_checked_address_is_connected(tmp_path):
    certificate, key = self_signed(tmp_path, "hooks.example.com")
    trusted = ssl.create_default_context(cafile=str(certificate))
    with Receiver(certificate, key) as tls:
        delivered = post(
            f"https://hooks.example.com:{tls.port}/hook",
            BODY,
            {},
            allowances=LOOPBACK,
            resolve=resolving({"hooks.example.com": ["127.0.0.1"]}),
            tls_context=trusted,
        )
        assert delivered.status == 200
        assert tls.received[0].headers["host"] == f"hooks.example.com:{tls.port}"


def test_https_to_a_certificate_of_another_name_is_refused(tmp_path):
    certificate, key = self_signed(tmp_path, "other.example.com")
    trusted = ssl.create_default_context(cafile=str(certificate))
    with Receiver(certificate, key) as tls:
        delivered = post(
            f"https://hooks.example.com:{tls.port}/hook",
            BODY,
            {},
            allowances=LOOPBACK,
            resolve=resolving({"hooks.example.com": ["127.0.0.1"]}),
            tls_context=trusted,
        )
        assert delivered.status is None
        assert delivered.error.startswith("TLS certificate refused")
        assert tls.received == []


def test_a_closed_port_is_an_error_not_an_exception():
    with Receiver() as gone:
        port = gone.port
    delivered = post(f"http://127.0.0.1:{port}/hook", BODY, {}, allowances=LOOPBACK)
    assert delivered == Delivered(None, delivered.latency_ms, "connection refused", "")


def test_an_unknown_name_is_an_error_not_an_exception():
    delivered = post("https://nowhere.example.com/", BODY, {}, resolve=resolving({}))
    assert delivered.status is None
    assert "could not resolve nowhere.example.com" in delivered.error


def test_a_url_of_the_wrong_form_is_refused_before_anything_is_resolved():
    with pytest.raises(InvalidWebhookUrl):
        post("https://user@hooks.example.com/", BODY, {}, resolve=resolving({}))


@pytest.mark.parametrize("name", ["Host", "content-length", "Transfer-Encoding", "Connection"])
def test_headers_the_delivery_writes_itself_are_not_taken_from_the_caller(name):
    with pytest.raises(ValueError, match=name):
        post("https://hooks.example.com/", BODY, {name: "x"}, resolve=resolving({}))
