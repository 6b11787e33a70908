"""HTTP benchmark: full games against the real server and a real Redis.

    python benchmarks/api.py [--clients 4] [--seconds 20] [--long-games 2] [--baseline REV]

Starts Redis (REDIS_URL, or an embedded redis-server in a temporary folder)
and the API under gunicorn (gevent, 2 workers, as in
production), then, in one run:

1. throughput: ``--clients`` processes play whole human-vs-human games
   (each client holds both seats; uniform random legal actions) for
   ``--seconds``; prints actions/s and the p50/p99 latency of an action;
2. the same server's throughput on a trivial endpoint (GET /healthz) with
   the same clients, and the ratio of the two;
3. flat cost: one client plays long games (no claims, no closing, so every
   deal runs to its last trick) and compares the latency of actions at
   version 250 or more with those near version 10.

Figures are ratios within one run; the machine is shared and noisy.

``--baseline REV`` then compares the server's CPU time per request with the
API as it was at git revision REV (``benchmarks/baseline.py``: its tree, its
gunicorn command, the same worker class and counts, each server with an
embedded Redis of its own). The same games are played on both by one client,
``--rounds`` times: every action of ``--cpu-games`` seeded games (``POST
/v1/games/{id}/actions``) and, half-way through them, ``--views`` seat views
of each game (``GET /v1/games/{id}`` with its seat's token), in three windows
(the first half of the actions, the views, the rest), each played on the
baseline, then on this checkout. Creating and joining the games is not
counted. The figure is the CPU time (user + system, from ``/proc``) the
gunicorn master and its workers spent in a window of one kind of request,
divided by the requests sent. The load of a shared machine moves it far less
than a latency, but it does move it (a busy machine's cores do less a
second), hence the short windows in turn. It prints every round, the means
(all of a kind's CPU over all its requests) and the ratios now/baseline.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from baseline import BaselineTree, process_tree_cpu, serve  # noqa: E402  (beside this script)
from gunicorns import ONE_MACHINE, start_api  # noqa: E402  (a module beside this script)

from service.devtools.embedded_redis import EmbeddedRedis  # noqa: E402
from service.serve.gunicorn_workers import gunicorn_command  # noqa: E402


def start_server(redis_url: str, port: int) -> subprocess.Popen[bytes]:
    settings = {"REDIS_URL": redis_url, "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE": "0"}
    return start_api(port, settings, connections=5000)[0]


def play_game(
    session: requests.Session,
    url: str,
    rng: random.Random,
    *,
    patient: bool = False,
    variant: str = "head",
) -> list[tuple[int, float]]:
    """Play one game to its end; return (version before, seconds) of every action."""
    created = session.post(f"{url}/v1/games", json={"variant": variant}).json()
    game = created["game_id"]
    joined = session.post(f"{url}/v1/games/{game}/join", json={"invite": created["invite"]}).json()
    tokens = {0: created["token"], 1: joined["token"]}
    view = joined["game"]
    timings = []
    while view["status"] != "finished":
        seat = view["to_move"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["seat"] != seat:
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
        choices = view["deal"]["legal_actions"]
        if patient:
            calm = [a for a in choices if a["type"] not in ("claim", "close_talon")]
            choices = calm or choices
        action = rng.choice(choices)
        started = time.perf_counter()
        response = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
        timings.append((view["version"], time.perf_counter() - started))
        if response.status_code != 200:
            raise RuntimeError(f"action refused: {response.status_code} {response.text}")
        view = response.json()
    return timings


def _games_worker(args: tuple[str, float, int]) -> tuple[int, int, list[float], int]:
    url, seconds, seed = args
    rng = random.Random(seed)
    session = requests.Session()
    deadline = time.monotonic() + seconds
    latencies: list[float] = []
    games = 0
    errors = 0
    while time.monotonic() < deadline:
        try:
            latencies += [t for _v, t in play_game(session, url, rng)]
            games += 1
        except (RuntimeError, requests.RequestException):
            errors += 1
    return games, len(latencies), latencies, errors


def trivial_worker(args: tuple[str, float]) -> tuple[int, int]:
    """GET /healthz for ``seconds``: the same server's rate on a trivial endpoint."""
    url, seconds = args
    session = requests.Session()
    deadline = time.monotonic() + seconds
    count = errors = 0
    while time.monotonic() < deadline:
        if session.get(f"{url}/healthz").ok:
            count += 1
        else:
            errors += 1
    return count, errors


