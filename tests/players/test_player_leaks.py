"""The reads of players, seeks, ratings and leaderboards show no hidden card and nothing
of another app: a paired, rated game played to its end, every such read checked after
every action, for both players and for a player of another app."""

from __future__ import annotations

import random
from typing import Any

from service.engine import replay
from tests.support.games import Game, play_random_game
from tests.support.hidden import assert_hides, hidden_cards
from tests.support.http import Api
from tests.support.log import log_events
from tests.support.players import bearer, new_app


def _register(api: Api, headers: dict[str, str], name: str) -> dict[str, Any]:
    answer = api.client.post(
        "/v1/players", json={"app_player_id": name, "name": name}, headers=headers
    )
    assert answer.status_code == 201, answer.json
    return answer.json


def test_player_reads_show_no_hidden_card_and_nothing_of_another_app(client, redis_client):
    api = Api(client)
    app_a, app_b = new_app(redis_client), new_app(redis_client)
    anna = _register(api, app_a.headers, "anna")
    ben = _register(api, app_a.headers, "ben")
    eve = _register(api, app_b.headers, "eve")
    first = client.post("/v1/seeks", json={"rated": True}, headers=bearer(anna["token"])).json
    second = client.post("/v1/seeks", json={"rated": True}, headers=bearer(ben["token"])).json
    assert second["status"] == "paired"
    first = client.get(f"/v1/seeks/{first['seek_id']}", headers=bearer(anna["token"])).json
    game = Game(second["game_id"], {first["seat"]: first["token"], second["seat"]: second["token"]})
    players = {first["seat"]: anna, second["seat"]: ben}
    ids = {p["player"]["player_id"] for p in (anna, ben)}
    seeks = {first["seat"]: first["seek_id"], second["seat"]: second["seek_id"]}

    def reads(token: str, seek_id: str | None, pid: str) -> list[tuple[str, Any]]:
        answers = [
            ("me", client.get("/v1/players/me", headers=bearer(token))),
            ("my games", client.get("/v1/players/me/games", headers=bearer(token))),
            ("player", client.get(f"/v1/players/{pid}", headers=bearer(token))),
            ("ratings", client.get(f"/v1/players/{pid}/ratings", headers=bearer(token))),
            ("leaderboard", client.get("/v1/leaderboard", headers=bearer(token))),
        ]
        if seek_id is not None:
            answers.append(("seek", client.get(f"/v1/seeks/{seek_id}", headers=bearer(token))))
        return [(name, answer.get_data(as_text=True)) for name, answer in answers]

    def check(game: Game, _answer: dict[str, Any] | None = None) -> None:
        state = replay(log_events(redis_client, game.game_id))
        for seat, player in players.items():
            for name, text in reads(player["token"], seeks[seat], player["player"]["player_id"]):
                assert_hides(text, hidden_cards(state, seat), f"{name} of seat {seat}")
        # another app's player: nothing of the game's players, no card at all
        for pid in ids:
            for name, text in reads(eve["token"], None, pid):
                assert_hides(text, hidden_cards(state, None), f"{name} to another app")
                # the id appears only where the refusal repeats the id that was asked for
                assert pid not in text or '"player_not_found"' in text, (name, text)
        for pid in ids:
            assert client.get(f"/v1/players/{pid}", headers=app_b.headers).status_code == 404
        mine = client.get(f"/v1/seeks/{first['seek_id']}", headers=bearer(eve["token"]))
        assert mine.status_code == 404

    check(game)
    final = play_random_game(api, game, random.Random(7), after_each=check)
    assert final["status"] == "finished"
