"""An answer's head and its first body bytes leave the server in one send.

On loopback every send is a packet the kernel carries to the reader there and
then, so an answer written in two sends (gunicorn writes the head alone, then
the body) costs the server a second packet: for a long-poll delivery that is
about a third of its CPU (benchmarks/live.py). These tests drive gunicorn's
own response writer over a real socket pair and count the sends.
"""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

from service.serve.gunicorn_workers import OneWriteResponse


class CountingSocket:
    """A real socket that counts the sends made on it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.sends = sock, 0

    def sendall(self, data: bytes) -> None:
        self.sends += 1
        self.sock.sendall(data)


def _request(method: str = "GET", version: tuple[int, int] = (1, 1)) -> SimpleNamespace:
    return SimpleNamespace(method=method, version=version, should_close=lambda: False)


def _answer(method, status, headers, chunks) -> tuple[int, bytes]:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        counting = CountingSocket(ours)
        response = OneWriteResponse(_request(method), counting, Config())
        response.start_response(status, headers)
        for chunk in chunks:
            response.write(chunk)
        response.close()
        ours.shutdown(socket.SHUT_WR)
        received = b"".join(iter(lambda: theirs.recv(65536), b""))
    return counting.sends, received


def test_an_answer_with_a_length_is_one_send():
    body = b'{"version":3,"events":[]}'
    sends, received = _answer("GET", "200 OK", [("Content-Length", str(len(body)))], [body])
    head, _, rest = received.partition(b"\r\n\r\n")
    assert sends == 1
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Content-Length: 25" in head
    assert rest == body


def test_a_stream_sends_its_head_with_the_first_chunk_then_a_chunk_a_send():
    sends, received = _answer(
        "GET", "200 OK", [("Content-Type", "text/event-stream")], [b"retry: 1000\n\n", b"x"]
    )
    head, _, rest = received.partition(b"\r\n\r\n")
    assert sends == 3  # head + first chunk, the second chunk, the last (empty) chunk
    assert b"Transfer-Encoding: chunked" in head
    assert rest == b"D\r\nretry: 1000\n\n\r\n1\r\nx\r\n0\r\n\r\n"


@pytest.mark.parametrize(("method", "status"), [("HEAD", "200 OK"), ("GET", "204 No Content")])
def test_an_answer_without_a_body_still_sends_its_head_once(method, status):
    sends, received = _answer(method, status, [("Content-Length", "5")], [b"hello"])
    assert sends == 1
    assert received.startswith(f"HTTP/1.1 {status}\r\n".encode())
    assert received.endswith(b"\r\n\r\n")


def test_the_date_header_is_gunicorns_to_the_second():
    import email.utils
    import time

    from service.serve.gunicorn_workers import SecondsHttpDate

    http_date = SecondsHttpDate()
    before = int(time.time())
    text = http_date()
    after = int(time.time())
    assert text in {email.utils.formatdate(t, usegmt=True) for t in range(before, after + 1)}
    assert http_date() is text or int(time.time()) != before  # formatted once a second
    assert http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT"
