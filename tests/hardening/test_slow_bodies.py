"""Slow request bodies and many connections from one address, against a live gunicorn.

A client that sends a request's head and then stalls its body (or trickles it
a byte at a time) must not hold a server process's connection for long: the
whole body arrives within ``SCHNAPSEN_BODY_TIMEOUT_SECONDS`` of the head, or
the answer is 408 ``body_timeout`` and the connection closes. A request for an
unknown path or method is refused before its body is read. And one address
holds at most ``SCHNAPSEN_CONNECTIONS_PER_ADDRESS`` connections to one server
process, so it cannot take every connection of a one-process server while
others wait for /healthz.

Raw sockets, because a client library sends the whole body at once.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from tests.support.http import session_from
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Far above any answer the service should need; only bounds a hang.
HANG = 10
#: The quick server's body deadline, in seconds.
QUICK_DEADLINE = 1
#: The patient server's body deadline: far past HANG, so an answer within HANG did
#: not wait for the deadline.
PATIENT_DEADLINE = 60
#: The patient server's connections per address, and per process.
CAP = 8
CONNECTIONS = 50
PROBLEM_JSON = "application/problem+json"


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def problem(self) -> dict:
        assert self.headers.get("content-type") == PROBLEM_JSON, self
        return json.loads(self.body)


def stalled(port: int, head: bytes, sent: bytes = b"", source: str = "127.0.0.1") -> socket.socket:
    """A connection from ``source`` that sent a request's ``head`` and ``sent`` of its
    body, and then nothing: it stays open, the body unfinished."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(HANG)
    sock.connect(("127.0.0.1", port))
    with contextlib.suppress(ConnectionResetError, BrokenPipeError):
        sock.sendall(head + sent)
    return sock


def post_head(target: str, framing: str = "Content-Length: 64") -> bytes:
    return (
        f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\n{framing}\r\n\r\n"
    ).encode()


