"""gunicorn workers whose own refusals are problem+json, like every other answer.

gunicorn answers some requests before the app sees them: a request line over
``limit_request_line`` (414), a header field over ``limit_request_field_size``
or more than ``limit_request_fields`` of them (431), a request line, header
or framing it cannot parse (400). It writes those answers itself, as small
HTML pages (``gunicorn.util.write_error``), so clients that expect RFC 9457
bodies everywhere got HTML. ``ProblemErrors`` replaces the worker's
``handle_error`` and writes the same refusals as ``application/problem+json``
with a stable ``code``, then the connection closes (gunicorn reads nothing
more from it).

It is a mixin, so any gunicorn worker class can take it. The service runs
``ProblemGeventWorker`` (gunicorn's gevent worker with it): most clients are
waiting for the other side's move, and under gevent a waiting request is a
greenlet of a few KiB rather than one of a handful of threads, so one small
server holds thousands of them (measured by ``benchmarks/live.py``; waiters
share one Redis subscription per process, see ``service.live.watcher``).
``ProblemThreadWorker`` (gthread) stays for deployments that cannot run gevent.
Both write each answer's head together with its first body bytes
(``OneWriteResponse``): one packet where gunicorn sends two.

The gevent worker also guards against slow and greedy clients
(``SlowClientGuards``): a request's body must arrive within
``SCHNAPSEN_BODY_TIMEOUT_SECONDS`` of its head (else 408, ``service.web.body_deadline``),
and one address holds at most ``SCHNAPSEN_CONNECTIONS_PER_ADDRESS`` connections
to the process (else 429 at once, ``service.serve.connections_per_address``).
``gunicorn_command`` is the one command line every gunicorn of the project
starts with: the run command, the Dockerfile's equivalent, tests, benchmarks.
"""

from __future__ import annotations

import contextlib
import gc
import json
import socket
import ssl
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors, wsgi
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers.ggevent import GeventWorker
from gunicorn.workers.gthread import ThreadWorker

from service.ops import settings
from service.ops.shares import overreaching_connection_shares
from service.serve.connections_per_address import ConnectionsPerAddress
from service.web.body_deadline import BodyTimedOut, DeadlineBody
from service.web.problem_catalog import ProblemCode
from service.web.response_headers import headers_for
from service.web.statuses import STATUS

#: What every answer of the service says (service.web.response_headers), as header lines.
_SECURITY_HEADERS = "".join(f"{name}: {value}\r\n" for name, value in headers_for(None).items())
#: How much of gunicorn's own message (which quotes the request) a detail repeats.
_MESSAGE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Refusal:
    """The answer to an error gunicorn met: a client's fault, or the server's."""

    code: ProblemCode
    detail: str
    retry_after: int | None = None  # seconds, for a refusal that passes

    @property
    def status(self) -> int:
        """The code's status, as the app's refusals have theirs (``service.web.statuses``)."""
        return STATUS[self.code]

    @property
    def client_error(self) -> bool:
        """A 4xx is the client's fault (a warning in the log); a 5xx the server's (a traceback)."""
        return self.status < HTTPStatus.INTERNAL_SERVER_ERROR

    @property
    def title(self) -> str:
        return HTTPStatus(self.status).phrase

    def problem(self) -> dict[str, Any]:
        return {
            "type": f"/problems/{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
            # RFC 9457's occurrence, as the app's refusals name theirs: no path was read here.
            "instance": f"urn:uuid:{uuid.uuid4()}",
        }

    def http(self) -> bytes:
        """The whole answer: status line, headers and body (the connection then closes)."""
        body = json.dumps(self.problem()).encode()
        head = (
            f"HTTP/1.1 {self.status} {self.title}\r\n"
            "Connection: close\r\n"
            "Content-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"X-Request-ID: {uuid.uuid4().hex}\r\n"
            f"{_SECURITY_HEADERS}"
            + ("" if self.retry_after is None else f"Retry-After: {self.retry_after}\r\n")
            + "\r\n"
        )
        return head.encode("latin-1") + body


