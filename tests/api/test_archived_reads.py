"""Every read of a finished game answers the same from Redis and, once Redis has forgotten
it, from the archive.

Random games of both variants, ending every way a game ends (a seat goes out,
the cards run out, the talon is closed, a false claim; a resign, an abort
before anyone joined and after both did, a timeout claim under a tiny turn
timeout), are read over HTTP by both seats, a spectator and a stranger: the
view, the replay whole and at versions, the event feed after versions, the
stream, and the client app's listing. Then each game is archived and Redis
forgets it (its keys are checked gone), and every read is made again, by the
same app and by a fresh one with nothing in memory: every answer is the same.
A fixed seed makes every game the same on every run.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.engine import Variant
from service.store.archive import open_archive
from service.store.archiving import GameArchiver
from service.store.client_games import index_key
from service.store.clients import ClientRegistry
from service.store.events import keys
from service.web.app import create_app
from service.web.services import services
from tests.support.http import Api, auth, parse_sse
from tests.support.lifecycle import (
    DEAL_ENDINGS,
    Finished,
    archived_rows,
    deal_endings,
    finish,
    game_keys,
)
from tests.support.paths import SECRET

SEED = 20261206
#: How the games end, in turn: played out twice as often, for the deals' endings.
PLAN = ("played", "resigned", "played", "aborted_unjoined", "aborted", "timed_out")
GAMES = 36
#: The turn timeout of the app (s): a claim is allowed a few ms after the last move.
TURN_TIMEOUT = 0.002
#: Headers that say where and when an answer was made, not what it says.
CIRCUMSTANTIAL = frozenset({"date", "x-request-id", "server", "traceparent"})
STRANGER = "not-a-seat-token"


@pytest.fixture(scope="module")
def reads_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def config(reads_redis: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    archive = Path(tmp_path_factory.mktemp("archive")) / "archive.sqlite3"
    return {
        "REDIS_URL": reads_redis,
        "SECRET_KEY": SECRET,
        "ARCHIVE_URL": f"sqlite:///{archive}",
        "ARCHIVE_GRACE_SECONDS": 0,
        "TURN_TIMEOUT_SECONDS": TURN_TIMEOUT,
    }


def answer(client: Any, path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """What a GET says: its status, its headers but the circumstantial ones, its body.

    The response is closed, as a server closes it: a stream's waiting slot goes back then.
    """
    response = client.get(path, headers=headers or {})
    try:
        text = response.get_data(as_text=True)
    finally:
        response.close()
    kind = response.mimetype
    body: Any = text
    if kind.endswith("json"):
        body = json.loads(text)
    elif kind == "text/event-stream":
        body = parse_sse(text)
    kept = {k.lower(): v for k, v in response.headers.items() if k.lower() not in CIRCUMSTANTIAL}
    return {"status": response.status_code, "headers": kept, "body": body}


def read_paths(game: Finished, head: int, rng: random.Random) -> list[tuple[str, str | None]]:
    """The reads of the game to compare, as (path, token): by both seats and a spectator
    at versions drawn once per game, versions past the head, and a stranger's token."""
    path = f"/v1/games/{game.game_id}"
    seats = [game.tokens[seat] for seat in (0, 1) if seat in game.tokens]
    reads: list[tuple[str, str | None]] = []
    for token in [*seats, None]:
        at = sorted({rng.randrange(1, head + 1), max(head - 1, 1)})
        after = sorted({0, rng.randrange(0, head), head})
        reads += [(path, token), (f"{path}/replay", token)]
        reads += [(f"{path}/replay?at={v}", token) for v in at]
        reads += [(f"{path}/events?after={v}", token) for v in after]
        reads += [(f"{path}/stream?after={v}", token) for v in (0, head)]
        reads += [(f"{path}/stream?after={max(head - 1, 0)}&include=view", token)]
    middle = f"events?after={head // 2}&include=view"
    reads += [(f"{path}/{what}", seats[0]) for what in (middle, f"replay?at={head + 1}")]
    reads += [(f"{path}/events?after={head + 1}", None)]
    reads += [(f"{path}{what}", STRANGER) for what in ("", "/replay", "/events", "/stream")]
    return reads


