"""The clients of the live benchmark (benchmarks/live.py): players, the /healthz
timer, and waiters (SSE streams and long-polls) that record what they receive.

One asyncio process plays every client, so the client side is not the limit
(the run prints its CPU); see live.py for how the figures are read.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from dataclasses import dataclass, field

import aiohttp

POLL_WAIT = 25
REQUEST = aiohttp.ClientTimeout(total=30)
POLL = aiohttp.ClientTimeout(total=POLL_WAIT + 15)
SSE = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=45)  # heartbeats: 15 s


class Refused(Exception):
    """A non-2xx answer: its status and problem code."""


@dataclass
class Waiter:
    game: dict
    kind: str  # "sse" or "poll"
    seat: int | None  # None: a spectator
    start: int
    versions: list[int] = field(default_factory=list)
    held: bool = False
    refused: str = ""  # why, when refused
    ended: bool = False  # saw the game end (SSE: event "end" or 204)
    errors: int = 0  # failed requests once held (it retries)

    @property
    def last(self) -> int:
        return self.versions[-1] if self.versions else self.start

    def failed(self, error: Exception) -> bool:
        """Refused if never held (it stops: True), else one more error (it retries)."""
        if not self.held:
            self.refused = str(error) or type(error).__name__
        self.errors += self.held
        return not self.held


@dataclass
class Load:
    latencies: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    errors: int = 0
    healthz_errors: int = 0
    #: How late the players' loop woke from 2 ms sleeps (s): its own queue, the client's limit.
    lags: list[float] = field(default_factory=list)
    games: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # the client's CPU seconds
    #: CPU seconds of the local server's parts meanwhile (live.py: server, redis, machine).
    parts: dict[str, float] = field(default_factory=dict)


def auth(game: dict, seat: int | None) -> dict[str, str]:
    return {} if seat is None else {"Authorization": f"Bearer {game['tokens'][seat]}"}


async def refusal(response: aiohttp.ClientResponse) -> Refused:
    with contextlib.suppress(ValueError, AttributeError, aiohttp.ClientError):
        code = (await response.json(content_type=None) or {}).get("code")
        return Refused(f"{response.status} {code or response.reason}")
    return Refused(f"{response.status} {response.reason}")


async def call(session, method: str, url: str, *, retries: int = 0, **kwargs) -> dict:
    """One request's JSON answer; ``retries`` times again (after 1 s) when it fails."""
    for attempt in range(retries + 1):
        try:
            async with session.request(method, url, timeout=REQUEST, **kwargs) as response:
                if response.status >= 300:
                    raise await refusal(response)
                return await response.json()
        except (Refused, aiohttp.ClientError, TimeoutError):
            if attempt == retries:
                raise
            await asyncio.sleep(1)
    raise AssertionError("unreachable")


async def new_game(session: aiohttp.ClientSession, url: str, retries: int = 0) -> dict:
    """A human-vs-human game with both seats taken: its id, both tokens, seat 1's view."""
    created = await call(session, "POST", f"{url}/v1/games", json={}, retries=retries)
    game_url, invite = f"{url}/v1/games/{created['game_id']}", {"invite": created["invite"]}
    joined = await call(session, "POST", f"{game_url}/join", json=invite, retries=retries)
    tokens = {0: created["token"], 1: joined["token"]}
    return {"id": created["game_id"], "tokens": tokens, "view": joined["game"]}


async def play(session, url: str, game: dict, rng: random.Random, load: Load, until: float):
    """Random legal actions of the seat to move, until the game ends or time is up."""
    view, game_url = game["view"], f"{url}/v1/games/{game['id']}"
    while view["status"] != "finished" and time.monotonic() < until:
        seat = view["to_move"]
        if view["seat"] != seat:
            view = await call(session, "GET", game_url, headers=auth(game, seat))
        action, started = rng.choice(view["deal"]["legal_actions"]), time.perf_counter()
        view = await call(
            session, "POST", f"{game_url}/actions", json=action, headers=auth(game, seat)
        )
        load.latencies.append(time.perf_counter() - started)
    load.games += view["status"] == "finished"


async def player(session, url: str, seed: int, load: Load, until: float, watched: list | None):
    """Plays the ``watched`` games while any are left, then new ones."""
    rng = random.Random(seed)
    while time.monotonic() < until:
        try:
            game = watched.pop() if watched else await new_game(session, url)
            await play(session, url, game, rng, load, until)
        except (Refused, aiohttp.ClientError, TimeoutError, KeyError, IndexError) as error:
            load.errors += 1
            if load.errors <= 5:
                print(f"player {seed}: {error!r}", file=sys.stderr)
            await asyncio.sleep(0.1)


async def healthz(session: aiohttp.ClientSession, url: str, load: Load, until: float) -> None:
    while time.monotonic() < until:
        started = time.perf_counter()
        try:
            async with session.get(f"{url}/healthz", timeout=REQUEST) as response:
                await response.read()
                load.healthz_errors += response.status != 200
        except (aiohttp.ClientError, TimeoutError):
            load.healthz_errors += 1
        load.healthz.append(time.perf_counter() - started)
        await asyncio.sleep(0.02)