def refusal(exc: BaseException, cfg: Any) -> Refusal:
    """What to answer for ``exc``, raised while gunicorn read a request (or served it)."""
    said = str(exc)[:_MESSAGE_CHARS]
    # The app's own headers are the server's fault (a subclass of InvalidHeader: first).
    if isinstance(exc, errors.InvalidResponseHeader | errors.InvalidResponseHeaderName):
        return _server_error()
    if isinstance(exc, errors.LimitRequestLine):
        return Refusal(
            ProblemCode.URI_TOO_LONG,
            f"the request line is longer than {cfg.limit_request_line} bytes",
        )
    if isinstance(exc, errors.LimitRequestHeaders):
        return Refusal(
            ProblemCode.HEADERS_TOO_LARGE,
            f"at most {cfg.limit_request_fields} header fields of at most "
            f"{cfg.limit_request_field_size} bytes each ({said})",
        )
    if isinstance(exc, errors.UnsupportedTransferCoding):
        # RFC 9112 6.1 suggests 501; a refusal of the client's request is a 4xx here.
        return Refusal(
            ProblemCode.UNSUPPORTED_TRANSFER_CODING,
            "only the chunked transfer coding is supported",
        )
    if isinstance(exc, errors.ExpectationFailed):
        return Refusal(
            ProblemCode.EXPECTATION_FAILED, f"only 'Expect: 100-continue' is met ({said})"
        )
    if isinstance(exc, errors.ForbiddenProxyRequest | ssl.SSLError):
        return Refusal(ProblemCode.FORBIDDEN, "this connection may not make requests")
    if isinstance(exc, errors.ConfigurationProblem):
        return _server_error()
    if isinstance(exc, errors.ParseException):
        return Refusal(ProblemCode.BAD_REQUEST, f"the request is not valid HTTP/1.1: {said}")
    return _server_error()


def _server_error() -> Refusal:
    return Refusal(
        ProblemCode.INTERNAL_ERROR,
        "the server failed to answer this request; it has been logged",
    )