def answer_on(sock: socket.socket) -> Answer:
    """The answer on ``sock``, read within the socket's timeout (a hang fails)."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = _recv(sock)
        assert more, f"closed without an answer after {data!r}"
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers["content-length"])
    while len(body) < length:
        more = _recv(sock)
        assert more, "closed in the answer's body"
        body += more
    return Answer(int(status_line.split(" ")[1]), headers, body)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(65536)
    except TimeoutError:
        raise AssertionError(f"no answer within {HANG} s") from None
    except ConnectionResetError:
        return b""


def games_created(url: str) -> float:
    """The games created so far, as the server counts them (read from Redis)."""
    metrics = requests.get(f"{url}/metrics", timeout=HANG).text
    return float(re.search(r"^schnapsen_games_created_total (\S+)$", metrics, re.M).group(1))


def closed_after(sock: socket.socket) -> bool:
    """Whether the server closed the connection after its answer."""
    return _recv(sock) == b""


@pytest.fixture(scope="module")
def quick(redis_url: str) -> Iterator[LiveServer]:
    """One process whose body deadline is short."""
    server = LiveServer(
        redis_url, workers=1, env={"SCHNAPSEN_BODY_TIMEOUT_SECONDS": str(QUICK_DEADLINE)}
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def patient(redis_url: str) -> Iterator[LiveServer]:
    """One process of a few connections, a long body deadline and a small cap per address."""
    server = LiveServer(
        redis_url,
        workers=1,
        connections=CONNECTIONS,
        env={
            "SCHNAPSEN_BODY_TIMEOUT_SECONDS": str(PATIENT_DEADLINE),
            "SCHNAPSEN_CONNECTIONS_PER_ADDRESS": str(CAP),
        },
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("framing", "sent"),
    [
        ("Content-Length: 64", b'{"bot": '),
        ("Transfer-Encoding: chunked", b'40\r\n{"bot": '),
    ],
    ids=["content-length", "chunked"],
)
def test_a_body_that_stalls_past_the_deadline_gets_408_and_the_connection_closes(
    quick, framing, sent
):
    created_before = games_created(quick.url)
    with stalled(quick.port, post_head("/v1/games", framing), sent) as sock:
        answer = answer_on(sock)
        assert answer.status == 408, answer
        refused = answer.problem()
        assert refused["code"] == "body_timeout" and refused["status"] == 408
        assert answer.headers.get("connection") == "close"
        assert closed_after(sock)
    assert games_created(quick.url) == created_before  # nothing was done


def test_a_body_trickled_a_byte_at_a_time_still_meets_the_deadline(quick):
    """The deadline is for the whole body, not for each read: a byte every fifth of a
    second never lets a single read wait long, and still ends in 408."""
    body = b'{"bot": "random"}' + b" " * 40
    head = post_head("/v1/games", f"Content-Length: {len(body)}")
    with stalled(quick.port, head) as sock:
        for byte in body:
            readable, _, _ = select.select([sock], [], [], 0.2)
            if readable:
                break
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                sock.sendall(bytes([byte]))
        else:
            raise AssertionError("the whole trickled body was taken")
        answer = answer_on(sock)
        assert answer.status == 408 and answer.problem()["code"] == "body_timeout", answer


def test_a_body_in_time_is_served_as_before(quick):
    """The deadline spares a body that arrives: a game is created."""
    created_before = games_created(quick.url)
    with stalled(quick.port, post_head("/v1/games", "Content-Length: 2"), b"{}") as sock:
        answer = answer_on(sock)
    assert answer.status == 201, answer
    assert games_created(quick.url) == created_before + 1  # the count sees a game


@pytest.mark.parametrize(
    ("head", "status", "code"),
    [
        (post_head("/v1/no-such-place"), 404, "not_found"),
        (post_head("/healthz"), 405, "method_not_allowed"),
        (post_head("/v1/games/0123456789abcdef").replace(b"POST", b"PUT", 1), 405,
         "method_not_allowed"),
    ],
    ids=["unknown-path", "unknown-method", "put-on-a-game"],
)  # fmt: skip
def test_an_unknown_path_or_method_is_refused_before_its_body_arrives(patient, head, status, code):
    with stalled(patient.port, head, b'{"bot": ') as sock:
        answer = answer_on(sock)  # within HANG: far before the patient deadline
    assert answer.status == status, answer
    assert answer.problem()["code"] == code


def test_one_address_past_its_cap_is_refused_and_others_are_still_served(patient):
    """More stalled bodies from one address than the process has connections: past the
    cap they are refused with 429, and /healthz answers another address."""
    count = CONNECTIONS + 20
    sockets = [
        stalled(patient.port, post_head("/v1/games"), b'{"bot": ', source="127.0.0.2")
        for _ in range(count)
    ]
    try:
        other = session_from("127.0.0.3")
        assert other.get(f"{patient.url}/healthz", timeout=HANG).status_code == 200
        # Those past the cap are answered (the others wait for their bodies).
        answers: dict[socket.socket, Answer] = {}
        deadline = time.monotonic() + HANG
        while len(answers) < count - CAP and time.monotonic() < deadline:
            waiting = [sock for sock in sockets if sock not in answers]
            readable, _, _ = select.select(waiting, [], [], 0.5)
            for sock in readable:
                answers[sock] = answer_on(sock)
        assert len(answers) == count - CAP, f"{len(answers)} of {count} were answered"
        for answer in answers.values():
            assert answer.status == 429, answer
            assert answer.problem()["code"] == "too_many_connections"
            assert int(answer.headers["retry-after"]) >= 1
    finally:
        for sock in sockets:
            sock.close()
    # The address's connections closed: it is served again.
    again = session_from("127.0.0.2")
    wait_until(lambda: _healthz(again, patient.url) == 200, HANG, "127.0.0.2 to be served again")


def _healthz(session: requests.Session, url: str) -> int | None:
    try:
        return session.get(f"{url}/healthz", timeout=HANG).status_code
    except requests.RequestException:
        return None


def test_behind_a_proxy_the_cap_is_the_proxys(redis_url):
    """With SCHNAPSEN_PROXY_HOPS every peer is a proxy carrying many clients: the server
    holds past the cap what the proxy sends (the proxy caps each client, deploy/lb.conf)."""
    server = LiveServer(
        redis_url,
        workers=1,
        env={"SCHNAPSEN_PROXY_HOPS": "1", "SCHNAPSEN_CONNECTIONS_PER_ADDRESS": str(CAP)},
    )
    proxy = "127.0.0.4"
    sockets = [
        stalled(server.port, post_head("/v1/games"), b'{"bot": ', source=proxy)
        for _ in range(CAP + 4)
    ]
    try:
        answer = session_from(proxy).get(f"{server.url}/healthz", timeout=HANG)
        assert answer.status_code == 200, answer.text
    finally:
        for sock in sockets:
            sock.close()
        server.stop()
