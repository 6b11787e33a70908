"""Live benchmark: thousands of waiting clients (SSE and long-poll) beside players.

    python benchmarks/live.py [--waiters 2000] [--players 4] [--seconds 12] [--rounds 3]
                              [--games G] [--url http://127.0.0.1:8000]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, default
settings, a temporary ``--data-dir``; only the per-address and per-token rate
limits and the per-address share of waiting slots are off, since one machine
plays every client), or uses ``--url``,
then in one run, with asyncio clients (benchmarks/live_clients.py): the
players and the health check in this process, each segment's waiters in a
process of their own (benchmarks/live_waiters.py), since real waiters are
other devices and on the players' loop their reading delayed the players:

- idle segments: ``--players`` clients play human-vs-human games (both seats,
  random legal actions, a new game when one ends) for ``--seconds``, while one
  client times ``GET /healthz`` every 20 ms;
- waiting segments: ``--waiters`` clients wait on ``--games`` games (default
  waiters/4: four waiters a game, as a game's two seats plus spectators
  would), half on the SSE stream, half long-polling ``/events?wait=25``, as
  seat 0, seat 1 or a spectator. Once all are connected (or refused), the same
  players play again for ``--seconds``, half of them the watched games, so
  waiters get events and see games finish; then every waiter's events are
  checked and the waiters leave. With ``--no-deliveries`` the players play
  other games only: the waiters get nothing, and the ratios show what holding
  them costs alone (a diagnostic, not the target's run: TARGETS says so).

The segments run ``--rounds`` times in the order idle, waiting | waiting,
idle | idle, waiting ...: these machines are shared and noisy, and
alternating the order cancels a steady drift of the machine's speed (3 s
of play before the first round warm the server up; 3 s after each waiting
segment let its connections close). A
phase's figures pool its segments; each round's throughput ratio is printed
beside the pooled one.

How to read it. A waiter is *held* when its connection is open (SSE: 200 and
headers received; long-poll: its request sent and not refused) and *refused*
when its first request got an error (503 ``too_many_waiting``, say); refused
waiters stop. Every held waiter's received versions are compared with the
log as that viewer sees it, from its start up to the head when the players
stopped: *missed* versions never arrived, *duplicated* ones arrived twice
(both must be 0). The waiting/idle ratios show what holding the waiters costs
the players and the health check; "client cpu cores" (the players' process
and, while they play, the waiters') and "client loop lag" (how late the
players' loop woke from 2 ms sleeps, on average) show whether the client
itself was the limit. With the local server, "cpu cores" and "cpu ms an
action" rows split each phase's CPU between the server (gunicorn), its Redis,
the clients and the whole machine (busy time of every core, the kernel's
network work included): two cores busy means the machine was saturated, and
then the waiting/idle ratio of the machine's CPU an action is about the
inverse of the throughput ratio. Server RSS (the gunicorn processes) and
the embedded Redis's ``connected_clients`` (ours not counted) before and after the first
waiters connect give memory and Redis connections per 1,000 held waiters.
Warnings and errors in the service's log are counted and grouped before the
table; the last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

import aiohttp
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_clients import (  # noqa: E402  (a script beside its client module)
    Load,
    auth,
    call,
    gather_limited,
    new_game,
    run_load,
)

REPO = Path(__file__).resolve().parent.parent
#: Limits per client address and seat token: off, since every client here is one address.
LIMITS = (
    "RATE_LIMIT_PER_IP",
    "RATE_LIMIT_PER_TOKEN",
    "GAMES_PER_ADDRESS_PER_HOUR",
    "MAX_WAITING_PER_ADDRESS",
    "CONNECTIONS_PER_ADDRESS",
)
NO_RATE_LIMITS = {f"SCHNAPSEN_{name}": "0" for name in LIMITS}
ODD_LOG_LINE = re.compile(r'"level": "(WARNING|ERROR|CRITICAL)"|\[(ERROR|CRITICAL)\]|Traceback')


async def watched_games(session, url: str, games: list[dict], count: int) -> list[dict]:
    """``count`` unfinished games to watch, each with seat 1's view now: the games of
    earlier segments that are still running, topped up with new ones."""

    async def refresh(game: dict) -> dict:
        view = await call(session, "GET", f"{url}/v1/games/{game['id']}",
                          headers=auth(game, 1), retries=5)  # fmt: skip
        return game | {"view": view}

    running = [g for g in await gather_limited(map(refresh, games)) if g["view"]["status"]
               != "finished"]  # fmt: skip
    fresh = count - len(running)
    return running + await gather_limited(new_game(session, url, retries=3) for _ in range(fresh))


async def waiting_segment(session, url: str, args, games: list[dict], seed: int,
                          service: Service | None) -> tuple[Load, dict]:  # fmt: skip
    """Waiters connect (in their own process), players play (half of them the watched
    games), waiters are checked."""
    figures = {"before": service.sample() if service else {}}
    waiters = await WaiterProcess.start(url, games, args.waiters)
    try:
        figures |= await waiters.answer()  # held and refusals, once all are connected
        figures["after"] = service.sample() if service else {}
        figures |= {"refused": sum(figures["refusals"].values())}
        print(f"  waiters: {figures['held']} held, {figures['refused']} refused", flush=True)
        watched = None if args.no_deliveries else games[::-1]
        load = await measured(
            service, run_load(session, url, args.players, args.seconds, seed, watched), waiters
        )
        views = await gather_limited(
            call(session, "GET", f"{url}/v1/games/{g['id']}", retries=5) for g in games
        )
        await waiters.send({"heads": {view["game_id"]: view["version"] for view in views}})
        figures |= await waiters.answer()  # missed, duplicated, delivered ...
    finally:
        await waiters.close()
    finished = sum(view["status"] == "finished" for view in views)
    return load, figures | {"watched_finished": finished}


class WaiterProcess:
    """``live_waiters.py`` as a child process: one segment's waiting clients, which
    read their deliveries on a loop of their own rather than the players' (see there)."""

    SCRIPT = Path(__file__).resolve().parent / "live_waiters.py"

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, url: str, games: list[dict], count: int) -> WaiterProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(cls.SCRIPT),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        waiters = cls(process)
        await waiters.send({"url": url, "games": games, "count": count})
        return waiters

    async def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def answer(self) -> dict:
        line = await self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.SCRIPT.name} ended without answering")
        return json.loads(line)

    def cpu_seconds(self) -> float:
        return cpu_seconds([self.process.pid])

    async def close(self) -> None:
        """End of input: the waiters leave and the process ends (killed after 60 s)."""
        if not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 60)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


