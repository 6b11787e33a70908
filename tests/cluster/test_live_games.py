"""Live games on the Redis Cluster: an app's games in play, listed and featured alike by
every API replica.

The app's index carries the app's hash tag (one slot) and each game's log its own, so
the index is written beside the append, and the featured game's tie is broken by the
logs' last appends read over several primaries at once.
"""

from __future__ import annotations

import random
import uuid

import pytest
import requests

from service.store.clients import ClientRegistry
from service.store.events import keys
from service.store.live_games import index_key
from tests.support.cluster_games import HumanGame, play_one, send
from tests.support.http import auth

pytestmark = pytest.mark.cluster

GAMES = 6


def app_game(topology, session: requests.Session, key: str) -> HumanGame:
    """A game between two people, created with the app's key and joined, each request to
    the next replica."""
    created = send(
        topology.next_url,
        "POST",
        "/v1/games",
        session=session,
        json={},
        headers={"X-Client-Key": key, "Idempotency-Key": str(uuid.uuid4())},
    )
    assert created.status_code == 201, created.text
    game = created.json()
    joined = send(
        topology.next_url,
        "POST",
        f"/v1/games/{game['game_id']}/join",
        session=session,
        json={"invite": game["invite"]},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert joined.status_code in (200, 201), joined.text
    return HumanGame(game["game_id"], (game["token"], joined.json()["token"]))


def test_every_replica_lists_and_features_the_apps_games_in_play(topology):
    session = requests.Session()
    rng = random.Random(44)
    app, key = ClientRegistry(topology.log).create("cluster live games")
    headers = {"X-Client-Key": key}
    games = [app_game(topology, session, key) for _ in range(GAMES)]
    # The games' logs are spread over more than one primary.
    nodes = {topology.log.get_node_from_key(keys(g.game_id)["log"]).name for g in games}
    assert len(nodes) > 1
    ids = sorted((g.game_id for g in games), reverse=True)  # rated alike: by id

    def listed(url: str) -> list[str]:
        answer = session.get(f"{url}/v1/games/live?limit=4", headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["next_cursor"] is not None
        rest = session.get(
            f"{url}/v1/games/live?limit=4&cursor={page['next_cursor']}",
            headers=headers,
            timeout=10,
        ).json()
        return [g["game_id"] for g in page["games"] + rest["games"]]

    def featured(url: str) -> str:
        answer = session.get(f"{url}/v1/games/featured", headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["game_id"]

    assert all(listed(url) == ids for url in topology.urls)
    for game in rng.sample(games, 3):
        assert play_one(topology.next_url, session, game, rng) is not None
        assert {featured(url) for url in topology.urls} == {game.game_id}
    # A game resigned through one replica leaves every replica's listing.
    ended = games[0]
    resigned = send(
        topology.next_url,
        "POST",
        f"/v1/games/{ended.game_id}/resign",
        session=session,
        headers={**auth(ended.tokens[1]), "Idempotency-Key": str(uuid.uuid4())},
    )
    assert resigned.status_code == 200, resigned.text
    for url in topology.urls:
        answer = session.get(f"{url}/v1/games/live", headers=headers, timeout=10).json()
        assert [g["game_id"] for g in answer["games"]] == [i for i in ids if i != ended.game_id]
    assert topology.log.zscore(index_key(app.id), ended.game_id) is None
