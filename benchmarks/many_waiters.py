"""Waiting clients at scale: 10,000 waiters on one server, each woken by its game's next event.

    python benchmarks/many_waiters.py [--waiters 10000] [--games 500] [--addresses 200]
                                      [--max-waiting 6000] [--web-connections 7000]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, a temporary
``--data-dir``, every setting at its default but ``SCHNAPSEN_MAX_WAITING``
and ``SCHNAPSEN_WEB_CONNECTIONS``, given here: per process, two processes),
then, from one asyncio process on loopback only:

- creates ``--games`` human-vs-human games (both seats taken), from ten
  addresses 127.0.2.x (the games an address may create per hour stay at
  their default);
- opens ``--waiters`` waiters, round-robin over the games, from
  ``--addresses`` loopback addresses 127.0.1.x (so each address holds
  waiters/addresses, within ``SCHNAPSEN_MAX_WAITING_PER_ADDRESS``): half SSE
  streams with ``Last-Event-ID`` at the game's head, half long-polls
  (``/events?after=<head>&wait=25``, asked again when one answers empty), as
  seat 0, seat 1 or a spectator;
- once every waiter is held or refused and 3 s have passed with nothing
  changing, holds them ``--hold`` s more (20: past an SSE heartbeat, 15 s by
  default, so every stream has passed a quiet one and looked whether its
  client left), then makes one action in each game (the seat to move, its
  first legal action);
- waits until every held waiter has received its game's next version (or 60
  s have passed), then everything leaves and the server stops.

An action answered 503 (``store_unavailable`` with ``Retry-After``: the
server's Redis connections all busy for a moment) or 408 (``body_timeout``:
a server process starved of CPU read the body late) is sent again with its
``Idempotency-Key``, and counted.

A waiter whose connection fails before it is held (reset, 503
``store_unavailable``) tries again after the answer's ``Retry-After`` (else
1 s), as a client would, and each such try is counted by its reason; a
long-poll refused once held waits its ``Retry-After`` too; a waiting cap's answer (429/503
``too_many_waiting*``, ``too_many_connections``) refuses it for good. Once
held, an SSE waiter does not reconnect: a stream that ends before its game's
event counts as *ended early* (with what it carried), never as woken; a
failed long-poll counts as an error and asks again. While the
waiters connect, wait and wake, one client times ``GET /healthz`` every 20
ms from 127.0.0.1. The run prints held, refused (by problem code), woken by
kind, ended early, the time from an action's request to each waiter's
receipt, /healthz p50/p99, the service log's stream ends by reason and its
warnings, and the figures as one JSON line; it exits 1 unless every waiter
was woken. Bounded: each phase has a deadline, and the whole run stops by
itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live import Service, log_summary  # noqa: E402  (a script beside its neighbour)

POLL_WAIT = 25
#: Bounds: connecting every waiter, the quiet before the actions, the wake-up.
OPEN_SECONDS = 180.0
QUIET_SECONDS = 3.0
WAKE_SECONDS = 60.0
#: Waiters started together while connecting (``--rate`` paces the batches).
OPEN_BATCH = 25
STREAM_END = re.compile(r'"stream_end": "(\w+)"')


#: Answers that refuse a waiter for good: the server's caps on waiting and connections.
REFUSALS = ("too_many_waiting", "too_many_connections")


@dataclass(eq=False)
class Waiter:
    game: dict
    kind: str  # "sse" or "poll"
    seat: int | None  # None: a spectator
    address: str
    held: bool = False
    refused: str = ""
    woken_at: float | None = None
    ended_early: str = ""  # an SSE stream that ended before its event: what it carried
    #: Attempts to connect that failed before it was held, by why (it tries again in 1 s,
    #: as an EventSource or a polling client does).
    retries: Counter = field(default_factory=Counter)
    errors: int = 0  # failed long-polls once held (it asks again)

    @property
    def start(self) -> int:
        return self.game["version"]

    def headers(self) -> str:
        token = "" if self.seat is None else self.game["tokens"][self.seat]
        return f"Authorization: Bearer {token}\r\n" if token else ""


class NotHeld(Exception):
    """A waiter's request failed before it was held: the reason, to count and retry
    (after ``pause`` s: the answer's ``Retry-After``, else 1)."""

    def __init__(self, reason: str, pause: float = 1.0):
        super().__init__(reason)
        self.pause = pause


def retry_after(head: bytes) -> float:
    """An answer's ``Retry-After`` in seconds (1 when it has none)."""
    found = re.search(rb"(?i)\r\nretry-after: *(\d+)", head)
    return float(found.group(1)) if found else 1.0


async def read_head(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    return int(head[9:12]), head


async def read_body(reader: asyncio.StreamReader, head: bytes) -> bytes:
    length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    return await reader.readexactly(int(length.group(1))) if length else b""


def problem_code(status: int, body: bytes) -> str:
    with contextlib.suppress(ValueError, AttributeError):
        return f"{status} {json.loads(body).get('code')}"
    return str(status)


def refusal(w: Waiter, status: int, head: bytes, body: bytes) -> None:
    """A refusal for good (``REFUSALS``): ``w.refused``; anything else: NotHeld (retry
    after its ``Retry-After``)."""
    code = problem_code(status, body)
    if any(code.endswith(name) or f" {name}_" in code for name in REFUSALS):
        w.refused = code
        return
    raise NotHeld(code, retry_after(head))


async def connect(port: int, w: Waiter):
    try:
        return await asyncio.open_connection("127.0.0.1", port, local_addr=(w.address, 0))
    except OSError as error:
        raise NotHeld(f"connect: {type(error).__name__}") from None


async def until_held(attempt, w: Waiter, deadline: float) -> None:
    """``attempt(w)`` again (after 1 s) while it fails before the waiter is held."""
    while True:
        pause = 1.0
        try:
            return await attempt(w)
        except NotHeld as why:
            reason, pause = str(why), why.pause
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:
            if w.held:
                raise
            reason = type(error).__name__
        w.retries[reason] += 1
        if time.monotonic() > deadline:
            w.refused = f"never held ({reason})"
            return
        await asyncio.sleep(pause)


async def sse_waiter(port: int, w: Waiter) -> None:
    """One stream from ``w.address``, read until its game's next version arrives."""
    reader, writer = await connect(port, w)
    try:
        writer.write(
            f"GET /v1/games/{w.game['id']}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"{w.headers()}Last-Event-ID: {w.start}\r\n\r\n".encode()
        )
        status, head = await read_head(reader)
        if status != 200:
            return refusal(w, status, head, await read_body(reader, head))
        w.held = True
        wanted, received = f"\nid: {w.start + 1}\n".encode(), bytearray()
        while True:
            try:
                data = await reader.read(65536)
            except OSError as error:
                data, received = b"", received + f" [{error!r}]".encode()
            if not data:
                w.ended_early = "closed: " + received[-120:].decode(errors="replace")
                return
            received += data
            if wanted in received:
                w.woken_at = time.monotonic()
                return
            if received.endswith(b"\r\n0\r\n\r\n"):  # the server ended the stream
                w.ended_early = received[-120:].decode(errors="replace")
                return
            del received[: max(0, len(received) - 4096)]
    finally:
        writer.close()


async def poll_waiter(port: int, w: Waiter) -> None:
    """Long-polls from ``w.address`` on one connection (a new one if the server closes
    it), until an answer carries its game's next version."""
    after, connection, answered = w.start, None, False
    try:
        while True:
            try:
                if connection is None:
                    connection = await connect(port, w)
                reader, writer = connection
                writer.write(
                    f"GET /v1/games/{w.game['id']}/events?after={after}&wait={POLL_WAIT} "
                    f"HTTP/1.1\r\nHost: 127.0.0.1\r\n{w.headers()}\r\n".encode()
                )
                w.held = True  # sent: it waits (a refusal answers at once, below)
                status, head = await read_head(reader)
                body = await read_body(reader, head)
            except (OSError, asyncio.IncompleteReadError, ValueError, NotHeld):
                if connection is not None:
                    connection[1].close()
                connection = None
                w.errors += 1
                await asyncio.sleep(1)
                continue
            if status != 200:
                if not answered and not w.errors:  # its first answer: not held
                    w.held = False
                    return refusal(w, status, head, body)
                w.errors += 1
                await asyncio.sleep(retry_after(head))  # as the answer asks
                continue
            answered = True
            answer = json.loads(body)
            if any(event["version"] == w.start + 1 for event in answer["events"]):
                w.woken_at = time.monotonic()
                return
            after = answer["version"]
    finally:
        if connection is not None:
            connection[1].close()


async def call(session, method: str, url: str, **kwargs) -> dict:
    async with session.request(method, url, **kwargs) as response:
        if response.status >= 300:
            raise RuntimeError(f"{method} {url}: {response.status} {await response.text()}")
        return await response.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def new_game(session, url: str) -> dict:
    """A game with both seats taken, at its head: id, tokens, version, and the first legal
    action of the seat to move (with that seat)."""
    created = await call(session, "POST", f"{url}/v1/games", json={})
    game_url = f"{url}/v1/games/{created['game_id']}"
    joined = await call(session, "POST", f"{game_url}/join", json={"invite": created["invite"]})
    tokens = {0: created["token"], 1: joined["token"]}
    view = joined["game"]
    if view["to_move"] != 1:
        view = await call(session, "GET", game_url, headers=bearer(tokens[view["to_move"]]))
    return {
        "id": created["game_id"], "tokens": tokens, "version": view["version"],
        "mover": view["seat"], "action": view["deal"]["legal_actions"][0],
    }  # fmt: skip


async def make_games(url: str, count: int) -> list[dict]:
    """``count`` games, created from ten addresses 127.0.2.x, 16 at a time."""
    sessions = [
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.0.2.{i + 1}", 0)))
        for i in range(10)
    ]
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> dict:
        async with gate:
            return await new_game(sessions[i % 10], url)

    try:
        return await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        for session in sessions:
            await session.close()


async def act_once_each(url: str, games: list[dict], retried: Counter) -> dict[str, float]:
    """One action per game (16 at a time); when each action was first sent. An action
    refused for a moment (503 with ``Retry-After``; 408 when the server, starved of CPU,
    read its body late) is sent again with the same ``Idempotency-Key``, as a client
    would, up to 10 times; ``retried`` counts why."""
    answered: dict[str, float] = {}
    gate = asyncio.Semaphore(16)
    connector = aiohttp.TCPConnector(local_addr=("127.0.2.100", 0))
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(game: dict) -> None:
            headers = bearer(game["tokens"][game["mover"]])
            headers["Idempotency-Key"] = f"many-waiters-{game['id']}-{game['version']}"
            async with gate:
                sent = time.monotonic()
                for _ in range(10):
                    async with session.post(f"{url}/v1/games/{game['id']}/actions",
                                            json=game["action"], headers=headers) as answer:  # fmt: skip
                        body = await answer.read()
                        if answer.status < 300:
                            answered[game["id"]] = sent
                            return
                        if answer.status not in (408, 503):
                            raise RuntimeError(f"an action: {answer.status} {body[:300]!r}")
                        retried[problem_code(answer.status, body)] += 1
                        await asyncio.sleep(float(answer.headers.get("Retry-After", 1)))
                raise RuntimeError(f"an action refused 10 times: {body[:300]!r}")

        await asyncio.gather(*map(one, games))
    return answered


async def healthz(url: str, samples: list[float], errors: list[int], stop: asyncio.Event):
    async with aiohttp.ClientSession() as session:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                async with session.get(f"{url}/healthz", timeout=aiohttp.ClientTimeout(10)) as r:
                    await r.read()
                    errors[0] += r.status != 200
            except (aiohttp.ClientError, TimeoutError):
                errors[0] += 1
            samples.append(time.perf_counter() - started)
            await asyncio.sleep(0.02)


def make_waiters(games: list[dict], count: int, addresses: int) -> list[Waiter]:
    """Round-robin over the games; kinds alternate per round, viewers per waiter."""
    waiters = []
    for i in range(count):
        game, k = games[i % len(games)], i // len(games)
        address = f"127.0.1.{1 + i % addresses}"
        waiters.append(Waiter(game, ("sse", "poll")[k % 2], (0, 1, None)[i % 3], address))
    return waiters


def waiting(w: Waiter) -> bool:
    """Not woken yet, and still to be: neither refused nor ended early."""
    return w.woken_at is None and not w.refused and not w.ended_early


def quantile(values: list[float], fraction: float) -> float:
    ordered = sorted(values) or [float("nan")]
    return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000, 1)


async def held_and_quiet(waiters: list[Waiter], deadline: float) -> None:
    """Until every waiter is held or refused and nothing changed for QUIET_SECONDS."""
    last, quiet = None, time.monotonic()
    while time.monotonic() < deadline:
        state = [(w.held, w.refused) for w in waiters]
        if state != last:
            last, quiet = state, time.monotonic()
        elif all(h or r for h, r in state) and time.monotonic() - quiet >= QUIET_SECONDS:
            return
        await asyncio.sleep(0.2)


async def run(args, url: str, port: int) -> dict:
    began = time.monotonic()
    games = await make_games(url, args.games)
    print(f"{len(games)} games made in {time.monotonic() - began:.1f} s", flush=True)
    waiters = make_waiters(games, args.waiters, args.addresses)
    samples: list[float] = []
    health_errors, stop = [0], asyncio.Event()
    timer = asyncio.create_task(healthz(url, samples, health_errors, stop))
    tasks = []
    began = time.monotonic()
    held_by = began + OPEN_SECONDS
    for i, w in enumerate(waiters):
        attempt = sse_waiter if w.kind == "sse" else poll_waiter
        tasks.append(asyncio.create_task(until_held(partial(attempt, port), w, held_by)))
        if i % OPEN_BATCH == OPEN_BATCH - 1:
            await asyncio.sleep(max(0.0, began + (i + 1) / args.rate - time.monotonic()))
    await held_and_quiet(waiters, held_by + 2)
    opened = time.monotonic() - began
    held = Counter(w.kind for w in waiters if w.held)
    print(f"held {held['sse']} SSE + {held['poll']} long-poll in {opened:.1f} s; "
          f"{args.hold:g} s more before the actions", flush=True)  # fmt: skip
    await asyncio.sleep(args.hold)
    action_retries: Counter = Counter()
    answered = await act_once_each(url, games, action_retries)
    deadline = time.monotonic() + WAKE_SECONDS
    while time.monotonic() < deadline and any(waiting(w) for w in waiters):
        await asyncio.sleep(0.2)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(timer, *tasks, return_exceptions=True)
    woken = Counter(w.kind for w in waiters if w.woken_at is not None)
    delays = [w.woken_at - answered[w.game["id"]] for w in waiters if w.woken_at is not None]
    early = [w for w in waiters if w.ended_early]
    return {
        "waiters": args.waiters, "games": args.games, "addresses": args.addresses,
        "held_sse": held["sse"], "held_poll": held["poll"],
        "refused": dict(Counter(w.refused for w in waiters if w.refused)),
        "woken_sse": woken["sse"], "woken_poll": woken["poll"],
        "not_woken": sum(waiting(w) or bool(w.ended_early) for w in waiters),
        "sse_ended_early": len(early),
        "ended_early_carried": sorted({re.sub(r"\s+", " ", w.ended_early) for w in early})[:3],
        "errors_once_held": sum(w.errors for w in waiters),
        "retries_before_held": dict(sum((w.retries for w in waiters), Counter())),
        "action_retries": dict(action_retries),
        "open_seconds": round(opened, 1),
        "wake_p50_ms": quantile(delays, 0.5), "wake_p99_ms": quantile(delays, 0.99),
        "wake_max_ms": quantile(delays, 1.0),
        "healthz_requests": len(samples), "healthz_errors": health_errors[0],
        "healthz_p50_ms": quantile(samples, 0.5), "healthz_p99_ms": quantile(samples, 0.99),
    }  # fmt: skip


def raise_fd_limit(wanted: int) -> int:
    """The soft open-files limit, raised towards ``wanted`` (the server inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def stream_ends(log: Path) -> dict[str, int]:
    """The service log's stream ends, by reason."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return dict(Counter(STREAM_END.findall(text)))


def report(r: dict) -> None:
    print(f"\n{r['waiters']} waiters on {r['games']} games from {r['addresses']} addresses")
    print(f"  held              {r['held_sse']:>6} SSE  {r['held_poll']:>6} long-poll")
    print(f"  woken             {r['woken_sse']:>6} SSE  {r['woken_poll']:>6} long-poll")
    print(f"  refused           {sum(r['refused'].values()):>6}  {r['refused'] or ''}")
    print(f"  not woken         {r['not_woken']:>6}  (SSE ended early: {r['sse_ended_early']})")
    for carried in r["ended_early_carried"]:
        print(f"    an early end carried: {carried!r}")
    print(f"  errors once held  {r['errors_once_held']:>6}")
    print(f"  connects retried  {sum(r['retries_before_held'].values()):>6}  "
          f"{r['retries_before_held'] or ''}")  # fmt: skip
    print(f"  actions retried   {sum(r['action_retries'].values()):>6}  "
          f"{r['action_retries'] or ''}")  # fmt: skip
    print(f"  connecting took   {r['open_seconds']:>6} s")
    print(f"  action sent -> woken  p50 {r['wake_p50_ms']} ms, p99 {r['wake_p99_ms']} ms, "
          f"max {r['wake_max_ms']} ms")  # fmt: skip
    print(f"  /healthz          p50 {r['healthz_p50_ms']} ms, p99 {r['healthz_p99_ms']} ms "
          f"({r['healthz_requests']} requests, {r['healthz_errors']} errors)")  # fmt: skip
    print(f"  stream ends logged: {r.get('stream_ends_logged')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--addresses", type=int, default=200, help="127.0.1.1 .. 127.0.1.N")
    parser.add_argument("--keep-log", type=Path, help="copy the service's log there")
    parser.add_argument("--hold", type=float, default=20, help="seconds held before acting "
                        "(past a 15 s heartbeat, so every stream has had a quiet one)")  # fmt: skip
    parser.add_argument("--rate", type=float, default=250, help="waiters started a second")
    parser.add_argument("--max-waiting", type=int, default=6000, help="per server process")
    parser.add_argument("--web-connections", type=int, default=7000, help="per process")
    args = parser.parse_args()
    if not 1 <= args.addresses <= 254:
        parser.error("--addresses: 1 to 254")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C: stop the server
    print("Schnapsen waiters at scale (benchmarks/many_waiters.py)")
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"open files limit {raise_fd_limit(args.waiters + 4096)}")
    settings = {
        "SCHNAPSEN_MAX_WAITING": str(args.max_waiting),
        "SCHNAPSEN_WEB_CONNECTIONS": str(args.web_connections),
    }
    with tempfile.TemporaryDirectory(prefix="schnapsen-waiters-") as tmp:
        log_path, service = Path(tmp) / "serve.log", None
        try:
            with open(log_path, "wb") as log:
                service = Service(Path(tmp) / "var", log, settings=settings)
            print(f"server: schnapsen-serve at {service.url}, embedded Redis, default "
                  f"settings but {settings}", flush=True)  # fmt: skip
            result = asyncio.run(run(args, service.url, int(service.url.rsplit(":", 1)[1])))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            if service:
                service.stop()
            log_summary(log_path)
            if args.keep_log and log_path.exists():
                shutil.copyfile(log_path, args.keep_log)
        result["stream_ends_logged"] = stream_ends(log_path)
    report(result)
    everyone = result["woken_sse"] + result["woken_poll"] == args.waiters
    print("\nACCEPTANCE: " + ("every waiter woken" if everyone else "NOT every waiter woken"))
    print(json.dumps(result, separators=(",", ":")))
    return 0 if everyone else 1


if __name__ == "__main__":
    sys.exit(main())