def read_all(client: Any, reads: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    return [answer(client, path, None if token is None else auth(token)) for path, token in reads]


def listing(client: Any, key: str) -> list[dict[str, Any]]:
    """The client app's whole listing, page by page, and a filtered first page."""
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = "" if cursor is None else f"&cursor={cursor}"
        page = answer(client, f"/v1/games?client=me&limit=7{query}", {"X-Client-Key": key})
        pages.append(page)
        cursor = page["body"]["next_cursor"]
        if cursor is None:
            break
    filtered = answer(client, "/v1/games?client=me&status=finished&limit=9", auth(key))
    return [*pages, filtered]


def end_over_http(api: Api):
    """Seats end games with the API's own requests (RX1-RX3)."""

    def end(what: str, game_id: str, token: str) -> None:
        reply = api.post(f"/v1/games/{game_id}/{what}", token=token)
        assert reply.status == 200, reply

    return end


@pytest.mark.heavy  # 36 whole games read ~100 ways, three times: the fast lanes' costliest
def test_every_read_of_a_finished_game_is_the_same_from_the_archive(config):
    app = create_app(config)
    api = Api(app.test_client())
    reader = app.test_client()
    served = services(app)
    client = redis.Redis.from_url(config["REDIS_URL"])
    owner, key = ClientRegistry(client).create("archived reads")
    rng = random.Random(SEED)
    games: list[Finished] = []
    for number in range(GAMES):
        ending = PLAN[number % len(PLAN)]
        variant = list(Variant)[(number // len(PLAN)) % len(Variant)]
        game_rng = random.Random(rng.randrange(2**63))
        games.append(
            finish(
                served.games,
                game_rng,
                ending,
                variant,
                owner=owner.id,
                end=end_over_http(api),
                timeout_wait=TURN_TIMEOUT * 2,
            )
        )
    # Both variants, every ending of a game and of a deal (no false claim where the
    # tracked variant goes out by itself).
    for variant in Variant:
        played = [g for g in games if g.variant is variant]
        assert {g.ending for g in played} == {*PLAN}, variant
        wanted = set(DEAL_ENDINGS) - ({"false_claim"} if variant is Variant.TRACKED else set())
        assert deal_endings(played) >= wanted, variant
    heads = {g.game_id: served.store.head(g.game_id) for g in games}
    reads = {
        g.game_id: read_paths(g, heads[g.game_id], random.Random(number))
        for number, g in enumerate(games)
    }
    before = {g.game_id: read_all(reader, reads[g.game_id]) for g in games}
    listed = listing(reader, key)

    # What the archive's worker runs (workers.jobs.archive_game, then the sweep).
    archiver = GameArchiver(client, open_archive(config["ARCHIVE_URL"]), grace_seconds=0)
    for game in games:
        archived = archiver.archive_game(game.game_id)
        assert archived is not None and archived.written
    assert archiver.sweep().released == GAMES
    ids = [g.game_id for g in games]
    assert archived_rows(config["ARCHIVE_URL"], ids) == dict.fromkeys(ids, 1)
    for game in games:
        assert game_keys(client, game.game_id) == set(), game.game_id
        assert client.zscore(index_key(owner.id), game.game_id) is None
    assert not client.exists(*(keys(g)["log"] for g in ids))

    fresh = create_app(config).test_client()
    for name, again in (("the same app", reader), ("a fresh app", fresh)):
        for game in games:
            after = read_all(again, reads[game.game_id])
            pairs = zip(reads[game.game_id], before[game.game_id], after, strict=True)
            for (path, token), was, now in pairs:
                assert now == was, (name, game.ending, path, token)
        assert listing(again, key) == listed, name