def benchmark_redis(prefix: str) -> tuple[EmbeddedRedis | None, str]:
    """REDIS_URL when set, else an embedded redis-server in a temporary folder."""
    if os.environ.get("REDIS_URL"):
        return None, os.environ["REDIS_URL"]
    embedded = EmbeddedRedis(tempfile.mkdtemp(prefix=prefix)).start()
    return embedded, embedded.url


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--long-games", type=int, default=3)
    parser.add_argument("--port", type=int, default=8931)
    parser.add_argument("--baseline", metavar="REV", help="compare server CPU with revision REV")
    parser.add_argument("--rounds", type=int, default=5, help="with --baseline")
    parser.add_argument("--cpu-games", type=int, default=12, help="games a round, each server")
    parser.add_argument("--views", type=int, default=100, help="seat views a game, a round")
    parser.add_argument(
        "--from-source",
        action="store_true",
        help="with --baseline: both servers run their sources, nothing compiled (no build)",
    )
    args = parser.parse_args()
    status = throughput(args)
    if status == 0 and args.baseline:
        status = compare(args)
    return status


def throughput(args: argparse.Namespace) -> int:
    """Whole games, a trivial endpoint, and the flat cost: one server, this checkout."""

    embedded, redis_url = benchmark_redis("schnapsen-bench-")
    server = start_server(redis_url, args.port)
    url = f"http://127.0.0.1:{args.port}"
    try:
        print("Schnapsen API benchmark (benchmarks/api.py)")
        print(f"server: gunicorn gevent x2 on {url}, Redis at {redis_url}")
        print(f"clients: {args.clients} processes, {args.seconds:.0f} s per phase\n")
        with multiprocessing.Pool(args.clients) as pool:
            started = time.perf_counter()
            jobs = [(url, args.seconds, seed) for seed in range(args.clients)]
            results = pool.map(_games_worker, jobs)
            elapsed = time.perf_counter() - started
            games = sum(r[0] for r in results)
            actions = sum(r[1] for r in results)
            latencies = [t for r in results for t in r[2]]
            errors = sum(r[3] for r in results)
            action_rate = actions / elapsed
            print(f"full games:      {games} games, {actions} actions, {errors} errors")
            print(f"actions:         {action_rate:,.0f} actions/s")
            print(
                f"action latency:  p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms"
            )
            started = time.perf_counter()
            trivial = pool.map(trivial_worker, [(url, args.seconds / 2)] * args.clients)
            elapsed = time.perf_counter() - started
            trivial_rate = sum(r[0] for r in trivial) / elapsed
            print(
                f"GET /healthz:    {trivial_rate:,.0f} requests/s (trivial endpoint, same clients)"
            )
            print(f"ratio:           an action costs {trivial_rate / action_rate:.1f}x a trivial request "
                  f"(actions/s = {action_rate / trivial_rate:.2f} x trivial/s)\n")  # fmt: skip

        session = requests.Session()
        rng = random.Random(7)
        early: list[float] = []
        late: list[float] = []
        longest = 0
        for _ in range(args.long_games * 10):
            timings = play_game(session, url, rng, patient=True)
            longest = max(longest, timings[-1][0] + 1)
            early += [t for v, t in timings if 5 <= v <= 15]
            late += [t for v, t in timings if v >= 250]
            if len(late) >= 20 * args.long_games:
                break
        if not late:
            print(f"flat cost:       no game reached version 250 (longest: {longest})")
            return 1
        ratio = statistics.median(late) / statistics.median(early)
        print(
            f"flat cost:       median action at version 5-15: {statistics.median(early) * 1000:.2f} ms "
            f"({len(early)} actions); at version >= 250: {statistics.median(late) * 1000:.2f} ms "
            f"({len(late)} actions); ratio {ratio:.2f} (longest game: {longest} versions)"
        )
    finally:
        server.terminate()
        server.wait(timeout=15)
        if embedded is not None:
            embedded.stop()
    return 0


