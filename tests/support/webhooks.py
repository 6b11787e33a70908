"""An endpoint that receives webhook deliveries on 127.0.0.1, and the guard that keeps
every webhook test on the loopback interface.

The receiver is ``http.server`` on a thread, on port 0: it records every
request (method, path, headers, body) and answers by path:

- ``/hook``: 200 and ``thanks``;
- ``/redirect``: 302 to ``/elsewhere`` on the same receiver;
- ``/huge``: 200 and a body of ``HUGE_BYTES`` bytes;
- ``/trickle``: 200, then one byte of its body every 0.05 s, until the receiver stops;
- ``/silent``: reads the request and never answers, until the receiver stops.

Given a certificate chain and key, it speaks HTTPS.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import ssl
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The size of ``/huge``'s answer: far beyond any answer a delivery keeps.
HUGE_BYTES = 4 * 1024 * 1024
LOOPBACK_V4 = ipaddress.IPv4Network("127.0.0.0/8")
LOOPBACK_V6 = ipaddress.IPv6Address("::1")


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A webhook endpoint on 127.0.0.1; a context manager that stops it on exit."""

    def __init__(self, certificate: Path | None = None, key: Path | None = None) -> None:
        self.received: list[Received] = []
        self._stopping = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                receiver.received.append(Received("POST", self.path, headers, body))
                if self.path == "/silent":
                    receiver._stopping.wait(30)
                    return
                if self.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", f"{receiver.base}/elsewhere")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path == "/trickle":
                    self.send_response(200)
                    self.send_header("Content-Length", str(HUGE_BYTES))
                    self.end_headers()
                    while not receiver._stopping.wait(0.05):
                        try:
                            self.wfile.write(b"y")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                answer = b"x" * HUGE_BYTES if self.path == "/huge" else b"thanks"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the delivery stopped reading at its cap
                    self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        scheme = "http"
        if certificate is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.base = f"{scheme}://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A certificate for ``name`` signed by itself, and its key, made by ``openssl``."""
    certificate, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return certificate, key


def resolving(answers: dict[str, list[str]]) -> Any:
    """A ``resolve`` for ``post`` that answers ``answers[name]``, touching no DNS; an unknown
    name fails as getaddrinfo fails."""

    def resolve(host: str, port: int, *args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        found = []
        for address in answers[host]:
            if ":" in address:
                found.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)))
            else:
                found.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)))
        return found

    return resolve


def loopback_only(sockaddr: Any) -> None:
    """Raise unless ``sockaddr`` is on 127.0.0.0/8 or ::1: a webhook test sends nothing else."""
    host = sockaddr[0] if isinstance(sockaddr, tuple) else sockaddr
    try:
        address = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError as error:
        raise AssertionError(f"a webhook test connected to a name: {sockaddr!r}") from error
    if not (
        (address.version == 4 and address in LOOPBACK_V4)
        or (address.version == 6 and address == LOOPBACK_V6)
    ):
        raise AssertionError(f"a webhook test tried to reach {sockaddr!r}")
