"""What an action costs the API process, without the machine's noise: the floors'
seeded games sent as WSGI requests to the app, in one process, on a real Redis.

    python benchmarks/action_instructions.py [--games 40] [--apps 1] [--skip] [--views N]
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/action_instructions.py --games 40            # A
    valgrind ... python benchmarks/action_instructions.py --games 40 --skip   # B

The games are made and planned as ``benchmarks/floors.py`` plans them (a seed
each, every move known from the engine), with the rate limits counted. Each game's
first four actions are sent to warm the process; then, unless ``--skip``, the rest
of every game's actions, a round of one action a game at a time (the order the
floors' wrk threads send them in: a game's next move once its last is answered).
Instructions a request: (A - B) over the measured requests A printed, both runs'
totals from callgrind (``==pid== Collected : ...``); A and B plan the same games,
so everything but the measured actions cancels. The requests' Redis round trips
count (the client's side), Redis's own work does not.

``--views N`` measures N requests of the floors' other kind instead: ``GET
/v1/games/{id}`` with a seat's token, of one game in play (the first game after its
first four actions), per request as for actions.

``--apps 2`` builds the app twice in the process and sends each request to one of
them at random (a seeded choice): the two gunicorn processes of the floors, each
behind the head of a game the other one moved. The CPU seconds a measured action
took are printed too (noisy on a busy machine; the instructions are not).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from floors import COUNTED_LIMITS, Planned, plan_game  # noqa: E402  (beside this script)

from service.devtools.embedded_redis import EmbeddedRedis  # noqa: E402
from service.engine import Variant  # noqa: E402
from service.web.app import create_app  # noqa: E402

#: The first actions of each game, sent before the count.
WARM_ACTIONS = 4


class _Answer:
    """A test client's answer as ``plan_game`` reads a ``requests`` one."""

    def __init__(self, answer: Any):
        self._answer = answer

    def raise_for_status(self) -> None:
        if self._answer.status_code >= 400:
            raise RuntimeError(f"{self._answer.status_code}: {self._answer.get_data(as_text=True)}")

    def json(self) -> Any:
        return self._answer.get_json()


class _Session:
    """``plan_game``'s session, on the app's test client (the URL's path only)."""

    def __init__(self, app: Any):
        self._client = app.test_client()

    def post(self, url: str, json: Any) -> _Answer:
        return _Answer(self._client.post(url, json=json))


def environ(game_id: str, token: str, action: str) -> dict[str, Any]:
    """The WSGI environ gunicorn hands the app for one action of the floors."""
    body = action.encode()
    return {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": f"/v1/games/{game_id}/actions",
        "RAW_URI": f"/v1/games/{game_id}/actions",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8961",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "40000",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_HOST": "127.0.0.1:8961",
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def send(app: Any, request: dict[str, Any]) -> int:
    """One request through the app; its status (the body read to its end, as a server does)."""
    status: list[str] = []

    def start_response(line: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        status.append(line)
        return lambda data: None

    answer = app(request, start_response)
    try:
        for _chunk in answer:
            pass
    finally:
        close = getattr(answer, "close", None)
        if close is not None:
            close()
    return int(status[0].split(" ", 1)[0])


def view_environ(game_id: str, token: str) -> dict[str, Any]:
    """The WSGI environ gunicorn hands the app for one view of the floors."""
    request = environ(game_id, token, "")
    request.update(REQUEST_METHOD="GET", PATH_INFO=f"/v1/games/{game_id}")
    request["RAW_URI"] = request["PATH_INFO"]
    for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        del request[name]
    return request


def rounds(games: list[Planned], first: int, last: int | None) -> list[tuple[str, str, str]]:
    """Every game's actions ``first`` to ``last``, one a game at a time."""
    sent = []
    longest = max(len(game.actions) for game in games)
    for step in range(first, longest if last is None else min(last, longest)):
        for game in games:
            if step < len(game.actions):
                sent.append((game.game_id, game.tokens[step], game.actions[step]))
    return sent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument(
        "--apps", type=int, default=1, help="apps in the process (2: the floors' two)"
    )
    parser.add_argument("--skip", action="store_true", help="plan and warm only (run B)")
    parser.add_argument("--views", type=int, default=0, help="measure this many views instead")
    parser.add_argument("--variant", default="head", choices=[v.value for v in Variant])
    args = parser.parse_args()

    redis = None
    url = os.environ.get("REDIS_URL")
    if url is None:
        redis = EmbeddedRedis(
            Path(os.environ.get("TMPDIR", "/tmp")) / f"instr-{os.getpid()}"
        ).start()
        url = redis.url
    try:
        config = {
            "REDIS_URL": url,
            "SECRET_KEY": "benchmark",
            "LOG_LEVEL": "WARNING",
            **{key.removeprefix("SCHNAPSEN_"): int(value) for key, value in COUNTED_LIMITS.items()},
        }
        apps = [create_app(config) for _ in range(args.apps)]
        session = _Session(apps[0])
        variant = Variant(args.variant)
        games = [plan_game(session, "", seed, variant) for seed in range(1, args.games + 1)]  # type: ignore[arg-type]
        choose = random.Random(7)
        for game_id, token, action in rounds(games, 0, WARM_ACTIONS):
            status = send(choose.choice(apps), environ(game_id, token, action))
            assert status == 200, status
        if args.views:
            seen = games[0]
            requests = [
                (choose.choice(apps), view_environ(seen.game_id, seen.tokens[0]))
                for _ in range(0 if args.skip else args.views)
            ]
        else:
            measured = [] if args.skip else rounds(games, WARM_ACTIONS, None)
            requests = [(choose.choice(apps), environ(*sent)) for sent in measured]
        started, cpu = time.perf_counter(), time.process_time()
        for app, request in requests:
            status = send(app, request)
            assert status == 200, status
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - started
        print(
            json.dumps(
                {
                    "games": len(games),
                    "apps": args.apps,
                    "measured": "views" if args.views else "actions",
                    "measured_requests": len(requests),
                    "cpu_us_per_request": round(cpu / len(requests) * 1e6, 1) if requests else None,
                    "wall_us_per_request": round(wall / len(requests) * 1e6, 1)
                    if requests
                    else None,
                }
            )
        )
    finally:
        if redis is not None:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
