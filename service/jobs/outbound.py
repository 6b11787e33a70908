"""One webhook delivery: an HTTP POST to a client app's endpoint, and only to the public internet.

An endpoint's URL is chosen by whoever registers it, so a POST to it must
never reach what only the service can reach: Redis, PostgreSQL, the cloud's
metadata service, an admin port on the worker's own host. The rules:

- ``check_url`` judges the URL's form only (scheme, host, port, length): what
  a name resolves to changes, so judging it at registration proves nothing;
- ``post`` resolves the name when it sends, refuses the delivery if any
  address it resolves to is not public (``address_allowed``), and connects to
  a checked address itself: http.client never resolves the name a second
  time, so a name that answers a public address to the check and a private
  one to the connection (DNS rebinding) gets nowhere;
- the name still goes in ``Host:`` and, over TLS, in SNI and the certificate's
  check, so the endpoint sees an ordinary request for its name;
- redirects are never followed (a 302 to ``http://169.254.169.254/`` would
  undo all of the above): a 3xx is the delivery's status like any other;
- the whole exchange has one deadline and the answer a size cap, so a slow or
  chatty endpoint cannot hold a worker.

Tests and local set-ups deliver to 127.0.0.1: ``allowances`` lets chosen
networks through, nothing else does.

Standard library only, no I/O at import: the worker job and the registration
both import it.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ``socket.getaddrinfo``'s shape: called as ``resolve(host, port, type=SOCK_STREAM)``.
Resolver = Callable[..., Sequence[tuple[Any, ...]]]

#: The longest URL an endpoint may have.
MAX_URL_CHARS = 2048
#: How much of an answer a delivery keeps, for the endpoint's owner to read.
EXCERPT_CHARS = 500
#: Headers ``post`` writes itself: a caller's copy would be sent twice or contradict the body.
RESERVED_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})
USER_AGENT = "schnapsen-webhooks/1"

#: IPv4 networks that are no public host (IANA's special-purpose registry).
REFUSED_V4: tuple[ipaddress.IPv4Network, ...] = tuple(
    ipaddress.IPv4Network(network)
    for network in (
        "0.0.0.0/8",  # "this network", 0.0.0.0 the unspecified address
        "10.0.0.0/8",  # private (RFC 1918)
        "100.64.0.0/10",  # carrier-grade NAT, shared address space
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local, the cloud metadata service 169.254.169.254
        "172.16.0.0/12",  # private (RFC 1918)
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation (TEST-NET-1)
        "192.88.99.0/24",  # 6to4 relay anycast, deprecated
        "192.168.0.0/16",  # private (RFC 1918)
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation (TEST-NET-2)
        "203.0.113.0/24",  # documentation (TEST-NET-3)
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved
        "255.255.255.255/32",  # limited broadcast
    )
)
#: Where public IPv6 unicast addresses are allocated; everything else is reserved.
GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
#: IPv6 networks that are no public host, beyond what is outside ``GLOBAL_UNICAST_V6``.
REFUSED_V6: tuple[ipaddress.IPv6Network, ...] = tuple(
    ipaddress.IPv6Network(network)
    for network in (
        "::/128",  # unspecified
        "::1/128",  # loopback
        "64:ff9b:1::/48",  # NAT64 for local use (RFC 8215)
        "100::/64",  # discard-only
        "2001::/23",  # IETF protocol assignments, Teredo (2001::/32) among them
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # segment routing (SRv6) identifiers
        "fc00::/7",  # unique local, fd00:ec2::254 (a cloud metadata service) among them
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local, deprecated
        "ff00::/8",  # multicast
        "fd00:ec2::254/128",  # the metadata service again, named in case fc00::/7 ever moves
    )
)
#: IPv6 networks whose last 32 bits are an IPv4 address the packets reach.
IPV4_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
#: 6to4: the IPv4 address is bits 16 to 48.
SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")

#: One DNS label: letters, digits and inner hyphens (an international name in its
#: ``xn--`` form), at most 63 characters.
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
#: A label a resolver reads as a number: decimal or octal digits, or hex after ``0x``
#: (``0x`` alone is 0). A host ending in one is an IPv4 address, not a name.
_NUMBER = re.compile(r"[0-9]+|0x[0-9a-f]*")


class InvalidWebhookUrl(ValueError):
    """An endpoint URL that no delivery will be sent to, whatever it resolves to."""


class RefusedAddress(Exception):
    """The endpoint's name resolved to an address a delivery may not reach; nothing was sent."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to {address}, which is not a public address")
        self.host = host
        self.address = address