async def measured(service: Service | None, segment, waiters: WaiterProcess | None = None) -> Load:
    """A segment's load; with a local server, what its parts' CPU did meanwhile. The
    client's CPU is the players' process and, while they play, the waiters' process."""
    before = service.cpu() if service else {}
    waiters_before = waiters.cpu_seconds() if waiters else 0.0
    load = await segment
    if waiters:
        load.cpu += waiters.cpu_seconds() - waiters_before
    if service:
        load.parts = {part: used - before[part] for part, used in service.cpu().items()}
    return load


def cpu_seconds(pids: list[int]) -> float:
    """The user + system CPU time processes ``pids`` have used (``/proc``; gone ones: 0)."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU time the whole machine has been busy, every core: user, nice, system, irq and
    softirq time (not idle or iowait, nor time a hypervisor stole; guest time is in user)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


class Service:
    """``schnapsen-serve --port <free> --data-dir <data_dir>`` (as ``python -m
    service.serve.run``); no REDIS_URL: embedded Redis."""

    def __init__(self, data_dir: Path, log, settings: dict[str, str] | None = None) -> None:
        """``settings``: environment variables on top of this process's (default: the
        rate limits off, ``NO_RATE_LIMITS``)."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        # ``python -m`` from the checkout (cwd): this checkout's code, even when the
        # installed ``schnapsen-serve`` script belongs to another one.
        command = [sys.executable, "-m", "service.serve.run"]
        drop = ("REDIS_URL", "QUEUE_REDIS_URL", "SCHNAPSEN_SECRET_KEY")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env |= NO_RATE_LIMITS if settings is None else settings
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

    def gunicorn_pids(self) -> list[int]:
        """The command's descendants whose command line names gunicorn."""
        return self.descendants(b"gunicorn")

    def redis_pids(self) -> list[int]:
        """The embedded Redis (a descendant whose command line names redis-server)."""
        return self.descendants(b"redis-server")

    def descendants(self, named: bytes) -> list[int]:
        """The command's descendant processes whose command line contains ``named``."""
        children: dict[int, list[int]] = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
                children.setdefault(int(parent), []).append(int(pid))
        found, todo = [], [self.process.pid]
        while todo:
            for pid in children.get(todo.pop(), []):
                todo.append(pid)
                with contextlib.suppress(OSError):
                    if named in Path(f"/proc/{pid}/cmdline").read_bytes():
                        found.append(pid)
        return found

    def gunicorn_rss_kib(self) -> int:
        """The VmRSS of the gunicorn processes."""
        rss = 0
        for pid in self.gunicorn_pids():
            with contextlib.suppress(OSError, AttributeError):
                status = Path(f"/proc/{pid}/status").read_text()
                rss += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        return rss

    def gunicorn_cpu_seconds(self) -> float:
        """The user + system CPU time the gunicorn processes have used."""
        return cpu_seconds(self.gunicorn_pids())

    def redis_cpu_seconds(self) -> float:
        """The user + system CPU time the embedded Redis has used."""
        return cpu_seconds(self.redis_pids())

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far: the server, its Redis, the whole machine (busy time)."""
        return {
            "server": self.gunicorn_cpu_seconds(),
            "redis": self.redis_cpu_seconds(),
            "machine": machine_busy_seconds(),
        }

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


def pooled(loads: list[Load]) -> Load:
    """One phase's segments as one load: their samples and seconds together."""
    pool = Load()
    for load in loads:
        pool.latencies += load.latencies
        pool.healthz += load.healthz
        pool.lags += load.lags
        for name in ("errors", "healthz_errors", "games", "seconds", "cpu"):
            setattr(pool, name, getattr(pool, name) + getattr(load, name))
        for part, seconds in load.parts.items():
            pool.parts[part] = pool.parts.get(part, 0.0) + seconds
    return pool