# -- server CPU per request, against a baseline revision ---------------------------------

#: One recorded game: its seed, and every action with the seat that took it.
Script = tuple[int, list[tuple[int, dict[str, Any]]]]


@dataclass(frozen=True)
class Server:
    """One of the two servers compared: its name, gunicorn process, URL and Redis."""

    name: str
    process: subprocess.Popen[bytes]
    url: str
    redis: EmbeddedRedis | None

    def cpu(self) -> float:
        return process_tree_cpu(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=15)
        if self.redis is not None:
            self.redis.stop()


@dataclass
class Tally:
    """CPU seconds a server spent on one kind of request, and how many it answered."""

    seconds: float = 0.0
    requests: int = 0

    def add(self, other: Tally) -> None:
        self.seconds += other.seconds
        self.requests += other.requests

    @property
    def ms(self) -> float:
        return self.seconds * 1000 / self.requests if self.requests else float("nan")


def new_game(
    session: requests.Session, url: str, seed: int
) -> tuple[str, dict[int, str], dict[str, Any]]:
    """A seeded human-vs-human game with both seats taken: (id, tokens, seat 1's view)."""
    created = session.post(f"{url}/v1/games", json={"seed": seed, "first_dealer": 0})
    created.raise_for_status()
    game, invite = created.json()["game_id"], created.json()["invite"]
    joined = session.post(f"{url}/v1/games/{game}/join", json={"invite": invite})
    joined.raise_for_status()
    return game, {0: created.json()["token"], 1: joined.json()["token"]}, joined.json()["game"]