async def loop_lag(load: Load, until: float, nap: float = 0.002) -> None:
    """Sleeps ``nap`` again and again, recording how late each wake-up was: the time
    this loop's other work (players, waiters on the same loop) kept it."""
    while time.monotonic() < until:
        started = time.perf_counter()
        await asyncio.sleep(nap)
        load.lags.append(time.perf_counter() - started - nap)


async def run_load(session, url: str, players: int, seconds: float, seed: int, watched=None):
    """The players (half of them on ``watched`` games) and the /healthz timer."""
    load, until = Load(), time.monotonic() + seconds
    started, cpu = time.perf_counter(), time.process_time()
    share = max(1, players // 2) if watched else 0
    clients = [
        player(session, url, seed + i, load, until, watched if i < share else None)
        for i in range(players)
    ]
    await asyncio.gather(healthz(session, url, load, until), loop_lag(load, until), *clients)
    load.seconds, load.cpu = time.perf_counter() - started, time.process_time() - cpu
    return load


async def read_sse(content: aiohttp.StreamReader, waiter: Waiter) -> None:
    """Records each event's id; stops at ``event: end``. Skips comments and ``retry:``."""
    ident = kind = None
    async for raw in content:
        line = raw.rstrip(b"\r\n")
        if line.startswith(b"id:"):
            ident = int(line[3:])
        elif line.startswith(b"event:"):
            kind = line[6:].strip()
        elif not line:
            if kind == b"end":
                waiter.ended = True
                return
            if ident is not None:
                waiter.versions.append(ident)
            ident = kind = None


async def sse_waiter(session, url: str, waiter: Waiter, stop: asyncio.Event) -> None:
    """An EventSource: reads the stream; reconnects after 1 s with Last-Event-ID."""
    stream, params = f"{url}/v1/games/{waiter.game['id']}/stream", {"after": waiter.start}
    while not stop.is_set() and not waiter.ended:
        headers = auth(waiter.game, waiter.seat)
        if waiter.versions:
            headers["Last-Event-ID"] = str(waiter.last)
        try:
            async with session.get(stream, params=params, headers=headers, timeout=SSE) as r:
                if r.status == 204:  # a finished game with nothing new
                    waiter.ended = True
                    return
                if r.status != 200:
                    raise await refusal(r)
                waiter.held = True
                await read_sse(r.content, waiter)
        except (Refused, aiohttp.ClientError, TimeoutError, ValueError) as error:
            if waiter.failed(error):
                return
        await asyncio.sleep(1)


async def poll_waiter(session, url: str, waiter: Waiter, stop: asyncio.Event) -> None:
    """Long-polls ``events?after=<last>&wait=25``, going on from each answer's version."""
    events, after, answered = f"{url}/v1/games/{waiter.game['id']}/events", waiter.start, False
    while not stop.is_set() and not waiter.ended:
        try:
            async with session.get(
                events,
                params={"after": after, "wait": POLL_WAIT},
                headers=auth(waiter.game, waiter.seat),
                timeout=POLL,
                trace_request_ctx=waiter,  # held once its headers are sent: see _sent
            ) as response:
                if response.status != 200:
                    raise await refusal(response)
                body = await response.json()
        except (Refused, aiohttp.ClientError, TimeoutError, ValueError) as error:
            waiter.held = answered  # its first request refused: never held
            if waiter.failed(error):
                return
            await asyncio.sleep(1)
            continue
        answered = True
        for event in body["events"]:
            waiter.versions.append(event["version"])
            waiter.ended = waiter.ended or "game_winner" in event
        after = body["version"]


async def _sent(_session, context, _params) -> None:
    if isinstance(context.trace_request_ctx, Waiter):
        context.trace_request_ctx.held = True


def make_waiters(games: list[dict], count: int) -> list[Waiter]:
    """Round-robin over the games; kinds and viewers alternate, so all six pairs occur."""
    waiters = []
    for i in range(count):
        game, k = games[i % len(games)], i // len(games)
        kind, seat = ("sse", "poll")[k % 2], (0, 1, None)[k % 3]
        waiters.append(Waiter(game, kind, seat, game["view"]["version"]))
    return waiters


async def open_waiters(session, url: str, waiters: list[Waiter], stop: asyncio.Event):
    """Starts 100 waiters per 50 ms, then waits until each is held, refused or ended
    and nothing has changed for 1 s (at most 30 s + 20 ms per waiter)."""
    tasks = []
    for i, waiter in enumerate(waiters):
        run = sse_waiter if waiter.kind == "sse" else poll_waiter
        tasks.append(asyncio.create_task(run(session, url, waiter, stop)))
        if i % 100 == 99:
            await asyncio.sleep(0.05)
    deadline, last, quiet = time.monotonic() + 30 + len(waiters) / 50, None, time.monotonic()
    while time.monotonic() < deadline:
        state = [(w.held, bool(w.refused), w.ended) for w in waiters]
        if state != last:
            last, quiet = state, time.monotonic()
        elif all(map(any, state)) and time.monotonic() - quiet >= 1:
            break
        await asyncio.sleep(0.1)
    return tasks


async def gather_limited(coroutines, limit: int = 16) -> list:
    gate = asyncio.Semaphore(limit)

    async def one(coroutine):
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))
