"""`GET /v1/games?client=me`: the games a client app created, newest first, paginated.

Over HTTP against gunicorn. A client key sees its own games only, never a
token, an invite or a card; without a key the answer is 401 problem+json;
bad parameters are a 4xx problem+json, never a 5xx.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from service.store.clients import ClientRegistry
from tests.support.hidden import CARD_CODE
from tests.support.http import Api, ok, problem
from tests.support.servers import LiveServer


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[LiveServer]:
    live = LiveServer(redis_url, workers=1)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def api(server) -> Api:
    return Api.live(server.url)


def new_key(redis_client, name: str) -> str:
    return ClientRegistry(redis_client).create(name)[1]


def create_as(api: Api, key: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = api.post("/v1/games", json_body=body or {}, headers={"X-Client-Key": key})
    return ok(reply, 201)


def listing(api: Api, key: str, query: str = "", *, bearer: bool = False) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if bearer else {"X-Client-Key": key}
    return ok(api.get(f"/v1/games?client=me{query}", headers=headers))


def every_page(api: Api, key: str, query: str) -> list[dict[str, Any]]:
    games, cursor = [], None
    for _ in range(50):
        page = listing(api, key, query + (f"&cursor={cursor}" if cursor else ""))
        games += page["games"]
        cursor = page["next_cursor"]
        if cursor is None:
            return games
    raise AssertionError("the pages never ended")


def test_a_client_lists_its_own_games_newest_first_in_pages(api, redis_client):
    mine, theirs = new_key(redis_client, "Mine"), new_key(redis_client, "Theirs")
    created = [create_as(api, mine)["game_id"] for _ in range(7)]
    other = create_as(api, theirs)["game_id"]
    anonymous = ok(api.post("/v1/games", json_body={}), 201)["game_id"]
    first = listing(api, mine, "&limit=3")
    assert [g["game_id"] for g in first["games"]] == created[::-1][:3]
    assert first["next_cursor"]
    games = every_page(api, mine, "&limit=3")
    assert [g["game_id"] for g in games] == created[::-1]
    assert other not in {g["game_id"] for g in games}
    assert anonymous not in {g["game_id"] for g in games}
    assert [g["game_id"] for g in listing(api, theirs)["games"]] == [other]
    # Bearer works as well as X-Client-Key, as on POST /v1/games.
    assert listing(api, mine, "&limit=1", bearer=True)["games"][0]["game_id"] == created[-1]


def test_a_listed_game_is_a_summary_without_secrets_or_cards(api, redis_client):
    key = new_key(redis_client, "Summary")
    created = create_as(api, key)
    (summary,) = listing(api, key)["games"]
    assert summary["game_id"] == created["game_id"]
    assert summary["status"] == "waiting" and summary["variant"] == "head"
    assert summary["version"] == created["version"] and summary["winner"] is None
    assert isinstance(summary["created_at"], str) and summary["created_at"].endswith("Z")
    text = api.get("/v1/games?client=me", headers={"X-Client-Key": key}).text
    assert created["token"] not in text and created["invite"] not in text
    assert not CARD_CODE.search(text), text


def test_the_listing_filters_by_status(api, redis_client):
    key = new_key(redis_client, "Filter")
    waiting = create_as(api, key)["game_id"]
    running = create_as(api, key, {"opponent": {"type": "bot", "level": "random"}})
    ended = create_as(api, key)
    ok(api.post(f"/v1/games/{ended['game_id']}/abort", token=ended["token"]))

    def ids(status: str) -> list[str]:
        return [g["game_id"] for g in every_page(api, key, f"&status={status}&limit=1")]

    assert ids("waiting") == [waiting]
    assert ids("active") == [running["game_id"]]
    assert ids("finished") == [ended["game_id"]]
    (finished,) = listing(api, key, "&status=finished")["games"]
    assert finished["ending"] == {"reason": "aborted", "seat": 0}


def test_listing_needs_a_client_key(api, redis_client):
    problem(api.get("/v1/games?client=me"), 401, "client_key_required")
    problem(api.get("/v1/games?client=me", headers={"X-Client-Key": "sck_nope"}), 401)
    reply = api.get("/v1/games?client=me", headers={"Authorization": "Bearer made-up"})
    problem(reply, 401, "client_key_required")


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?client=you",
        "?client=me&limit=0",
        "?client=me&limit=101",
        "?client=me&limit=x",
        "?client=me&status=lost",
        "?client=me&cursor=%00%ff",
        "?client=me&cursor=bm90LWEtY3Vyc29y",
    ],
)
def test_bad_listing_parameters_are_4xx_problems(api, redis_client, query):
    key = new_key(redis_client, "Bad")
    reply = api.get(f"/v1/games{query}", headers={"X-Client-Key": key})
    assert 400 <= reply.status < 500, reply
    problem(reply, reply.status)