@dataclass(frozen=True)
class Target:
    """Where a delivery goes, as ``check_url`` read it: ``host`` without brackets or port."""

    scheme: str
    host: str
    port: int
    path_and_query: str

    @property
    def default_port(self) -> int:
        return 443 if self.scheme == "https" else 80


@dataclass(frozen=True)
class Delivered:
    """How one delivery went: the endpoint's status, or why there was none.

    Exactly one of ``status`` and ``error`` is None. Once a status line came,
    the delivery counts as answered: an answer whose body is cut off by the
    deadline or the size cap keeps its status and the part that was read.
    ``latency_ms`` runs from the name's resolution to the end of the answer.
    """

    status: int | None
    latency_ms: float
    error: str | None
    response_excerpt: str


def check_url(url: str) -> Target:
    """The endpoint ``url`` as a ``Target``, or ``InvalidWebhookUrl`` saying what is wrong.

    Its form only: ``http`` or ``https``, a host, no user or password (they
    would be sent to whoever answers), no fragment (never sent, so surely a
    mistake), printable ASCII (an international name in its ``xn--`` form),
    at most 2048 characters, a port from 1 to 65535. An IP literal is fine
    here; whether it may be reached is ``post``'s question, asked when it
    sends.
    """
    if not isinstance(url, str):
        raise InvalidWebhookUrl("a webhook URL is a string")
    if len(url) > MAX_URL_CHARS:
        raise InvalidWebhookUrl(f"a webhook URL has at most {MAX_URL_CHARS} characters")
    if not url.isascii() or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url):
        raise InvalidWebhookUrl(
            "a webhook URL is printable ASCII without spaces (a name in its xn-- form)"
        )
    if "#" in url:
        raise InvalidWebhookUrl("a webhook URL has no fragment")
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as error:  # an unreadable bracketed host
        raise InvalidWebhookUrl("a webhook URL's bracketed host is an IPv6 address") from error
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidWebhookUrl("a webhook URL is http or https")
    if "@" in parts.netloc:
        raise InvalidWebhookUrl("a webhook URL has no user name or password")
    host = parts.hostname or ""
    if not host:
        raise InvalidWebhookUrl("a webhook URL names a host")
    _check_host(host, bracketed=parts.netloc.startswith("["))
    try:
        port = parts.port
    except ValueError as error:
        raise InvalidWebhookUrl("a webhook URL's port is a number from 1 to 65535") from error
    if port == 0:
        raise InvalidWebhookUrl("a webhook URL's port is a number from 1 to 65535")
    path = parts.path or "/"
    if not path.startswith("/"):
        raise InvalidWebhookUrl("a webhook URL's path starts with /")
    path_and_query = f"{path}?{parts.query}" if parts.query else path
    return Target(scheme, host, port or (443 if scheme == "https" else 80), path_and_query)


def _check_host(host: str, *, bracketed: bool) -> None:
    """A host is an IPv4 literal, a bracketed IPv6 literal or a DNS name.

    A name whose last label is a number (``_NUMBER``: decimal, octal or hex)
    is refused: no top-level domain is, and resolvers and browsers read
    ``2130706433``, ``0x7f000001``, ``0x7f.1`` or ``0177.0.0.1`` as IPv4
    addresses (inet_aton's forms; the WHATWG URL standard's "ends in a
    number"), whose checks ``address_allowed`` would never see at
    registration.
    """
    if bracketed:
        try:
            if "%" in host:  # a zone names an interface of the sender's host: never public
                raise ValueError(host)
            ipaddress.IPv6Address(host)
        except ValueError as error:
            raise InvalidWebhookUrl(
                "a webhook URL's bracketed host is an IPv6 address (no zone)"
            ) from error
        return
    try:
        ipaddress.IPv4Address(host)
        return
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidWebhookUrl("a webhook URL's host is a DNS name or an IP address")
    if _NUMBER.fullmatch(labels[-1]):
        raise InvalidWebhookUrl("a webhook URL's IPv4 address is written as four decimal numbers")


