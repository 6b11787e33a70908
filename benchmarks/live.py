"""Live benchmark: thousands of waiting clients (SSE and long-poll) beside players.

    python benchmarks/live.py [--waiters 2000] [--players 4] [--seconds 20] [--games G]
                              [--url http://127.0.0.1:8000]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, default
settings, a temporary ``--data-dir``; only the per-address and per-token rate
limits are off, since one machine plays every client), or uses ``--url``,
then in one run, with one asyncio client:

1. idle: ``--players`` clients play human-vs-human games (both seats, random
   legal actions, a new game when one ends) for ``--seconds``, while one
   client times ``GET /healthz`` every 20 ms;
2. waiting: ``--waiters`` clients wait on ``--games`` games (default
   waiters/4: four waiters a game, as a game's two seats plus spectators
   would), half on the SSE stream, half long-polling ``/events?wait=25``,
   as seat 0, seat 1 or a spectator. Once all are connected (or refused), the
   same players play again, half of them the watched games to their end, so
   waiters get events and see games finish.

How to read it. A waiter is *held* when its connection is open (SSE: 200 and
headers received; long-poll: its request sent and not refused) and *refused*
when its first request got an error (503 ``too_many_waiting``, say); refused
waiters stop. Every held waiter's received versions are compared with the
log as that viewer sees it, from its start up to the head when the players
stopped: *missed* versions never arrived, *duplicated* ones arrived twice
(both must be 0). The waiting/idle ratios show what holding the waiters costs
the players and the health check; "client cpu cores" shows whether the client
itself was the limit. Server RSS (the gunicorn processes) and the embedded
Redis's ``connected_clients`` (ours not counted) before and after the waiters
connect give memory and Redis connections per 1,000 held waiters. Server and
client share one small machine: compare figures within a run. Warnings and
errors in the service's log are counted and grouped before the table; the
last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import redis

REPO = Path(__file__).resolve().parent.parent
POLL_WAIT = 25
REQUEST = aiohttp.ClientTimeout(total=30)
POLL = aiohttp.ClientTimeout(total=POLL_WAIT + 15)
SSE = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=45)  # heartbeats: 15 s
LIMITS = ("RATE_LIMIT_PER_IP", "RATE_LIMIT_PER_TOKEN", "GAMES_PER_ADDRESS_PER_HOUR")
NO_RATE_LIMITS = {f"SCHNAPSEN_{name}": "0" for name in LIMITS}
ODD_LOG_LINE = re.compile(r'"level": "(WARNING|ERROR|CRITICAL)"|\[(ERROR|CRITICAL)\]|Traceback')


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
    games: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # the client's CPU seconds


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


async def run_load(session, url: str, players: int, seconds: float, seed: int, watched=None):
    """The players (half of them on ``watched`` games) and the /healthz timer."""
    load, until = Load(), time.monotonic() + seconds
    started, cpu = time.perf_counter(), time.process_time()
    share = max(1, players // 2) if watched else 0
    clients = [
        player(session, url, seed + i, load, until, watched if i < share else None)
        for i in range(players)
    ]
    await asyncio.gather(healthz(session, url, load, until), *clients)
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


async def compare(session, url: str, waiters: list[Waiter], heads: dict[str, int]) -> dict:
    """Each held waiter's versions against the log its viewer sees, up to the stop head."""
    held = [w for w in waiters if w.held]
    viewers = {(w.game["id"], w.seat): w for w in held}  # one start per game

    async def log(w: Waiter) -> list[int]:
        events = f"{url}/v1/games/{w.game['id']}/events"
        query, headers = {"after": w.start}, auth(w.game, w.seat)
        body = await call(session, "GET", events, params=query, headers=headers, retries=5)
        return [e["version"] for e in body["events"] if e["version"] <= heads[w.game["id"]]]

    logs = dict(zip(viewers, await gather_limited(map(log, viewers.values())), strict=True))
    missed = duplicated = gaps = 0
    for w in held:
        expected = logs[(w.game["id"], w.seat)]
        missed += len(set(expected) - set(w.versions))
        duplicated += len(w.versions) - len(set(w.versions))
        gaps += heads[w.game["id"]] - w.start - len(expected)
    return {"missed": missed, "duplicated": duplicated, "log_gaps": gaps}


