"""Live games to watch over HTTP against gunicorn: an app's games in play
(``GET /v1/games/live``) and its featured game (``GET /v1/games/featured``).

A game is listed from the moment both seats are taken until it ends; only the
caller's app's games; filtered by pool and by rating; paged by cursor; the
featured game is the highest rated, ties broken by the most recent move; bad
filters are problems that change nothing (docs/api.md, "Live games").
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.game.pools import Pool
from service.ops.composition import bot_ratings
from service.store.live_games import index_key
from service.store.ratings import BOT_RATING_BASE
from tests.support.http import Api, ok, problem
from tests.support.players import AppKey, bearer, new_app, register_over_http
from tests.support.waiting import wait_until

BOT_RATING = {level: round(elo + BOT_RATING_BASE) for level, elo in bot_ratings().items()}


def created(api: Api, app: AppKey, body: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = api.post("/v1/games", json_body=body or {}, headers=app.headers)
    return ok(reply, 201)


def people_game(api: Api, app: AppKey, body: dict[str, Any] | None = None) -> dict[int, Any]:
    """A game between two anonymous people, created with the app's key and joined: the
    seats' tokens, and the game's id at ``"id"``."""
    game = created(api, app, body)
    joined = ok(
        api.post(f"/v1/games/{game['game_id']}/join", json_body={"invite": game["invite"]}),
        (200, 201),
    )
    return {"id": game["game_id"], 0: game["token"], 1: joined["token"]}


def bot_game(api: Api, app: AppKey, level: str) -> str:
    """A game of an anonymous person against a bot: in play at once. Its id."""
    return bot_game_seat(api, app, level)["id"]


def bot_game_seat(api: Api, app: AppKey, level: str) -> dict[Any, str]:
    """A game against a bot: its id at ``"id"``, the person's token at 0."""
    game = created(api, app, {"opponent": {"type": "bot", "level": level}})
    return {"id": game["game_id"], 0: game["token"]}


def live(api: Api, app: AppKey, query: str = "") -> dict[str, Any]:
    return ok(api.get(f"/v1/games/live{query}", headers=app.headers))


def listed(api: Api, app: AppKey, query: str = "") -> list[str]:
    return [game["game_id"] for game in live(api, app, query)["games"]]