class _Gathered:
    """Stands in for a socket while a response writes: keeps what it would send."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.parts.append(data)


class OneWriteResponse(Response):
    """gunicorn's response, sending the head and the first body bytes in one send.

    gunicorn sends the head alone, then the body. On loopback, or any network,
    each send is a packet the kernel carries there and then, and most answers
    here are small (a long-poll delivery is a few hundred bytes), so the second
    packet is a large share of an answer's cost: ``benchmarks/live.py`` measured
    a long-poll delivery at about a third of an action's CPU with two sends.
    The first ``write`` runs gunicorn's own code (head, framing, lengths) with
    the socket swapped for a gatherer, then sends what it gathered at once;
    later writes (the chunks of a stream) and ``sendfile`` are gunicorn's.
    """

    def write(self, arg: bytes) -> None:
        if self.headers_sent:
            return super().write(arg)
        sock, gathered = self.sock, _Gathered()
        self.sock = gathered
        try:
            super().write(arg)
        finally:
            self.sock = sock
            if gathered.parts:
                sock.sendall(b"".join(gathered.parts))


class SecondsHttpDate:
    """gunicorn's ``util.http_date``, formatting the current second once, not per answer.

    Every answer's ``Date`` header is the current time to the second (RFC 9110
    5.6.7): a busy worker sends many a second, and ``email.utils.formatdate``
    costs a few microseconds each time. A given timestamp is formatted as before.
    """

    def __init__(self) -> None:
        self._second, self._text = -1, ""

    def __call__(self, timestamp: float | None = None) -> str:
        if timestamp is not None:
            return _GUNICORN_HTTP_DATE(timestamp)
        second = int(time.time())
        if second != self._second:
            self._second, self._text = second, _GUNICORN_HTTP_DATE(second)
        return self._text


#: gunicorn's own, before a worker replaces it.
_GUNICORN_HTTP_DATE = util.http_date


def settle_settings(cfg: Any) -> None:
    """Each of a worker's settings as a plain attribute of its ``cfg``, read as any other.

    gunicorn's ``Config`` finds a setting through ``__getattr__`` (a failed lookup,
    then the setting's ``get()``), and parsing and answering one request reads a
    few dozen of them: about a twentieth of a small request's CPU here. A
    worker's settings never change once it runs (a reload starts new workers),
    so the worker's copy keeps their values where attribute lookup finds them
    first. The class's own properties (``worker_class``, ``address``...) stay.
    """
    for name, setting in cfg.settings.items():
        if not hasattr(type(cfg), name):
            vars(cfg)[name] = setting.get()


def freeze_the_loaded_heap() -> None:
    """Leave what loading the app made (modules, the app, its spec) out of every later
    collection of the oldest generation (``gc.freeze``).

    Those objects live as long as the worker, and a full collection walks every
    tracked object: with the app loaded that took about 120 ms in a worker
    holding a thousand waiters (``benchmarks/live.py``), a pause in which that
    process answers nobody. Collected once first, so no garbage is frozen.
    """
    gc.collect()
    gc.freeze()


class ProblemErrors:
    """Mixin for a gunicorn ``Worker``: its own error answers as problem+json, and
    answers written in one send (``OneWriteResponse``).

    Logs and access-logs as gunicorn's ``Worker.handle_error`` does; only the
    answer written differs.
    """

    cfg: Any
    log: Any

    def init_process(self) -> None:
        # gunicorn's workers build each response with ``gunicorn.http.wsgi.create``,
        # which takes the module's ``Response``: the one place to put ours.
        wsgi.Response = OneWriteResponse
        util.http_date = SecondsHttpDate()  # what wsgi.Response's Date header calls
        settle_settings(self.cfg)
        super().init_process()  # type: ignore[misc]

    def load_wsgi(self) -> None:
        super().load_wsgi()  # type: ignore[misc]
        freeze_the_loaded_heap()

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        started = datetime.now()
        addr = addr or ("", -1)  # a Unix socket
        answer = refusal(exc, self.cfg)
        if answer.client_error:
            self.log.warning("Invalid request from ip=%s: %s", addr[0], exc)
            if req is None and isinstance(exc, errors.InvalidHeader | errors.InvalidHeaderName):
                req = getattr(exc, "req", None)  # for the access log
        elif hasattr(req, "uri"):
            self.log.exception("Error handling request %s %s", getattr(req, "method", ""), req.uri)
        else:
            self.log.exception("Error handling request (no URI read)")
        data = answer.http()
        if req is not None:
            environ = default_environ(req, client, self.cfg)
            environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = addr[0], str(addr[1])
            response = Response(req, client, self.cfg)
            response.status = f"{answer.status} {answer.title}"
            response.response_length = len(data)
            self.log.access(response, req, environ, datetime.now() - started)
        try:
            util.write_nonblock(client, data)
        except Exception:
            self.log.debug("Failed to send error message.")


def _gevent_bound(seconds: float, timed_out: BodyTimedOut) -> gevent.Timeout:
    """One read of a body, given up after ``seconds`` by raising ``timed_out`` in it."""
    return gevent.Timeout(seconds, timed_out)


def _peer(addr: Any) -> str:
    """The client's address of an accepted connection ('' on a Unix socket)."""
    return str(addr[0]) if isinstance(addr, tuple) and addr else ""