def record(url: str, seed: int) -> Script:
    """Play the seeded game ``seed`` to its end with random legal actions (not measured)."""
    session = requests.Session()
    rng = random.Random(seed)
    game, tokens, view = new_game(session, url, seed)
    actions: list[tuple[int, dict[str, Any]]] = []
    while view["status"] != "finished":
        seat = view["to_move"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["seat"] != seat:
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
        action = rng.choice(view["deal"]["legal_actions"])
        response = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
        response.raise_for_status()
        actions.append((seat, action))
        view = response.json()
    return seed, actions


Request = tuple[str, str, "dict[str, Any] | None", str]  # method, path, body, token


def measured_round(
    servers: list[Server], scripts: dict[str, list[Script]], views: int
) -> dict[str, tuple[Tally, Tally]]:
    """The recorded games played again on every server, one request at a time: the first
    half of every game's actions, ``views`` seat views of every game (seats in turn:
    games under way), then the rest of the actions; each of the three windows on one
    server, then on the next, so that a change in the machine's load falls on both.
    Per server: (its actions' CPU, its views' CPU)."""
    sessions = {server.name: requests.Session() for server in servers}
    games = {
        server.name: [
            new_game(sessions[server.name], server.url, seed)[:2]
            for seed, _ in scripts[server.name]
        ]
        for server in servers
    }

    def actions(name: str, first: bool) -> list[Request]:
        sent = []
        for (game, tokens), (_, script) in zip(games[name], scripts[name], strict=True):
            half = len(script) // 2
            for seat, action in script[:half] if first else script[half:]:
                sent.append(("POST", f"/v1/games/{game}/actions", action, tokens[seat]))
        return sent

    def seen(name: str) -> list[Request]:
        return [("GET", f"/v1/games/{game}", None, tokens[i % 2])
                for game, tokens in games[name] for i in range(views)]  # fmt: skip

    def window(server: Server, sent: list[Request]) -> Tally:
        session = sessions[server.name]
        before = server.cpu()
        for method, path, body, token in sent:
            headers = {"Authorization": f"Bearer {token}"}
            answer = session.request(method, server.url + path, json=body, headers=headers)
            if answer.status_code != 200:
                raise RuntimeError(f"{server.name}: {method} {path} refused: {answer.text}")
        return Tally(server.cpu() - before, len(sent))

    tallies = {server.name: (Tally(), Tally()) for server in servers}
    for step in ("first actions", "views", "last actions"):
        for server in servers:
            acted, viewed = tallies[server.name]
            if step == "views":
                viewed.add(window(server, seen(server.name)))
            else:
                acted.add(window(server, actions(server.name, first=step == "first actions")))
    return tallies


def start_pair(args: argparse.Namespace) -> list[Server]:
    """The baseline's server and this checkout's, alike but for their code."""
    tree = BaselineTree.extract(args.baseline, compiled=not args.from_source)
    settings = {
        **ONE_MACHINE,
        "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE": "0",
        **({"SCHNAPSEN_PURE_PYTHON": "1"} if args.from_source else {}),
    }
    servers = []
    for name, port in (("baseline", args.port + 1), ("now", args.port + 2)):
        redis, redis_url = benchmark_redis(f"schnapsen-cpu-{name}-")
        env = {**settings, "REDIS_URL": redis_url}
        if name == "baseline":
            command = tree.gunicorn_command(port, connections=1000)
            loaded = tree.check(command[-1], env)
            print(f"baseline {tree.commit[:10]}: {command[-1]} from {loaded}")
            process = serve(command, cwd=tree.root, env=tree.environment(env), port=port)
        else:
            command = gunicorn_command(
                f"127.0.0.1:{port}", workers=2, connections=1000, log_level="warning"
            )
            print(f"now (this checkout): {command[-1]} from {REPO}")
            process = serve(command, cwd=REPO, env=dict(os.environ, **env), port=port)
        servers.append(Server(name, process, f"http://127.0.0.1:{port}", redis))
    return servers


def compare(args: argparse.Namespace) -> int:
    """Baseline, this checkout, baseline, ...: the server's CPU per action and per view."""
    print(f"\nServer CPU per request against {args.baseline} (one client, one request at a "
          f"time; {args.cpu_games} games, {args.views} views a game, {args.rounds} rounds; "
          f"{'from source' if args.from_source else 'compiled'})")  # fmt: skip
    servers = start_pair(args)
    try:
        seeds = [1000 + n for n in range(args.cpu_games)]
        scripts = {server.name: [record(server.url, seed) for seed in seeds] for server in servers}
        same = scripts["baseline"] == scripts["now"]
        print(f"the same games on both servers: {'yes' if same else 'NO (their dealing differs)'}")
        totals = {(s.name, kind): Tally() for s in servers for kind in ("action", "view")}
        for round_ in range(1, args.rounds + 1):
            cells = []
            tallies = measured_round(servers, scripts, args.views)
            for server in servers:
                acted, seen = tallies[server.name]
                totals[server.name, "action"].add(acted)
                totals[server.name, "view"].add(seen)
                cells.append(
                    f"{server.name}: action {acted.ms:.3f} ms ({acted.requests}), "
                    f"view {seen.ms:.3f} ms ({seen.requests})"
                )
            print(f"round {round_}: " + " | ".join(cells), flush=True)
        for kind in ("action", "view"):
            old, new = totals["baseline", kind], totals["now", kind]
            print(f"mean CPU per {kind}: baseline {old.ms:.3f} ms, now {new.ms:.3f} ms "
                  f"({old.requests} and {new.requests} requests)")  # fmt: skip
        for kind in ("action", "view"):
            ratio = totals["now", kind].ms / totals["baseline", kind].ms
            print(f"ratio {kind} (now/baseline): {ratio:.2f}")
    finally:
        for server in servers:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