def every_page(api: Api, app: AppKey, query: str, cursor: str | None = None) -> list[str]:
    """Every game of a listing (from ``cursor`` on), page after page by ``next_cursor``."""
    seen: list[str] = []
    for _page in range(100):
        sep = "&" if query else "?"
        page = live(api, app, query + (f"{sep}cursor={cursor}" if cursor else ""))
        seen += [game["game_id"] for game in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            return seen
    raise AssertionError("the listing never ended")


def move(api: Api, game: dict[int, Any]) -> None:
    """The seat to move plays its first legal action."""
    seen = ok(api.get(f"/v1/games/{game['id']}", token=game[0]))
    seat = seen["to_move"]
    mover = ok(api.get(f"/v1/games/{game['id']}", token=game[seat]))
    action = mover["deal"]["legal_actions"][0]
    ok(api.post(f"/v1/games/{game['id']}/actions", json_body=action, token=game[seat]))


@pytest.fixture
def api(live_server) -> Api:
    return Api.live(live_server.url)


def test_a_game_in_play_is_listed_with_its_players_names_ratings_and_watch_links(
    live_server, api, redis_client
):
    app = new_app(redis_client)
    anna, ben = (register_over_http(live_server.url, app.headers, n) for n in ("Anna", "Ben"))
    game = ok(api.post("/v1/games", json_body={"rated": True}, headers=bearer(anna["token"])), 201)
    # Waiting for seat 1: not in play yet.
    assert listed(api, app) == []
    problem(api.get("/v1/games/featured", headers=app.headers), 404, "no_live_game")
    ok(
        api.post(
            f"/v1/games/{game['game_id']}/join",
            json_body={"invite": game["invite"]},
            headers=bearer(ben["token"]),
        ),
        (200, 201),
    )
    page = live(api, app)
    assert page["next_cursor"] is None
    [entry] = page["games"]
    game_id = game["game_id"]
    assert entry["game_id"] == game_id
    assert entry["pool"] == "head-untimed" and entry["rated"] is True
    assert entry["variant"] == "head"
    assert entry["rating"] == 1500  # both players new to the pool
    view = ok(api.get(f"/v1/games/{game_id}"))
    assert entry["version"] == view["version"] and entry["to_move"] == view["to_move"]
    assert entry["game_points"] == [7, 7]
    seats = [(s["seat"], s["name"], s["rating"], s["player_id"]) for s in entry["players"]]
    assert seats == [
        (0, "Anna", 1500, anna["player"]["player_id"]),
        (1, "Ben", 1500, ben["player"]["player_id"]),
    ]
    assert entry["links"] == {
        "view": f"/v1/games/{game_id}",
        "stream": f"/v1/games/{game_id}/stream",
        "board": f"/watch/?game={game_id}",
    }
    # A player's token reads its own app's listing too, and the links work for anyone.
    by_player = ok(api.get("/v1/games/live", headers=bearer(anna["token"])))
    assert [g["game_id"] for g in by_player["games"]] == [game_id]
    assert ok(api.get(entry["links"]["view"]))["game_id"] == game_id
    assert ok(api.get("/v1/games/featured", headers=app.headers))["game_id"] == game_id


def test_a_game_leaves_the_listing_when_it_ends(api, redis_client):
    app = new_app(redis_client)
    resigned, played_on = people_game(api, app), people_game(api, app)
    bot = bot_game(api, app, "random")
    assert sorted(listed(api, app)) == sorted([resigned["id"], played_on["id"], bot])
    ok(api.post(f"/v1/games/{resigned['id']}/resign", token=resigned[1]))
    assert sorted(listed(api, app)) == sorted([played_on["id"], bot])
    # It left the index itself, not only the answer.
    assert redis_client.zscore(index_key(app.id), resigned["id"]) is None
    move(api, played_on)  # a move keeps a game listed
    assert played_on["id"] in listed(api, app)


def test_an_entry_whose_game_ended_unseen_is_never_shown_and_is_dropped(api, redis_client):
    """An index entry the ending append's listener never removed (its process died between
    the two writes) is checked against the log: not shown, and removed by the read."""
    app = new_app(redis_client)
    game = people_game(api, app)
    ok(api.post(f"/v1/games/{game['id']}/resign", token=game[0]))
    redis_client.zadd(index_key(app.id), {game["id"]: 1500, "gone0000000000000000": 1400})
    assert listed(api, app) == []
    problem(api.get("/v1/games/featured", headers=app.headers), 404, "no_live_game")
    assert redis_client.zcard(index_key(app.id)) == 0


def test_another_apps_games_never_show(api, redis_client):
    mine, theirs = new_app(redis_client, "mine"), new_app(redis_client, "theirs")
    their_games = [people_game(api, theirs)["id"] for _ in range(3)]
    my_game = people_game(api, mine)["id"]
    assert listed(api, mine) == [my_game]
    assert sorted(listed(api, theirs)) == sorted(their_games)
    # Their cursor, on my listing, lists only my games.
    page = live(api, theirs, "?limit=1")
    assert page["next_cursor"] is not None
    assert set(listed(api, mine, f"?cursor={page['next_cursor']}")) <= {my_game}
    assert ok(api.get("/v1/games/featured", headers=mine.headers))["game_id"] == my_game


def test_the_pool_filter_lists_that_pools_games_alone(api, redis_client):
    app = new_app(redis_client)
    untimed = people_game(api, app)["id"]
    tracked = people_game(api, app, {"variant": "tracked"})["id"]
    blitz = people_game(api, app, {"clock": {"seconds_per_move": 10}})["id"]
    rapid = people_game(api, app, {"clock": {"seconds_per_move": 30}, "variant": "tracked"})
    assert listed(api, app, "?pool=head-untimed") == [untimed]
    assert listed(api, app, "?pool=tracked-untimed") == [tracked]
    assert listed(api, app, "?pool=head-blitz") == [blitz]
    assert listed(api, app, "?pool=tracked-rapid") == [rapid["id"]]
    assert listed(api, app, "?pool=head-classical") == []
    assert {g["pool"] for g in live(api, app)["games"]} == {
        "head-untimed",
        "tracked-untimed",
        "head-blitz",
        "tracked-rapid",
    }


def test_games_come_highest_rated_first_and_min_rating_leaves_out_the_lower(api, redis_client):
    app = new_app(redis_client)
    expert = bot_game(api, app, "expert")
    novice = bot_game(api, app, "novice")
    randoms = sorted((bot_game(api, app, "random") for _ in range(2)), reverse=True)
    unrated = people_game(api, app)["id"]  # two anonymous seats: no rating
    page = live(api, app)["games"]
    assert [g["game_id"] for g in page] == [expert, novice, *randoms, unrated]
    assert [g["rating"] for g in page] == [
        BOT_RATING["expert"],
        BOT_RATING["novice"],
        BOT_RATING["random"],
        BOT_RATING["random"],
        None,
    ]
    bot_seat = page[0]["players"][1]
    assert bot_seat["type"] == "bot" and bot_seat["rating"] == BOT_RATING["expert"]
    assert page[0]["players"][0]["rating"] is None and page[0]["players"][0]["name"] is None
    assert listed(api, app, f"?min_rating={BOT_RATING['novice']}") == [expert, novice]
    assert listed(api, app, f"?min_rating={BOT_RATING['novice'] + 1}") == [expert]
    assert listed(api, app, "?min_rating=1") == [expert, novice, *randoms]
    assert listed(api, app, f"?min_rating={BOT_RATING['expert'] + 1}") == []


def test_paging_by_cursor_lists_every_game_once_in_order(api, redis_client):
    app = new_app(redis_client)
    levels = ["random", "random", "beginner", "random", "novice", "heuristic", "random"]
    seats = {(game := bot_game_seat(api, app, level))["id"]: game for level in levels}
    games = list(seats)
    whole = listed(api, app, "?limit=50")
    assert sorted(whole) == sorted(games)
    for limit in (1, 2, 3):
        assert every_page(api, app, f"?limit={limit}") == whole
    # With a filter, the cursor goes on within it.
    at_least = BOT_RATING["beginner"]
    assert every_page(api, app, f"?limit=1&min_rating={at_least}") == whole[:3]
    # A game that ends between two pages is skipped, and nothing is shown twice.
    page = live(api, app, "?limit=2")
    assert [g["game_id"] for g in page["games"]] == whole[:2]
    ended = whole[3]
    ok(api.post(f"/v1/games/{ended}/resign", token=seats[ended][0]))
    rest = every_page(api, app, "?limit=2", page["next_cursor"])
    assert rest == [game for game in whole[2:] if game != ended]


def test_the_featured_game_is_the_highest_rated_and_the_latest_move_breaks_a_tie(api, redis_client):
    app = new_app(redis_client)
    problem(api.get("/v1/games/featured", headers=app.headers), 404, "no_live_game")
    first, second = people_game(api, app), people_game(api, app)  # rated alike (no rating)

    def featured() -> str:
        return ok(api.get("/v1/games/featured", headers=app.headers))["game_id"]

    move(api, first)
    assert featured() == first["id"]
    move(api, second)
    assert featured() == second["id"]
    move(api, first)
    assert featured() == first["id"]
    # A higher-rated game wins over any move.
    bot = bot_game_seat(api, app, "beginner")
    assert featured() == bot["id"]
    entry = ok(api.get("/v1/games/featured", headers=app.headers))
    assert entry["rating"] == BOT_RATING["beginner"]
    assert entry["links"]["stream"] == f"/v1/games/{bot['id']}/stream"
    # Once it ends, the tie is back: the game moved last; then the other alone.
    ok(api.post(f"/v1/games/{bot['id']}/resign", token=bot[0]))
    assert featured() == first["id"]
    ok(api.post(f"/v1/games/{first['id']}/resign", token=first[0]))
    assert featured() == second["id"]


def test_bad_filters_are_problems_that_change_nothing(api, redis_client, live_server):
    app = new_app(redis_client)
    game = people_game(api, app)["id"]
    before = live(api, app)
    for query in (
        "?pool=head",
        "?pool=chess-blitz",
        "?min_rating=0",
        "?min_rating=-5",
        "?min_rating=abc",
        "?min_rating=10001",
        "?min_rating=1.5",
        "?limit=0",
        "?limit=51",
        "?limit=x",
        "?rating=1500",
        "?tournament=",
        "?tournament=tn_a%20b",
        "?tournament=tn_%3Cscript%3E",
        "?tournament=" + "x" * 65,
    ):
        problem(api.get(f"/v1/games/live{query}", headers=app.headers), 422)
    # A well-formed id, on a server without the database tournaments last in.
    problem(
        api.get("/v1/games/live?tournament=tn_0c1d2e3f4a5b6c7d", headers=app.headers),
        503,
        "tournaments_unavailable",
    )
    for cursor in ("x", "bm90IGEgY3Vyc29y", "MTU6", "LTE6YWJj", "OTk5OTk5OTk5OTk5OTk5OTk6YQ"):
        problem(
            api.get(f"/v1/games/live?cursor={cursor}", headers=app.headers),
            400,
            "invalid_cursor",
        )
    problem(api.get("/v1/games/live"), 401)
    problem(api.get("/v1/games/featured"), 401)
    problem(api.get("/v1/games/live", headers={"X-Client-Key": "sk_nope"}), 401)
    assert live(api, app) == before and [g["game_id"] for g in before["games"]] == [game]


def test_a_random_mix_of_games_lists_exactly_those_in_play(api, redis_client):
    """Games created, joined, played, resigned and aborted in a random order: the listing
    is always exactly the app's active games, highest rated first."""
    rng = random.Random("live-mix")
    app = new_app(redis_client)
    waiting: list[dict[str, Any]] = []
    playing: dict[str, dict[int, Any]] = {}
    bots: dict[str, int] = {}
    for _step in range(40):
        choice = rng.choice(["create", "join", "move", "resign", "abort", "bot"])
        if choice == "create":
            waiting.append(created(api, app))
        elif choice == "join" and waiting:
            game = waiting.pop(rng.randrange(len(waiting)))
            joined = ok(
                api.post(f"/v1/games/{game['game_id']}/join", json_body={"invite": game["invite"]}),
                (200, 201),
            )
            playing[game["game_id"]] = {
                "id": game["game_id"],
                0: game["token"],
                1: joined["token"],
            }
        elif choice == "move" and playing:
            move(api, playing[rng.choice(sorted(playing))])
        elif choice == "resign" and playing:
            game_id = rng.choice(sorted(playing))
            ok(api.post(f"/v1/games/{game_id}/resign", token=playing.pop(game_id)[0]))
        elif choice == "abort" and waiting:
            game = waiting.pop(rng.randrange(len(waiting)))
            ok(api.post(f"/v1/games/{game['game_id']}/abort", token=game["token"]))
        elif choice == "bot":
            level = rng.choice(sorted(BOT_RATING))
            bots[bot_game(api, app, level)] = BOT_RATING[level]
        expected = sorted(
            [(rating, game_id) for game_id, rating in bots.items()]
            + [(0, game_id) for game_id in playing],
            reverse=True,
        )
        assert every_page(api, app, "?limit=3") == [game_id for _r, game_id in expected]


def test_the_latest_move_picks_the_featured_game_among_many_games_of_one_rating(api, redis_client):
    """Every new player is at 1500, so many games tie at the top: the one moved last is
    featured, whichever its id."""
    app = new_app(redis_client)
    games = [people_game(api, app) for _ in range(30)]
    by_id = sorted(games, key=lambda game: game["id"])
    for game in (by_id[0], by_id[-1], by_id[14]):
        move(api, game)
        assert ok(api.get("/v1/games/featured", headers=app.headers))["game_id"] == game["id"]


def test_a_challenge_game_is_listed_and_an_erased_player_shows_no_name(
    live_server, api, redis_client
):
    app = new_app(redis_client)
    anna, ben = (register_over_http(live_server.url, app.headers, n) for n in ("Anna", "Ben"))
    challenge = ok(
        api.post(
            "/v1/challenges",
            json_body={"player_id": ben["player"]["player_id"]},
            headers=bearer(anna["token"]),
        ),
        201,
    )
    accepted = ok(
        api.post(
            f"/v1/challenges/{challenge['challenge_id']}/accept", headers=bearer(ben["token"])
        ),
        201,
    )
    [entry] = live(api, app)["games"]
    assert entry["game_id"] == accepted["game_id"]
    assert sorted(seat["name"] for seat in entry["players"]) == ["Anna", "Ben"]
    reply = api.request("DELETE", f"/v1/players/{ben['player']['player_id']}", headers=app.headers)
    assert reply.status == 204, reply
    [entry] = live(api, app)["games"]
    erased = [seat for seat in entry["players"] if seat.get("erased")]
    assert len(erased) == 1
    assert erased[0]["name"] is None and erased[0]["rating"] is None
    assert "player_id" not in erased[0]
    assert "Ben" not in api.get("/v1/games/live", headers=app.headers).text


def test_a_game_a_worker_ends_leaves_the_index_by_the_workers_own_append(api, redis_client, worker):
    """The clock's job (a worker's append, not the API's) ends a game on time: the
    worker's listener removes it from the index, before any read could."""
    app = new_app(redis_client)
    game = people_game(api, app, {"clock": {"seconds_per_move": 5, "on_timeout": "lose"}})
    assert redis_client.zscore(index_key(app.id), game["id"]) is not None
    assert redis_client.zscore(index_key(app.id, Pool.parse("head-blitz")), game["id"]) == 0
    wait_until(
        lambda: redis_client.zscore(index_key(app.id), game["id"]) is None,
        60,
        "the worker's timeout to end the game and drop it from the index",
    )
    assert redis_client.zscore(index_key(app.id, Pool.parse("head-blitz")), game["id"]) is None
    assert ok(api.get(f"/v1/games/{game['id']}"))["ending"]["reason"] == "timed_out"
    assert listed(api, app) == []
