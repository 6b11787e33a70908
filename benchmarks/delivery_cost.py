"""What one delivery to a waiting client costs the server, in CPU time, beside an action.

    python benchmarks/delivery_cost.py [--games 8] [--waiters 4] [--rounds 3]

Starts ``schnapsen-serve`` as ``benchmarks/live.py`` does (embedded Redis,
default settings but the per-address limits), then, in rounds, plays
``--games`` human-vs-human games to their end, one action at a time, with
random legal actions:

- ``none``: nobody waits on the games;
- ``poll``: ``--waiters`` long-polls a game (seat 0, a spectator, seat 1, ...),
  each asking again after every answer;
- ``sse``: as many SSE streams a game.

For each phase it reads, before and after, the CPU time (user + system,
``/proc``) of the server (the gunicorn processes), of its embedded Redis, of
this client process, and of the whole machine (every core's busy time, the
kernel's network work included): the ``none`` phases give the CPU of an
action (its POST and the other seat's GET, as the players of live.py play),
and the others the CPU per event delivered once their actions are taken off.
The server's CPU time, unlike throughput, hardly depends on what else the
machine runs, so it isolates what ``benchmarks/live.py``'s throughput ratio
is made of; the machine's column is what the live benchmark's machine pays
in all (its client, Redis and the kernel included), and is noisier, since
anything else running counts too. Clock ticks are 10 ms: the phases are
long enough for a figure to two digits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live import Service  # noqa: E402  (scripts beside this one)
from live_clients import Load, Waiter, new_game, play, poll_waiter, sse_waiter  # noqa: E402

KINDS = ("none", "poll", "sse")
#: Where the CPU time goes: the columns of every figure printed.
PARTS = ("server", "redis", "client", "machine")


def cpu_now(service: Service) -> tuple[float, ...]:
    """CPU seconds used so far by each of ``PARTS``: the service's parts, and this client."""
    client = os.times()
    used = service.cpu() | {"client": client.user + client.system}
    return tuple(used[part] for part in PARTS)


async def phase(session, service: Service, kind: str, games: int, waiters: int, seed: int):
    """(actions, events delivered, CPU seconds of each of ``PARTS``) of one phase."""
    played = [await new_game(session, service.url) for _ in range(games)]
    stop, tasks, held = asyncio.Event(), [], []
    for game in played if kind != "none" else []:
        for k in range(waiters):
            waiter = Waiter(game, kind, (0, None, 1)[k % 3], game["view"]["version"])
            held.append(waiter)
            run = poll_waiter if kind == "poll" else sse_waiter
            tasks.append(asyncio.create_task(run(session, service.url, waiter, stop)))
    await asyncio.sleep(1.5)  # every waiter connected and waiting
    load, rng, before = Load(), random.Random(seed), cpu_now(service)
    for game in played:
        await play(session, service.url, game, rng, load, time.monotonic() + 300)
    await asyncio.sleep(1.5)  # the last deliveries made
    cpu = tuple(now - then for now, then in zip(cpu_now(service), before, strict=True))
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return len(load.latencies), sum(len(w.versions) for w in held), cpu


Row = tuple[int, int, tuple[float, ...]]


async def measure(service: Service, args) -> dict[str, list[Row]]:
    rows: dict[str, list[Row]] = {kind: [] for kind in KINDS}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        await phase(session, service, "none", 2, 0, seed=0)  # warm-up, not counted
        for round_number in range(args.rounds):
            for kind in KINDS:
                seed = 100 * round_number + KINDS.index(kind)
                row = await phase(session, service, kind, args.games, args.waiters, seed)
                rows[kind].append(row)
                print(f"round {round_number + 1} {kind}: {row[0]} actions, {row[1]} events "
                      f"delivered, CPU s {seconds(row[2])}", flush=True)  # fmt: skip
    return rows


def seconds(values) -> str:
    return ", ".join(f"{part} {value:.2f}" for part, value in zip(PARTS, values, strict=True))


def milliseconds(values) -> str:
    return "  ".join(f"{1000 * value:8.3f}" for value in values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games a phase")
    parser.add_argument("--waiters", type=int, default=4, help="waiters a game")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="schnapsen-delivery-") as tmp:
        with open(Path(tmp) / "serve.log", "wb") as log:
            service = Service(Path(tmp) / "var", log)
        try:
            rows = asyncio.run(measure(service, args))
        finally:
            service.stop()
    actions = sum(row[0] for row in rows["none"])
    per_action = [sum(row[2][i] for row in rows["none"]) / actions for i in range(len(PARTS))]
    print(f"\nCPU ms        {'  '.join(f'{part:>8}' for part in PARTS)}")
    print(f"an action     {milliseconds(per_action)}  (its POST and a GET)")
    for kind in ("poll", "sse"):
        taken = sum(row[0] for row in rows[kind])
        events = sum(row[1] for row in rows[kind])
        extra = [
            (sum(row[2][i] for row in rows[kind]) - per_action[i] * taken) / events
            for i in range(len(PARTS))
        ]
        name = "a long-poll" if kind == "poll" else "an SSE event"
        shares = ", ".join(f"{e / a:.2f}" for e, a in zip(extra, per_action, strict=True))
        print(f"{name:<13} {milliseconds(extra)}  ({events} delivered; of an action: {shares})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