async def waiting_phase(session, url: str, args, service: Service | None) -> tuple[Load, dict]:
    games = await gather_limited(new_game(session, url, retries=3) for _ in range(args.games))
    waiters, stop = make_waiters(games, args.waiters), asyncio.Event()
    figures = {"before": service.sample() if service else {}}
    tasks = await open_waiters(session, url, waiters, stop)
    try:
        figures["after"] = service.sample() if service else {}
        figures |= {"held": sum(w.held for w in waiters)}
        figures |= {"refusals": dict(Counter(w.refused for w in waiters if w.refused))}
        figures |= {"refused": sum(figures["refusals"].values())}
        print(f"waiters: {figures['held']} held, {figures['refused']} refused", flush=True)
        load = await run_load(session, url, args.players, args.seconds, 100, games[::-1])
        views = await gather_limited(
            call(session, "GET", f"{url}/v1/games/{g['id']}", retries=5) for g in games
        )
        heads = {view["game_id"]: view["version"] for view in views}
        await settle(waiters, heads)
        figures |= await compare(session, url, waiters, heads)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return load, figures | {
        "delivered": sum(len(w.versions) for w in waiters),
        "errors_once_held": sum(w.errors for w in waiters),
        "watched_finished": sum(view["status"] == "finished" for view in views),
        "sse_ended": sum(w.ended for w in waiters if w.kind == "sse"),
    }


async def settle(waiters: list[Waiter], heads: dict[str, int]) -> None:
    """2 s, then until every held waiter has its game's head (10 s at most)."""
    deadline = time.monotonic() + 10
    await asyncio.sleep(2)
    while time.monotonic() < deadline and any(
        w.held and not w.ended and w.last < heads[w.game["id"]] for w in waiters
    ):
        await asyncio.sleep(0.2)


class Service:
    """``schnapsen-serve --port <free> --data-dir <data_dir>``; no REDIS_URL: embedded Redis."""

    def __init__(self, data_dir: Path, log) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        script = Path(sys.executable).parent / "schnapsen-serve"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "service.run"]
        drop = ("REDIS_URL", "QUEUE_REDIS_URL", "SCHNAPSEN_SECRET_KEY")
        env = {k: v for k, v in os.environ.items() if k not in drop} | NO_RATE_LIMITS
        self.data_dir, self.url = data_dir, f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [*command, "--port", str(port), "--data-dir", str(data_dir)],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as answer,
            ):
                if answer.status == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("schnapsen-serve did not serve /healthz within 60 s")

    def gunicorn_rss_kib(self) -> int:
        """The VmRSS of the command's descendants whose command line names gunicorn."""
        children: dict[int, list[int]] = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
                children.setdefault(int(parent), []).append(int(pid))
        rss, todo = 0, [self.process.pid]
        while todo:
            for pid in children.get(todo.pop(), []):
                todo.append(pid)
                with contextlib.suppress(OSError, AttributeError):
                    if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                        status = Path(f"/proc/{pid}/status").read_text()
                        rss += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        return rss

    def sample(self) -> dict:
        """Server RSS (MiB) and the embedded Redis's connected clients but this one."""
        with redis.Redis(unix_socket_path=str(self.data_dir / "redis" / "redis.sock")) as client:
            clients = client.info("clients")["connected_clients"] - 1
        return {"rss_mib": round(self.gunicorn_rss_kib() / 1024, 1), "redis_clients": clients}

    def stop(self) -> None:
        """Ctrl-C, as a user stops it; a kill if it has not stopped within 30 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def phase_figures(load: Load) -> dict:
    def ms(values: list[float], fraction: float) -> float:
        ordered = sorted(values) or [float("nan")]
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000, 2)

    figures = {"actions_per_s": round(len(load.latencies) / load.seconds, 1)}
    for name, values in (("action", load.latencies), ("healthz", load.healthz)):
        figures |= {f"{name}_p50_ms": ms(values, 0.5), f"{name}_p99_ms": ms(values, 0.99)}
    return figures | {
        "client_cpu_cores": round(load.cpu / load.seconds, 2),
        "games_finished": load.games,
        "player_errors": load.errors,
        "healthz_errors": load.healthz_errors,
    }


async def benchmark(args, url: str, service: Service | None) -> dict:
    trace = aiohttp.TraceConfig()
    trace.on_request_headers_sent.append(_sent)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, trace_configs=[trace]) as session:
        print(f"phase idle: {args.players} players, {args.seconds:.0f} s", flush=True)
        idle = await run_load(session, url, args.players, args.seconds, 0)
        print(f"phase waiting: {args.waiters} waiters on {args.games} games", flush=True)
        waiting, figures = await waiting_phase(session, url, args, service)
    idle, waiting = phase_figures(idle), phase_figures(waiting)
    ratios = {k: round(waiting[k] / idle[k], 2) if idle[k] else None for k in list(idle)[:6]}
    return {"waiters": args.waiters, "games": args.games, "idle": idle, "waiting": waiting,
            "ratios": ratios, **figures}  # fmt: skip


LABELS = {
    "held": "connections held", "delivered": "events delivered",
    "log_gaps": "versions a viewer's log skips", "watched_finished": "watched games finished",
    "sse_ended": "SSE waiters that saw end", "rss_mib": "server RSS MiB",
    "redis_clients": "Redis connected_clients",
}  # fmt: skip


def label(key: str) -> str:
    return LABELS.get(key, key.replace("_per_s", "/s").replace("_", " "))


def report(r: dict) -> None:
    print(f"\n{r['waiters']} waiters on {r['games']} games")
    for key in ("held", "refused", "errors_once_held", "delivered", "missed", "duplicated",
                "log_gaps", "watched_finished", "sse_ended"):  # fmt: skip
        print(f"  {label(key):30}{r[key]:>8}")
    for why, count in r["refusals"].items():
        print(f"    refused: {count} x {why}")
    print(f"\n{'':26}{'idle':>10}{'waiting':>10}{'ratio':>8}")
    for key in r["idle"]:
        ratio = r["ratios"].get(key)
        print(f"  {label(key):24}{r['idle'][key]:>10}{r['waiting'][key]:>10}{ratio or '':>8}")
    if r["before"]:
        print(f"\n{'':26}{'before':>10}{'after':>10}{'per 1,000 held':>16}")
        for key in ("rss_mib", "redis_clients"):
            before, after = r["before"][key], r["after"][key]
            per = f"{(after - before) / r['held'] * 1000:.1f}" if r["held"] else "-"
            print(f"  {label(key):24}{before:>10}{after:>10}{per:>16}")


def targets(r: dict) -> list[str]:
    missed = []
    if r["refused"] or r["held"] < r["waiters"]:
        missed.append(f"{r['refused']} refused ({r['held']} of {r['waiters']} held)")
    missed += [f"{r[key]} {key}" for key in ("missed", "duplicated") if r[key]]
    if (r["ratios"]["actions_per_s"] or 0) < 0.80:
        missed.append(f"throughput ratio {r['ratios']['actions_per_s']} < 0.80")
    if not r["waiting"]["healthz_p99_ms"] < 100:
        missed.append(f"healthz p99 {r['waiting']['healthz_p99_ms']} ms under waiters >= 100")
    return missed


def log_summary(path: Path) -> None:
    """The service's warnings, errors and tracebacks, grouped (ids and numbers as #)."""
    lines = path.read_text(errors="replace").splitlines() if path.exists() else []
    odd = Counter()
    for line in filter(ODD_LOG_LINE.search, lines):
        with contextlib.suppress(ValueError, KeyError, TypeError):
            entry = json.loads(line)
            what = entry.get("route") and f"{entry['method']} {entry['route']} {entry['status']}"
            line = f"{entry['level']} {what or entry['message']}"
        odd[re.sub(r"\b[0-9a-f]{12,}\b|\d{3,}", "#", line)[:140]] += 1
    print(f"service log: {len(lines)} lines, {sum(odd.values())} warnings or errors")
    for what, count in odd.most_common(6):
        print(f"  {count:>6} x {what}")


