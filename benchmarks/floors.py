"""The floors under an action: bare Flask, Flask plus one Redis script call, and the
project's POST action and GET view, measured with wrk in one run.

    python benchmarks/floors.py [--seconds 10] [--warmup 2] [--connections 8] [--threads 2]

Every server runs the API's own gunicorn command (``gunicorn_command``: the
project's gevent worker, 2 processes) on loopback, against one Redis
(REDIS_URL, or an embedded redis-server in a temporary folder):

- bare Flask: ``GET /bare`` of ``benchmarks/floor_app.py``, a small JSON answer;
- one script: ``GET /script`` of the same app, one EVALSHA of a trivial script
  before the same answer: the least a request that reaches Redis costs;
- the action: ``POST /v1/games/{id}/actions``, human-against-human games
  created beforehand with a seed, each seat's next action known from the engine,
  so every request is a legal move; each wrk thread plays its own games, one
  request in flight a game (the answer's game id frees the game for its next
  move);
- the view: ``GET /v1/games/{id}`` with a seat's token, of one game in play.

The API runs with its rate limits counted (quotas too high to refuse), as a
deployment does. Prints each one's requests a second and errors (non-2xx
answers and socket errors), and the ratios action/one-script and
view/one-script. Figures are ratios within one run: the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from api import benchmark_redis  # noqa: E402  (beside this script)
from gunicorns import ONE_MACHINE, start_api  # noqa: E402  (beside this script)

from service.engine import (  # noqa: E402
    Dealing,
    DealStarted,
    GameCreated,
    SeatTaken,
    Variant,
    decide,
    legal_actions,
    replay,
)
from service.game import dealing  # noqa: E402
from service.serve.gunicorn_workers import gunicorn_command  # noqa: E402

#: Quotas no benchmark reaches: the limits are counted, as deployed, and never refuse.
COUNTED_LIMITS = {
    "SCHNAPSEN_RATE_LIMIT_PER_IP": "1000000000",
    "SCHNAPSEN_RATE_LIMIT_PER_TOKEN": "1000000000",
}
#: Games are planned for this many times the one-script floor's rate, measured first on
#: the same machine: an action (a script call and the rules) is served at about half that
#: rate. On a shared machine the floor may be measured in a slow moment: games that run
#: out anyway are planned again, twice as many, and the action measured again.
PLANNED_OVER_FLOOR = 1.25
#: How often the action is measured again with twice the games before giving up.
REPLANS = 3
#: The actions a planned game makes, at fewest (a deal takes at least ten).
ACTIONS_A_GAME_AT_FEWEST = 40

#: Each wrk thread plays its own games (``thread_games``); a game is sent its next move
#: only once the answer to its last one came back.
ACTIONS_LUA = r"""
local threads, counter = {}, 0
function setup(thread)
  thread:set("id", counter)
  table.insert(threads, thread)
  counter = counter + 1
end
function init(args)
  dofile(args[1])
  mine = thread_games(id, tonumber(args[2]))
  ready, waiting, exhausted = {}, {}, 0
  for i = 1, #mine do table.insert(ready, i) end
end
function request()
  local i = table.remove(ready)
  if i == nil then
    exhausted = exhausted + 1
    return wrk.format("GET", "/floors/out-of-games")
  end
  local game = mine[i]
  game.next = game.next + 1
  waiting[game.id] = i
  return wrk.format("POST", "/v1/games/" .. game.id .. "/actions",
    {["Authorization"] = "Bearer " .. game.tokens[game.next],
     ["Content-Type"] = "application/json"}, game.actions[game.next])
end
function response(status, headers, body)
  local id = string.match(body, '"game_id"%s*:%s*"(%w+)"')
  local i = id and waiting[id]
  if status == 200 and i then
    waiting[id] = nil
    if mine[i].next < #mine[i].actions then table.insert(ready, 1, i) end
  end
end
function done(summary, latency, requests)
  local out = 0
  for _, thread in ipairs(threads) do out = out + thread:get("exhausted") end
  io.write(string.format("out of games: %d\n", out))