def parse_allowances(text: str) -> tuple[IPNetwork, ...]:
    """The networks a comma-separated list names (``"127.0.0.1/32,::1"``); blank: none.

    An address alone is a network of one; host bits set under a mask
    (``10.0.0.1/8``) are refused as the typo they likely are.
    """
    if not text.strip():
        return ()
    networks = []
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            raise ValueError(f"an empty entry in the allowed networks {text!r}")
        networks.append(ipaddress.ip_network(entry, strict=True))
    return tuple(networks)


def address_allowed(address: str, allowances: Sequence[IPNetwork] = ()) -> bool:
    """Whether a delivery may connect to ``address``: a public unicast address, or one
    inside ``allowances``.

    Pure: no resolution, no connection. An address that carries an IPv4
    address its packets go to (IPv4-mapped, IPv4-compatible, NAT64, 6to4) is
    judged by that IPv4 address; Teredo is refused outright. Anything that is
    not an address (a name, a typo) is False: it is not one we may reach.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if any(ip in network for network in allowances):
        return True
    if isinstance(ip, ipaddress.IPv4Address):
        return not any(ip in network for network in REFUSED_V4) and ip.is_global
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        return address_allowed(str(embedded), allowances)
    return (
        ip in GLOBAL_UNICAST_V6
        and not any(ip in network for network in REFUSED_V6)
        and ip.is_global
    )


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one is a way to reach, if it is one."""
    if ip in (ipaddress.IPv6Address("::"), ipaddress.IPv6Address("::1")):
        return None
    if ip in IPV4_MAPPED or ip in IPV4_COMPATIBLE or ip in NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)
    if ip in SIX_TO_FOUR:
        return ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFF_FFFF)
    return None


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    allowances: Sequence[IPNetwork] = (),
    timeout: float = 5.0,
    max_response_bytes: int = 65536,
    resolve: Resolver = socket.getaddrinfo,
    tls_context: ssl.SSLContext | None = None,
) -> Delivered:
    """POST ``body`` to the endpoint ``url``, to a checked address only, within ``timeout``.

    Raises ``InvalidWebhookUrl`` for a URL of the wrong form and
    ``RefusedAddress`` when any address the name resolves to may not be
    reached (``address_allowed``): nothing is sent then. Every other failure
    (no such name, refused or timed-out connection, TLS, a garbled answer) is
    a ``Delivered`` with its ``error``, since the endpoint's owner, not the
    service, has to fix it. ``tls_context`` replaces the system's trust store
    (a test's own authority); the name is verified either way.
    """
    target = check_url(url)
    for name in headers:
        if name.lower() in RESERVED_HEADERS:
            raise ValueError(f"the {name} header is written by the delivery itself")
    started = time.perf_counter()
    deadline = time.monotonic() + timeout

    def failed(error: str) -> Delivered:
        return Delivered(None, _since(started), error, "")

    try:
        resolved = _resolve_within(resolve, target, deadline)
    except TimeoutError:
        return failed(f"timed out after {timeout:g} s resolving {target.host}")
    except OSError as error:
        return failed(f"could not resolve {target.host}: {_reason(error)}")
    if not resolved:
        return failed(f"{target.host} resolves to no address")
    for _family, _type, _proto, _name, sockaddr in resolved:
        if not address_allowed(str(sockaddr[0]), allowances):
            raise RefusedAddress(target.host, str(sockaddr[0]))

    watchdog = _Watchdog(deadline)
    connection = _PinnedConnection(target, resolved, watchdog, tls_context)
    try:
        with watchdog:
            connection.putrequest("POST", target.path_and_query, skip_accept_encoding=True)
            sent = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
            for name, value in sent.items():
                connection.putheader(name, value)
            connection.putheader("Content-Length", str(len(body)))
            connection.putheader("Connection", "close")
            connection.endheaders(body)
            response = connection.getresponse()
            status = response.status
            answer = b""
            try:
                answer = response.read(max_response_bytes)
            except (OSError, http.client.HTTPException) as error:
                answer = getattr(error, "partial", b"") or b""
    except ssl.SSLCertVerificationError as error:
        return failed(f"TLS certificate refused: {error.verify_message}")
    except ssl.SSLError as error:
        if watchdog.expired:
            return failed(f"timed out after {timeout:g} s")
        return failed(f"TLS failed: {error.reason or error}")
    except (OSError, http.client.HTTPException) as error:
        if watchdog.expired or isinstance(error, TimeoutError):
            return failed(f"timed out after {timeout:g} s")
        return failed(_reason(error))
    finally:
        connection.close()
    excerpt = answer[:max_response_bytes].decode("utf-8", errors="replace")[:EXCERPT_CHARS]
    return Delivered(status, _since(started), None, excerpt)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _reason(error: BaseException) -> str:
    """A short reason for the endpoint's owner: no stack, no internals."""
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, http.client.RemoteDisconnected):
        return "closed the connection without an answer"
    if isinstance(error, http.client.HTTPException):
        return f"not an HTTP answer ({type(error).__name__})"
    if isinstance(error, socket.gaierror):
        return error.strerror or "no such name"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return type(error).__name__