class SlowClientGuards:
    """Mixin for gunicorn's gevent worker: a deadline for each request's body, and a cap
    on the connections of each address.

    gunicorn bounds the wait for a head (the keep-alive timeout) but not for a
    body; and it takes every connection offered until ``worker_connections``, from
    whomever. Both let one client hold a process's every connection.
    """

    cfg: Any
    log: Any
    body_seconds: float
    connections: ConnectionsPerAddress

    def init_process(self) -> None:
        # Read before gunicorn's init_process, which runs the worker and never returns.
        config = settings.from_env()
        self.body_seconds = float(config.body_timeout_seconds)
        # Behind proxies every peer is a proxy: the cap is theirs to apply per client.
        cap = 0 if config.proxy_hops else config.connections_per_address
        self.connections = ConnectionsPerAddress(cap)
        for warning in overreaching_connection_shares(config, self.cfg.worker_connections):
            self.log.warning(warning)
        super().init_process()  # type: ignore[misc]

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        address = _peer(addr)
        if not address:
            return super().handle(listener, client, addr)  # type: ignore[misc]
        if not self.connections.enter(address):
            self.refuse_connection(client, address)
            return None
        try:
            return super().handle(listener, client, addr)  # type: ignore[misc]
        finally:
            self.connections.leave(address)

    def refuse_connection(self, client: Any, address: str) -> None:
        """429 to a connection past its address's cap, written before anything is read,
        then closed: a refusal costs the process no wait on the client."""
        cap = self.connections.cap
        self.log.info("Refused a connection from ip=%s: it holds %d already", address, cap)
        answer = Refusal(
            ProblemCode.TOO_MANY_CONNECTIONS,
            f"this address holds {cap} connections to this server process already; "
            "send over those, or retry after Retry-After",
            retry_after=1,
        )
        try:
            util.write_nonblock(client, answer.http())
            _discard_arrived(client)
        except OSError:
            self.log.debug("Failed to send the connection refusal.")
        finally:
            util.close(client)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        body = req.body
        if body is not None and self.body_seconds > 0:
            req.body = DeadlineBody.starting_now(body, req, self.body_seconds, _gevent_bound)
        try:
            return super().handle_request(listener_name, req, sock, addr)  # type: ignore[misc]
        finally:
            # gunicorn discards an unread body before the next request with its own
            # (keep-alive) timeout; a body past its deadline closed the connection.
            req.body = body


#: What a refused connection's client may have sent already: a head and a little body.
_ARRIVED_BYTES = 64 * 1024


def _discard_arrived(client: Any) -> None:
    """Read what the client already sent (up to ``_ARRIVED_BYTES``), without waiting.

    Closing a socket with unread bytes makes the kernel reset the connection,
    and a client may then lose the answer before reading it. Bounded, so a
    client sending on and on cannot keep the process reading.
    """
    client.setblocking(False)
    read = 0
    with contextlib.suppress(OSError):
        while read < _ARRIVED_BYTES and (data := client.recv(_ARRIVED_BYTES - read)):
            read += len(data)
    with contextlib.suppress(OSError):
        client.shutdown(socket.SHUT_WR)


class ProblemThreadWorker(ProblemErrors, ThreadWorker):
    """gunicorn's gthread worker, answering its own refusals as problem+json.

    It has neither the body deadline nor the cap per address of the gevent worker
    (its threads are few: a proxy in front bounds slow clients, ``deploy/``).
    """


class ProblemGeventWorker(ProblemErrors, SlowClientGuards, GeventWorker):
    """gunicorn's gevent worker, answering its own refusals as problem+json, with a
    deadline for each body and a cap on the connections of each address."""


#: The worker class every gunicorn of the project runs.
WORKER_CLASS = "service.serve.gunicorn_workers.ProblemGeventWorker"


#: How long gunicorn's workers finish their requests after SIGTERM (seconds).
GRACEFUL_SECONDS = 5


def gunicorn_command(
    bind: str, *, workers: int, connections: int, log_level: str | None = None
) -> list[str]:
    """The gunicorn command line of the API: ``workers`` processes of ``connections`` each."""
    command = [
        sys.executable, "-m", "gunicorn",
        "--bind", bind,
        "--workers", str(workers),
        "--worker-class", WORKER_CLASS,
        "--worker-connections", str(connections),
        "--keep-alive", "5",
        # On SIGTERM a worker closes what is still open (long-polls, event streams:
        # their clients come back) after this long, within the supervisor's stop.
        "--graceful-timeout", str(GRACEFUL_SECONDS),
        "--no-control-socket",
    ]  # fmt: skip
    if log_level:
        command += ["--log-level", log_level]
    return [*command, "service.web.app:create_app()"]
