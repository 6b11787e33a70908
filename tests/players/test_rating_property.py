"""A property of rated games: over random sequences of rated games between a few players
(resigns before and after minimum play, refused and allowed aborts, timeouts, rematches),
every player's rating, games count and history equal a recomputation by the documented
rules (docs/rules.md, RX2, RX6-RX8; Glicko-2, each game its own rating period), and the
leaderboard ranks exactly the players with enough rated games and a rating no longer
provisional.

On a real Redis of the test's own, through the app's HTTP interface (Flask's test
client); each ended game is rated as the rating job rates it, in the order the games
ended (no worker runs here, so the order is the test's).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.game import glicko2
from service.store.players import PlayerStore
from service.store.ratings import RatedGames
from service.web.app import create_app
from service.web.services import services
from tests.support.http import Api, ok, problem
from tests.support.paths import SECRET
from tests.support.players import bearer, new_app
from tests.support.rated_games import play_tricks, rated_game, resign
from tests.support.waiting import wait_until

#: The rules as docs/rules.md states them, written here again from the text.
TRICKS_FOR_BOTH = 3  # RX7
PAIR_GAMES_COUNTED = 3  # RX8, all games here end within the day
BOARD_MIN_GAMES = 5
PROVISIONAL_DEVIATION = 110  # a rating above it is provisional, off the board
PLAYERS = 4
GAMES = 18


@dataclass
class Model:
    """The ratings as the documented rules compute them."""

    ratings: dict[str, glicko2.Rating] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    pair_games: dict[frozenset[str], int] = field(default_factory=dict)

    def ended(self, players: tuple[str, str], winner: int | None, tricks: int) -> None:
        if winner is None:  # aborted: nothing (RX2)
            return
        pair = frozenset(players)
        self.pair_games[pair] = self.pair_games.get(pair, 0) + 1
        if self.pair_games[pair] > PAIR_GAMES_COUNTED:  # RX8
            return
        a, b = (self.ratings.get(p, glicko2.Rating()) for p in players)
        new = glicko2.rate_game(a, b, 1.0 if winner == 0 else 0.0)
        # RX7: both once played enough, else only the loser.
        seats = (0, 1) if tricks >= TRICKS_FOR_BOTH else (1 - winner,)
        for seat in seats:
            self.ratings[players[seat]] = new[seat]
            self.games[players[seat]] = self.games.get(players[seat], 0) + 1


def _seat_players(api: Api, game_id: str, token: str) -> tuple[str, str]:
    seen = ok(api.get(f"/v1/games/{game_id}", token=token))
    first, second = (player["player_id"] for player in seen["players"])
    return first, second


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ratings_after_random_rated_games_equal_the_documented_recomputation(tmp_path, seed):
    rng = random.Random(seed)
    with EmbeddedRedis(tmp_path / "redis") as server:
        redis_client = Redis.from_url(server.url)
        app = create_app(
            {"REDIS_URL": server.url, "SECRET_KEY": SECRET, "TURN_TIMEOUT_SECONDS": 0.2}
        )
        api = Api(app.test_client())
        key = new_app(redis_client)
        tokens = {}
        for number in range(PLAYERS):
            registered = ok(
                api.post(
                    "/v1/players",
                    json_body={"app_player_id": f"p{number}", "name": f"P{number}"},
                    headers=key.headers,
                ),
                201,
            )
            tokens[registered["player"]["player_id"]] = registered["token"]
        ids = sorted(tokens)
        ratings = RatedGames(PlayerStore(redis_client), {})
        model = Model()
        finished: list[tuple[str, dict[int, str]]] = []

        for _ in range(GAMES):
            if finished and rng.random() < 0.25:  # a rematch of an earlier game
                old_id, old_tokens = rng.choice(finished)
                offer = api.post(f"/v1/games/{old_id}/rematch", token=old_tokens[0])
                if offer.status == 200 and offer.json()["status"] == "offered":
                    taken = ok(
                        api.post(f"/v1/games/{old_id}/rematch/accept", token=old_tokens[1]), 201
                    )
                    game_id = taken["game_id"]
                    mine = ok(api.get(f"/v1/games/{old_id}/rematch", token=old_tokens[0]))
                    # A rematch seats each player where it sat.
                    seat_tokens = {taken["seat"]: taken["token"], mine["seat"]: mine["token"]}
                else:
                    continue
            else:
                first, second = rng.sample(ids, 2)
                if rng.random() < 0.15:  # called off before anyone joined: allowed (RX6)
                    created = ok(
                        api.post("/v1/games", json_body={"rated": True}, token=tokens[first]), 201
                    )
                    aborted = ok(
                        api.post(f"/v1/games/{created['game_id']}/abort", token=created["token"])
                    )
                    assert aborted["ending"]["reason"] == "aborted"
                    continue
                game_id, seat_tokens = rated_game(api, tokens[first], tokens[second])
            players = _seat_players(api, game_id, seat_tokens[0])
            # Once both seats are taken, an abort is refused (RX6) and changes nothing.
            problem(
                api.post(f"/v1/games/{game_id}/abort", token=seat_tokens[rng.randrange(2)]),
                409,
                "abort_not_allowed",
            )
            tricks = rng.choice((0, 1, TRICKS_FOR_BOTH, 5))
            seen = play_tricks(api, game_id, seat_tokens, tricks, rng) if tricks else None
            played = tricks if seen is None or not seen["deals"] else TRICKS_FOR_BOTH
            if rng.random() < 0.5:
                loser = rng.randrange(2)
                resign(api, game_id, seat_tokens[loser])
            else:  # the seat to move walks away; the other claims the game (RX3)
                to_move = ok(api.get(f"/v1/games/{game_id}", token=seat_tokens[0]))["to_move"]
                waiting = 1 - to_move
                claim = f"/v1/games/{game_id}/claim-timeout"
                wait_until(
                    lambda path=claim, token=seat_tokens[waiting]: (
                        api.post(path, token=token).status == 200
                    ),
                    30,
                    "the turn timeout",
                )
                loser = to_move
            ratings.rate(services(app).games.current(game_id))
            model.ended(players, 1 - loser, played)
            finished.append((game_id, seat_tokens))

        for player_id, token in tokens.items():
            me = ok(api.get("/v1/players/me", headers=bearer(token)))
            expected = model.ratings.get(player_id, glicko2.Rating())
            assert me["rating"]["games"] == model.games.get(player_id, 0), player_id
            assert abs(me["rating"]["rating"] - expected.rating) < 0.01, player_id
            assert abs(me["rating"]["deviation"] - expected.deviation) < 0.01, player_id
        board = ok(api.get("/v1/leaderboard", headers=key.headers))["players"]
        ranked = sorted(
            (
                p
                for p in ids
                if model.games.get(p, 0) >= BOARD_MIN_GAMES
                and model.ratings[p].deviation <= PROVISIONAL_DEVIATION
            ),
            key=lambda p: -model.ratings[p].rating,
        )
        assert [row["player"]["player_id"] for row in board] == ranked
        services(app).watcher.close()
        services(app).job_watcher.close()
