"""HTTP/1.1 over a plain socket, for requests no client library will send.

``requests`` and ``http.client`` refuse or rewrite what these tests need to
send byte for byte: request lines of any length, header bytes outside
ASCII, hundreds of headers, broken chunked framing. ``exchange`` writes the
bytes as given and reads one answer: its status, headers and body (by
Content-Length, chunked, or until the server closes).
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass
class RawReply:
    status: int
    reason: str
    headers: dict[str, str]  # names lower-cased; a repeated name keeps the last value
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"<RawReply {self.status} {self.content_type} {self.body[:400]!r}>"


class NoAnswer(Exception):
    """The server closed the connection without a complete answer."""


def request_bytes(
    method: str,
    target: str | bytes,
    headers: Iterable[tuple[str | bytes, str | bytes]] = (),
    body: bytes = b"",
    *,
    chunks: Iterable[bytes] | None = None,
) -> bytes:
    """One request: a Host header, ``Connection: close``, then ``headers`` as given.

    With ``chunks`` the body is sent chunked (``Transfer-Encoding: chunked``
    is added); each chunk is framed correctly. To send broken framing, pass
    a Transfer-Encoding (or Content-Length) header and the raw bytes in
    ``body``: no Content-Length is added then.
    """
    headers = [(_b(name), _b(value)) for name, value in headers]
    lines = [_b(method) + b" " + _b(target) + b" HTTP/1.1", b"Host: 127.0.0.1"]
    lines += [name + b": " + value for name, value in headers]
    framed = {name.lower() for name, _ in headers} & {b"content-length", b"transfer-encoding"}
    if chunks is not None:
        lines.append(b"Transfer-Encoding: chunked")
        body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks if c) + b"0\r\n\r\n"
    elif body and not framed:
        lines.append(b"Content-Length: %d" % len(body))
    lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def exchange(port: int, data: bytes, *, timeout: float = 20, head_only: bool = False) -> RawReply:
    """Send ``data`` to 127.0.0.1:``port`` and read the answer.

    ``head_only`` reads a body only when Content-Length bounds it, else stops
    after the headers (and whatever bytes came with them): for event
    streams, which do not end.
    """
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        # The server may answer and close before it read everything.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(data)
        # Half-close: a truncated body then ends here instead of at a server timeout.
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
        reader = _Reader(sock)
        head = reader.until(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        _version, status, *reason = status_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = reader.exactly(int(headers["content-length"]))
        elif head_only:
            body = reader.buffer
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = reader.chunked()
        else:
            body = reader.rest()
        return RawReply(int(status), reason[0] if reason else "", headers, body)


class _Reader:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buffer = b""

    def _more(self) -> bool:
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        self.buffer += data
        return bool(data)

    def until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            if not self._more():
                raise NoAnswer(f"closed after {self.buffer[:200]!r}")
        found, _, self.buffer = self.buffer.partition(marker)
        return found

    def exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self._more():
                raise NoAnswer(f"closed {size - len(self.buffer)} bytes short")
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def chunked(self) -> bytes:
        body = b""
        while True:
            size = int(self.until(b"\r\n").split(b";")[0], 16)
            if size == 0:
                return body
            body += self.exactly(size)
            self.exactly(2)

    def rest(self) -> bytes:
        while self._more():
            pass
        return self.buffer


def _b(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("latin-1")