end
"""


class OutOfGames(RuntimeError):
    """wrk's threads ran out of planned games before the run's end."""


@dataclass(frozen=True, slots=True)
class Run:
    """One wrk run: requests a second, and the requests that failed."""

    name: str
    rate: float
    errors: int


@dataclass(frozen=True, slots=True)
class Planned:
    """A game made over HTTP, with every action of its seats until it ends."""

    game_id: str
    tokens: tuple[str, ...]
    actions: tuple[str, ...]


def start_floor_app(redis_url: str, port: int) -> subprocess.Popen[bytes]:
    """``floor_app.create()`` under the API's gunicorn command (its worker, its counts)."""
    command = gunicorn_command(
        f"127.0.0.1:{port}", workers=2, connections=1000, log_level="warning"
    )
    command = [*command[:-1], "--pythonpath", str(HERE), "floor_app:create()"]
    env = dict(os.environ, **ONE_MACHINE, REDIS_URL=redis_url)
    process = subprocess.Popen(command, cwd=REPO, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if requests.get(f"http://127.0.0.1:{port}/script", timeout=5).ok:
                return process
        except requests.RequestException:  # not listening yet
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the floor app did not start")


def plan_game(session: requests.Session, url: str, seed: int, variant: Variant) -> Planned:
    """Create and join a seeded game, then play it to its end in the engine: every
    deck follows the seed, so each seat's moves are known before any is sent."""
    created = session.post(f"{url}/v1/games", json={"variant": variant.value, "seed": seed})
    created.raise_for_status()
    game = created.json()
    joined = session.post(f"{url}/v1/games/{game['game_id']}/join", json={"invite": game["invite"]})
    joined.raise_for_status()
    tokens = (game["token"], joined.json()["token"])
    first = dealing.first_dealer(seed)
    state = replay(
        [
            GameCreated(variant, first, Dealing.SEEDED),
            SeatTaken(0, "human"),
            SeatTaken(1, "human"),
            DealStarted(1, first, dealing.seeded_deck(seed, 1)),
        ]
    )
    rng = random.Random(seed)
    seats: list[str] = []
    actions: list[str] = []
    while not state.over:
        seat = state.to_move
        assert seat is not None
        action = rng.choice(legal_actions(state))
        state = decide(state, seat, action, lambda n: dealing.seeded_deck(seed, n)).state
        seats.append(tokens[seat])
        actions.append(json.dumps(action.to_dict()))
    return Planned(game["game_id"], tuple(seats), tuple(actions))


def games_lua(games: Sequence[Planned], path: Path) -> None:
    """The planned games as a Lua file: ``thread_games(id, threads)`` gives a thread its own."""
    lines = ["local games = {"]
    for game in games:
        tokens = ", ".join(json.dumps(token) for token in game.tokens)
        actions = ", ".join(json.dumps(action) for action in game.actions)
        lines.append(f'  {{id = "{game.game_id}", next = 0, tokens = {{{tokens}}},')
        lines.append(f"   actions = {{{actions}}}}},")
    lines += [
        "}",
        "function thread_games(id, threads)",
        "  local mine = {}",
        "  for i = 1, #games do",
        "    if (i - 1) % threads == id then table.insert(mine, games[i]) end",
        "  end",
        "  return mine",
        "end",
    ]
    path.write_text("\n".join(lines) + "\n")


def wrk(
    name: str,
    url: str,
    args: argparse.Namespace,
    seconds: float,
    *,
    headers: Sequence[str] = (),
    script: Sequence[str] = (),
) -> Run:
    """wrk against ``url`` (``script``: its Lua file, then that file's arguments);
    its requests a second and its errors (non-2xx answers, socket errors)."""
    command = [
        "wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{max(1, round(seconds))}s",
        "--timeout", "10s",
    ]  # fmt: skip
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", script[0], url, "--", *script[1:]]
    else:
        command.append(url)
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    if rate is None:
        raise RuntimeError(f"wrk said no rate:\n{out}")
    errors = 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non_2xx:
        errors += int(non_2xx.group(1))
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    if sockets:
        errors += sum(int(count) for count in sockets.groups())
    out_of_games = re.search(r"^out of games: (\d+)", out, re.M)
    if out_of_games and int(out_of_games.group(1)):
        raise OutOfGames(f"{name}: the planned games ran out; plan more (--games)")
    return Run(name, float(rate.group(1)), errors)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each measured run")
    parser.add_argument("--warmup", type=float, default=2.0, help="each unmeasured run first")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--games", type=int, help="games planned (default: enough)")
    parser.add_argument("--variant", default="head", choices=[v.value for v in Variant])
    parser.add_argument("--port", type=int, default=8961, help="the API; the floors: +1")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian: apt-get install wrk)", file=sys.stderr)
        return 2

    embedded, redis_url = benchmark_redis("schnapsen-floors-")
    processes: list[subprocess.Popen[bytes]] = []
    folder = Path(tempfile.mkdtemp(prefix="schnapsen-floors-"))
    try:
        processes.append(start_floor_app(redis_url, args.port + 1))
        floors = f"http://127.0.0.1:{args.port + 1}"
        api, url = start_api(
            args.port, {"REDIS_URL": redis_url, **COUNTED_LIMITS}, connections=1000
        )
        processes.append(api)

        variant = Variant(args.variant)
        session = requests.Session()
        script = folder / "actions.lua"
        script.write_text(ACTIONS_LUA)
        planned: dict[str, Path] = {}

        def measure(name: str, target: str, **how: Sequence[str]) -> Run:
            if args.warmup > 0:
                warm = how
                if "script" in how:
                    warm = {"script": [str(script), str(planned["warmup"]), str(args.threads)]}
                wrk(name, target, args, args.warmup, **warm)
            return wrk(name, target, args, args.seconds, **how)

        runs = {
            "bare flask": measure("bare flask", f"{floors}/bare"),
            "one script": measure("one script", f"{floors}/script"),
        }
        seeds = iter(range(1, 10**9))

        def plan(scale: int) -> None:
            """The warm-up's and the measured run's games, each their own."""
            for run, seconds in (("warmup", args.warmup), ("measured", args.seconds)):
                if seconds <= 0:
                    continue
                most = seconds * runs["one script"].rate * PLANNED_OVER_FLOOR * scale
                wanted = args.games or math.ceil(most / ACTIONS_A_GAME_AT_FEWEST) + 8
                games = [plan_game(session, url, next(seeds), variant) for _ in range(wanted)]
                actions = sum(len(game.actions) for game in games)
                print(f"planned ({run}): {len(games)} games, {actions} actions")
                planned[run] = folder / f"{run}.lua"
                games_lua(games, planned[run])

        def measure_action() -> Run:
            replans = 0
            while True:
                plan(2**replans)
                try:
                    return measure("action", f"{url}/",
                                   script=[str(script), str(planned["measured"]), str(args.threads)])  # fmt: skip
                except OutOfGames:
                    if args.games or replans == REPLANS:
                        raise
                    replans += 1
                    print("the planned games ran out: planning twice as many")

        # A seat's view of a game in play: a few of its moves made.
        viewed = plan_game(session, url, next(seeds), variant)
        view_url = f"{url}/v1/games/{viewed.game_id}"
        for token, action in list(zip(viewed.tokens, viewed.actions, strict=True))[:4]:
            session.post(
                f"{view_url}/actions", data=action,
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            ).raise_for_status()  # fmt: skip
        bearer = [f"Authorization: Bearer {viewed.tokens[0]}"]

        runs |= {"action": measure_action(), "view": measure("view", view_url, headers=bearer)}
        for run in runs.values():
            print(f"{run.name}: {run.rate:,.0f} req/s, errors {run.errors}")
        floor = runs["one script"].rate
        print(f"ratio action/one-script: {runs['action'].rate / floor:.3f}")
        print(f"ratio view/one-script: {runs['view'].rate / floor:.3f}")
        print(f"errors: {sum(run.errors for run in runs.values())}")
        return 0
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(folder, ignore_errors=True)
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    sys.exit(main())