def phase_figures(load: Load) -> dict:
    def ms(values: list[float], fraction: float) -> float:
        ordered = sorted(values) or [float("nan")]
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000, 2)

    figures = {"actions_per_s": round(len(load.latencies) / load.seconds, 1)}
    for name, values in (("action", load.latencies), ("healthz", load.healthz)):
        figures |= {f"{name}_p50_ms": ms(values, 0.5), f"{name}_p99_ms": ms(values, 0.99)}
    figures["client_loop_lag_ms"] = round(1000 * statistics.fmean(load.lags or [0.0]), 2)
    used = {"client": load.cpu, **load.parts}
    actions = max(1, len(load.latencies))
    cpu = {f"{part}_cpu_cores": round(seconds / load.seconds, 2) for part, seconds in used.items()}
    cpu |= {f"{part}_cpu_ms_an_action": round(1000 * seconds / actions, 2)
            for part, seconds in used.items()}  # fmt: skip
    counts = {"games_finished": load.games, "player_errors": load.errors}
    return figures | cpu | counts | {"healthz_errors": load.healthz_errors}


def throughput(load: Load) -> float:
    return len(load.latencies) / load.seconds


#: Seconds for the server (and this client) to close 2,000 connections before the next
#: segment starts, so an idle segment does not pay for the waiters that just left.
AFTER_WAITERS_LEAVE = 3.0
COUNTS = ("held", "refused", "errors_once_held", "delivered", "missed", "duplicated",
          "log_gaps", "watched_finished", "sse_ended")  # fmt: skip


