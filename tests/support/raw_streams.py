"""Many SSE streams held on raw sockets, read together by one epoll loop.

A thread per stream would not scale to the thousand-odd streams a test needs
to push a server process's descriptors past 1024; one ``selectors`` loop
reads them all. Each stream keeps every byte it received, so a stream that
ended says how (its whole answer), and ``ended`` sees gunicorn's terminating
chunk or the connection closing.
"""

from __future__ import annotations

import selectors
import socket
from dataclasses import dataclass, field

#: What a chunked answer's last chunk looks like: the server ended the stream.
LAST_CHUNK = b"\r\n0\r\n\r\n"


@dataclass(eq=False)
class RawStream:
    """One SSE request on its own socket, from its own loopback address."""

    game_id: str
    sock: socket.socket
    received: bytearray = field(default_factory=bytearray)
    closed: bool = False

    @property
    def ended(self) -> bool:
        """The server ended the answer (its last chunk) or closed the connection."""
        return self.closed or self.received.endswith(LAST_CHUNK)

    @property
    def answered(self) -> bool:
        return b"\r\n\r\n" in self.received

    @property
    def status(self) -> int | None:
        if not self.received.startswith(b"HTTP/1.1 "):
            return None
        return int(self.received[9:12])

    def saw(self, text: bytes) -> bool:
        """Whether the stream's body (not its head) carried ``text``."""
        return text in self.received.partition(b"\r\n\r\n")[2]

    def body(self) -> str:
        """What the stream carried after its head, chunk sizes and all, for messages."""
        return bytes(self.received.partition(b"\r\n\r\n")[2]).decode(errors="replace")


class RawStreams:
    """SSE streams on raw sockets, each from a loopback source address, read by one loop."""

    def __init__(self, port: int):
        self.port = port
        self.streams: list[RawStream] = []
        self._selector = selectors.DefaultSelector()  # epoll: no limit at 1024 descriptors

    def open(self, game_id: str, source: str, last_event_id: int) -> RawStream:
        """``GET /v1/games/<id>/stream`` from ``source`` (127.0.0.x) with Last-Event-ID."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", self.port))
        sock.sendall(
            f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Last-Event-ID: {last_event_id}\r\n\r\n".encode()
        )
        sock.setblocking(False)
        stream = RawStream(game_id, sock)
        self._selector.register(sock, selectors.EVENT_READ, stream)
        self.streams.append(stream)
        return stream

    def pump(self, seconds: float = 0.05) -> None:
        """Read what has arrived on any stream (waiting at most ``seconds`` for something)."""
        for key, _ in self._selector.select(seconds):
            stream: RawStream = key.data
            try:
                data = stream.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                stream.received += data
            else:
                stream.closed = True
                self._selector.unregister(stream.sock)

    def close(self) -> None:
        for stream in self.streams:
            stream.sock.close()
        self._selector.close()