def raise_fd_limit(waiters: int) -> int:
    """The client's soft open-files limit, raised to fit the waiters (not the server's)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * waiters + 1024
    if soft != resource.RLIM_INFINITY and soft < want:
        soft = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0, help="per phase")
    parser.add_argument("--games", type=int, help="watched games (default: waiters / 4)")
    parser.add_argument("--url", help="an already running server (then no RSS or Redis figures)")
    args = parser.parse_args()
    args.games = args.games or max(1, args.waiters // 4)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C: stop the server
    print("Schnapsen live benchmark (benchmarks/live.py)")
    with tempfile.TemporaryDirectory(prefix="schnapsen-live-") as tmp:
        log_path, service = Path(tmp) / "serve.log", None
        try:
            if args.url is None:
                with open(log_path, "wb") as log:
                    service = Service(Path(tmp) / "var", log)
                print(f"server: schnapsen-serve at {service.url}, embedded Redis, default "
                      f"settings but {', '.join(NO_RATE_LIMITS)}=0")  # fmt: skip
            print(f"client: open files limit {raise_fd_limit(args.waiters)}")
            result = asyncio.run(benchmark(args, args.url or service.url, service))
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        finally:
            if service:
                service.stop()
            if args.url is None:
                log_summary(log_path)
    report(result)
    missed = targets(result)
    print("\nTARGETS: " + ("ok" if not missed else "missed " + "; ".join(missed)))
    print(json.dumps(result | {"targets": missed or "ok"}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