async def benchmark(args, url: str, service: Service | None) -> dict:
    connector = aiohttp.TCPConnector(limit=0)
    idle: list[Load] = []
    waiting: list[Load] = []
    segments: list[dict] = []
    async with aiohttp.ClientSession(connector=connector) as session:
        games: list[dict] = []
        print("warm-up: 3 s of play, not counted", flush=True)
        await run_load(session, url, args.players, 3, seed=999_999)
        for round_number in range(args.rounds):
            order = ("idle", "waiting") if round_number % 2 == 0 else ("waiting", "idle")
            for kind in order:
                seed = 1000 * len(idle + waiting)
                print(f"round {round_number + 1} {kind}: {args.players} players, "
                      f"{args.seconds:.0f} s", flush=True)  # fmt: skip
                if kind == "idle":
                    load = run_load(session, url, args.players, args.seconds, seed)
                    idle.append(await measured(service, load))
                    continue
                games = await watched_games(session, url, games, args.games)
                load, figures = await waiting_segment(session, url, args, games, seed, service)
                waiting.append(load)
                segments.append(figures)
                await asyncio.sleep(AFTER_WAITERS_LEAVE)
    rounds = [round(throughput(w) / throughput(i), 2) for i, w in zip(idle, waiting, strict=True)]
    idle_figures, waiting_figures = phase_figures(pooled(idle)), phase_figures(pooled(waiting))
    ratios = {
        key: round(waiting_figures[key] / idle_figures[key], 2) if idle_figures[key] else None
        for key in idle_figures
        if key.endswith(("_per_s", "_ms", "_cores", "_an_action"))
    }
    totals = {key: sum(s[key] for s in segments) for key in COUNTS if key != "held"}
    refusals = Counter()
    for segment in segments:
        refusals.update(segment["refusals"])
    return {
        "waiters": args.waiters, "games": args.games, "rounds": args.rounds,
        "idle": idle_figures, "waiting": waiting_figures, "ratios": ratios,
        "round_ratios": rounds, "median_round_ratio": statistics.median(rounds),
        "round_actions_per_s": [[round(throughput(i), 1), round(throughput(w), 1)]
                                for i, w in zip(idle, waiting, strict=True)],
        "before": segments[0]["before"], "after": segments[0]["after"],
        "held": min(s["held"] for s in segments), "refusals": dict(refusals), **totals,
    }  # fmt: skip


LABELS = {
    "held": "connections held (fewest)", "delivered": "events delivered",
    "log_gaps": "versions a viewer's log skips", "watched_finished": "watched games finished",
    "sse_ended": "SSE waiters that saw end", "rss_mib": "server RSS MiB",
    "redis_clients": "Redis connected_clients",
}  # fmt: skip


def label(key: str) -> str:
    return LABELS.get(key, key.replace("_per_s", "/s").replace("_", " "))


def report(r: dict) -> None:
    print(f"\n{r['waiters']} waiters on {r['games']} games, {r['rounds']} rounds")
    for key in COUNTS:
        print(f"  {label(key):30}{r[key]:>8}")
    for why, count in r["refusals"].items():
        print(f"    refused: {count} x {why}")
    print(f"\n{'':26}{'idle':>10}{'waiting':>10}{'ratio':>8}")
    for key in r["idle"]:
        ratio = r["ratios"].get(key)
        print(f"  {label(key):24}{r['idle'][key]:>10}{r['waiting'][key]:>10}{ratio or '':>8}")
    rounds = ", ".join(map(str, r["round_ratios"]))
    print(f"  throughput ratio by round: {rounds} (median {r['median_round_ratio']})")
    segments = ", ".join(f"{i} / {w}" for i, w in r["round_actions_per_s"])
    print(f"  actions/s by round, idle / waiting: {segments}")
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
    parser.add_argument("--seconds", type=float, default=12.0, help="per segment")
    parser.add_argument("--rounds", type=int, default=3, help="idle and waiting segment pairs")
    parser.add_argument("--games", type=int, help="watched games (default: waiters / 4)")
    parser.add_argument("--url", help="an already running server (then no RSS or Redis figures)")
    parser.add_argument(
        "--no-deliveries",
        action="store_true",
        help="players avoid the watched games: what holding the waiters costs alone",
    )
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
    run = " (a --no-deliveries run: not the target's)" if args.no_deliveries else ""
    print(f"\nTARGETS{run}: " + ("ok" if not missed else "missed " + "; ".join(missed)))
    print(json.dumps(result | {"targets": missed or "ok"}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
