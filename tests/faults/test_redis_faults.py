"""Redis going away: clear 503 answers instead of a hang, and recovery by itself."""

from __future__ import annotations

import random

import pytest

from service.engine import ActionTaken, replay
from service.store.events import EventStore
from service.web.app import create_app
from service.web.services import services
from tests.support.games import random_move, two_seated
from tests.support.http import auth
from tests.support.paths import SECRET
from tests.support.servers import free_port
from tests.support.waiting import wait_until


@pytest.mark.timeout(60)  # bounds a hang; the answers themselves prove no wait
def test_redis_unreachable_answers_503_problem():
    app = create_app({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "SECRET_KEY": SECRET})
    client = app.test_client()
    for method, path, body in [
        ("get", "/v1/games/abc", None),
        ("post", "/v1/games", {}),
        ("post", "/v1/games/abc/actions", {"type": "claim"}),
    ]:
        response = getattr(client, method)(path, json=body, headers=auth("x"))
        assert response.status_code == 503, response.json
        assert response.mimetype == "application/problem+json"
        assert response.json["code"] == "store_unavailable"
        assert response.headers["Retry-After"]
        assert "Traceback" not in response.get_data(as_text=True)


def play(client, game, tokens, rng, count):
    """``count`` random legal actions; the versions the service acknowledged."""
    acknowledged = []
    for _ in range(count):
        moved = random_move(client, game, tokens, rng)
        if moved is None:
            break
        seat, action, response = moved
        acknowledged.append((response.json["version"], seat, action))
    return acknowledged


def test_a_redis_restart_during_a_game_loses_nothing_and_the_service_recovers(persistent_redis):
    app = create_app({"REDIS_URL": persistent_redis.url, "SECRET_KEY": SECRET})
    client = app.test_client()
    game, tokens = two_seated(client, seed=9)
    rng = random.Random(9)
    acknowledged = play(client, game, tokens, rng, 8)

    persistent_redis.stop()  # a graceful stop: the append-only file is flushed
    down = client.get(f"/v1/games/{game}", headers=auth(tokens[0]))
    assert down.status_code == 503 and down.json["code"] == "store_unavailable"

    persistent_redis.start()  # same folder: it loads the append-only file
    # The service recovers by itself when Redis is back (the timeout bounds a hang).
    back = wait_until(
        lambda: (
            (answer := client.get(f"/v1/games/{game}", headers=auth(tokens[0]))).status_code == 200
            and answer
        ),
        60,
        "the service to answer 200 once Redis is back",
    )
    # every acknowledged action is in the log, exactly once, and the log replays
    log = EventStore(services(app).redis).events(game)
    actions = [(i + 1, e.seat, e.action.to_dict()) for i, e in enumerate(log)
               if isinstance(e, ActionTaken)]  # fmt: skip
    assert len(actions) == len(acknowledged)
    for (version, seat, action), (at, by, done) in zip(acknowledged, actions, strict=True):
        assert (seat, action) == (by, done) and at <= version
    assert back.json["version"] == len(log)
    assert replay(log).to_move is not None or replay(log).winner is not None
    # the client resumes from its last version
    acknowledged += play(client, game, tokens, rng, 4)
    assert EventStore(services(app).redis).head(game) >= acknowledged[-1][0]