def _resolve_within(resolve: Resolver, target: Target, deadline: float) -> list[tuple[Any, ...]]:
    """The resolver's answer, or TimeoutError at the deadline.

    getaddrinfo takes no timeout, so it runs on a daemon thread that is left
    behind when it hangs: the delivery returns in time either way.
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["answer"] = list(resolve(target.host, target.port, type=socket.SOCK_STREAM))
        except BaseException as error:  # whatever it is, the waiting thread raises it
            outcome["error"] = error

    thread = threading.Thread(target=run, name="webhook-resolve", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise TimeoutError
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]


@functools.cache
def _system_tls_context() -> ssl.SSLContext:
    """The system's trust store, read once per process rather than once per delivery;
    a context is safe to share between threads."""
    return ssl.create_default_context()


class _Watchdog:
    """The delivery's one deadline over connect, TLS, sending and every read.

    A socket timeout bounds each operation, not their sum: an endpoint that
    trickles a byte a second would hold a worker for ever. At the deadline
    the watchdog shuts the socket down, which ends whatever call waits on it.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.expired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError("the delivery's deadline passed")
        return left

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock

    def __enter__(self) -> _Watchdog:
        self._timer = threading.Timer(max(0.0, self.deadline - time.monotonic()), self._expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._socket = None

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self._socket is not None:
                # The plain socket's shutdown, also under TLS: it wakes a blocked read.
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(self._socket, socket.SHUT_RDWR)


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection for the target's name to the addresses checked for it.

    ``connect`` is the only place http.client would resolve the name; here it
    connects to the checked addresses, in the resolver's order, the first that
    answers, and never resolves again.
    """

    def __init__(
        self,
        target: Target,
        resolved: Sequence[tuple[Any, ...]],
        watchdog: _Watchdog,
        tls_context: ssl.SSLContext | None,
    ) -> None:
        super().__init__(target.host, target.port)
        self.default_port = target.default_port  # Host: carries the port only when not default
        self._target = target
        self._resolved = resolved
        self._watchdog = watchdog
        self._tls_context = tls_context

    def connect(self) -> None:
        failure: OSError | None = None
        for family, socktype, proto, _name, sockaddr in self._resolved:
            sock = socket.socket(family, socktype or socket.SOCK_STREAM, proto)
            self._watchdog.watch(sock)
            try:
                sock.settimeout(self._watchdog.remaining())
                sock.connect(sockaddr)
            except TimeoutError:
                sock.close()
                raise
            except OSError as error:
                sock.close()
                failure = error
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._target.scheme == "https":
                context = self._tls_context or _system_tls_context()
                sock = context.wrap_socket(
                    sock, server_hostname=self._target.host, do_handshake_on_connect=False
                )
                self._watchdog.watch(sock)  # the plain socket was handed over: watch its heir
                try:
                    sock.do_handshake()
                except BaseException:
                    sock.close()
                    raise
            sock.settimeout(self._watchdog.remaining())
            self.sock = sock
            return
        raise failure or OSError("no address to connect to")
