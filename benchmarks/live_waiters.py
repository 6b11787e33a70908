"""The waiting clients of the live benchmark, in a process of their own.

    (started by benchmarks/live.py for each waiting segment; not run by hand)

Real waiting clients are other devices: their reading costs the server's
machine nothing. Here they share the machine, but not the players' asyncio
loop: on one loop, every delivery a waiter read delayed the players' next
request (a 2 ms sleep of the players' loop overshot by 0.96 ms with 2,000
waiters against 0.60 ms without), so the benchmark's own client held the
players back. Their CPU still counts in the run's client figures.

It speaks JSON lines. It reads ``{"url", "games", "count"}`` on stdin, opens
``count`` waiters on ``games`` (``live_clients.make_waiters``) and answers
``{"held", "refusals"}`` once all are held, refused or ended; it then reads
``{"heads"}`` (each game's version when the players stopped), waits for every
held waiter to reach its head (``settle``), compares what each received with
the log its viewer sees (``compare``), and answers the segment's waiter
figures; then the waiters leave and it exits. End of input stops it early.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter

import aiohttp
from live_clients import Waiter, _sent, auth, call, gather_limited, make_waiters, open_waiters


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


async def settle(waiters: list[Waiter], heads: dict[str, int]) -> None:
    """2 s, then until every held waiter has its game's head (10 s at most)."""
    deadline = time.monotonic() + 10
    await asyncio.sleep(2)
    while time.monotonic() < deadline and any(
        w.held and not w.ended and w.last < heads[w.game["id"]] for w in waiters
    ):
        await asyncio.sleep(0.2)


async def read_line() -> dict | None:
    """The next JSON line of stdin; None at its end."""
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return json.loads(line) if line.strip() else None


def answer(figures: dict) -> None:
    print(json.dumps(figures), flush=True)


async def serve() -> None:
    spec = await read_line()
    if spec is None:
        return
    games = [
        game | {"tokens": {int(seat): token for seat, token in game["tokens"].items()}}
        for game in spec["games"]
    ]  # JSON keys are strings; seats are numbers
    url, waiters, stop = spec["url"], make_waiters(games, spec["count"]), asyncio.Event()
    trace = aiohttp.TraceConfig()
    trace.on_request_headers_sent.append(_sent)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, trace_configs=[trace]) as session:
        tasks = await open_waiters(session, url, waiters, stop)
        try:
            refusals = Counter(w.refused for w in waiters if w.refused)
            answer({"held": sum(w.held for w in waiters), "refusals": dict(refusals)})
            stopped = await read_line()
            if stopped is None:
                return
            heads = stopped["heads"]
            await settle(waiters, heads)
            figures = await compare(session, url, waiters, heads)
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        answer(figures | {
            "delivered": sum(len(w.versions) for w in waiters),
            "errors_once_held": sum(w.errors for w in waiters),
            "sse_ended": sum(w.ended for w in waiters if w.kind == "sse"),
        })  # fmt: skip


if __name__ == "__main__":
    asyncio.run(serve())
