"""A plain action and a plain view are served below Flask's hooks
(``service.web.plain_routes``) and answer what Flask's own path answers for them, byte for
byte: the same view, the same headers (the limits, the security headers, the ETag), the
same problems; every other action and view is Flask's."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from flask import Flask, request
from werkzeug.test import Client, TestResponse

from service.web.app import create_app
from tests.support.games import Game, new_game
from tests.support.http import Api
from tests.support.json_logs import records
from tests.support.paths import SECRET


@pytest.fixture(scope="module")
def routed(redis_url: str) -> tuple[Flask, list[str]]:
    """An app of its own, and the paths of the requests that passed Flask's hooks."""
    app = create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "RATE_LIMIT_PER_TOKEN": 300})
    hooked: list[str] = []

    def _seen() -> None:
        hooked.append(request.path)

    app.before_request_funcs.setdefault(None, []).insert(0, _seen)  # before every other hook
    return app, hooked


def _twins(app: Flask, seed: int) -> tuple[Client, Game, Game, dict[str, Any]]:
    """Two games of one seed, the first for the app as served, the second for Flask's own
    path (its ``wsgi_app``, the route left out), and seat 1's deal in either (its view
    read once in each, so both seats' tokens have counted alike)."""
    api = Api(app.test_client())
    flask_path = Client(functools.partial(Flask.wsgi_app, app), TestResponse)
    twins = [new_game(api, seed=seed, first_dealer=0) for _ in range(2)]
    deals = [api.get(game.path, token=game.tokens[1]).json()["deal"] for game in twins]
    assert deals[0] == deals[1]
    return flask_path, twins[0], twins[1], deals[0]


def _post(client: Any, game: Game, seat: int, body: Any, **headers: str) -> TestResponse:
    return client.post(
        f"/v1/games/{game.game_id}/actions",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Authorization": f"Bearer {game.tokens[seat]}", **headers},
    )


def _same(served: TestResponse, flasks: TestResponse, served_id: str, flasks_id: str) -> None:
    """The two answers alike but for the request ids and the games' ids."""
    assert served.status_code == flasks.status_code
    assert [name for name, _ in served.headers] == [name for name, _ in flasks.headers]
    different = {"X-Request-ID"}
    assert [(n, v) for n, v in served.headers if n not in different] == [
        (n, v) for n, v in flasks.headers if n not in different
    ]
    assert served.get_data() == flasks.get_data().replace(flasks_id.encode(), served_id.encode())


def test_a_plain_action_answers_as_flask_does_without_passing_its_hooks(routed):
    app, hooked = routed
    flask_path, served_game, flasks_game, deal = _twins(app, seed=31)
    hooked.clear()
    served = _post(app.test_client(), served_game, 1, deal["legal_actions"][0])
    flasks = _post(flask_path, flasks_game, 1, deal["legal_actions"][0])
    assert served.status_code == 200, served.get_data(as_text=True)
    assert served.headers["RateLimit-Policy"] == '"token";q=300;w=60'
    assert served.headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
    _same(served, flasks, served_game.game_id, flasks_game.game_id)
    assert hooked == [f"/v1/games/{flasks_game.game_id}/actions"]


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        ({"type": "play", "card": "XX"}, {}, 422),
        ({"type": "play", "card": "AS", "more": 1}, {}, 422),
        (None, {"Idempotency-Key": "route-key-1"}, 200),
        (None, {"If-Match": "version"}, 200),
        (None, {"X-Client-Key": "no-such-key"}, 401),
    ],
    ids=["unknown-card", "unknown-field", "idempotency-key", "if-match", "client-key"],
)
def test_an_action_that_asks_more_than_a_plain_one_is_served_by_flask(
    routed, body, headers, status
):
    app, hooked = routed
    api = Api(app.test_client())
    game = new_game(api, seed=32, first_dealer=0)
    legal = api.get(game.path, token=game.tokens[1]).json()["deal"]["legal_actions"]
    hooked.clear()
    headers = {
        name: f'"{game.version}"' if value == "version" else value
        for name, value in headers.items()
    }
    answer = _post(app.test_client(), game, 1, legal[0] if body is None else body, **headers)
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert hooked == [f"/v1/games/{game.game_id}/actions"]


@pytest.mark.parametrize(
    ("seat", "token", "pick"),
    [(0, None, "legal"), (1, "not-a-seat-token", "legal"), (1, None, "illegal")],
    ids=["not-your-turn", "unknown-token", "card-not-held"],
)
def test_a_refused_plain_action_answers_flasks_problem(routed, seat, token, pick):
    app, _hooked = routed
    flask_path, served_game, flasks_game, deal = _twins(app, seed=33)
    api = Api(app.test_client())
    held = {card for card in deal["hand"]}
    action = deal["legal_actions"][0]
    if pick == "illegal":
        action = {
            "type": "play",
            "card": next(c for c in ("AS", "TS", "KS", "QS", "JS", "AH") if c not in held),
        }
    answers = []
    for client, game in ((app.test_client(), served_game), (flask_path, flasks_game)):
        own = f"{token}-{game.game_id}" if token else game.tokens[seat]  # a counter each
        sent = Game(game.game_id, {seat: own}, game.invite, game.version)
        answers.append(_post(client, sent, seat, action))
    served, flasks = answers
    assert served.status_code in (401, 409, 422), served.get_data(as_text=True)
    assert served.mimetype == "application/problem+json"
    _same(served, flasks, served_game.game_id, flasks_game.game_id)
    assert (
        api.get(served_game.path, token=served_game.tokens[1]).json()["version"]
        == served_game.version
    )


def test_an_action_below_flask_logs_one_access_line_with_its_request_id(routed, log_lines):
    app, _hooked = routed
    api = Api(app.test_client())
    game = new_game(api, seed=34, first_dealer=0)
    legal = api.get(game.path, token=game.tokens[1]).json()["deal"]["legal_actions"]
    answer = _post(app.test_client(), game, 1, legal[0], **{"X-Request-ID": "route-7"})
    assert answer.status_code == 200
    assert answer.headers["X-Request-ID"] == "route-7"
    access = [line for line in records(log_lines) if line.get("request_id") == "route-7"]
    assert [(line["logger"], line["route"], line["status"]) for line in access] == [
        ("service.access", "/v1/games/<game_id>/actions", 200)
    ]


@pytest.mark.parametrize("viewer", ["seat", "spectator"])
def test_a_plain_view_answers_as_flask_does_without_passing_its_hooks(routed, viewer):
    app, hooked = routed
    flask_path, served_game, flasks_game, _deal = _twins(app, seed=35)
    hooked.clear()
    answers = []
    for client, game in ((app.test_client(), served_game), (flask_path, flasks_game)):
        headers = {"Authorization": f"Bearer {game.tokens[0]}"} if viewer == "seat" else {}
        answers.append(client.get(game.path, headers=headers))
    served, flasks = answers
    assert served.status_code == 200, served.get_data(as_text=True)
    assert served.headers["ETag"] == f'"{served_game.version}"'
    _same(served, flasks, served_game.game_id, flasks_game.game_id)
    assert hooked == [flasks_game.path]


@pytest.mark.parametrize(
    ("query", "headers", "status"),
    [
        ("?x=1", {}, 200),
        ("", {"If-None-Match": "version"}, 304),
        ("", {"X-Client-Key": "no-such-key"}, 401),
        ("", {"Authorization": "Basic abc"}, 401),
    ],
    ids=["query", "if-none-match", "client-key", "not-bearer"],
)
def test_a_view_that_asks_more_than_a_plain_one_is_served_by_flask(routed, query, headers, status):
    app, hooked = routed
    game = new_game(Api(app.test_client()), seed=36, first_dealer=0)
    headers = {
        name: f'"{game.version}"' if value == "version" else value
        for name, value in headers.items()
    }
    hooked.clear()
    answer = app.test_client().get(game.path + query, headers=headers)
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert hooked == [game.path]


@pytest.mark.parametrize("refused", ["unknown-game", "unknown-token"])
def test_a_refused_plain_view_answers_flasks_problem(routed, refused):
    app, _hooked = routed
    flask_path, served_game, flasks_game, _deal = _twins(app, seed=37)
    answers = []
    for client, game in ((app.test_client(), served_game), (flask_path, flasks_game)):
        path = game.path + "x" if refused == "unknown-game" else game.path
        token = f"no-seat-{game.game_id}" if refused == "unknown-token" else game.tokens[0]
        answers.append(client.get(path, headers={"Authorization": f"Bearer {token}"}))
    served, flasks = answers
    assert served.status_code in (401, 404), served.get_data(as_text=True)
    assert served.mimetype == "application/problem+json"
    _same(served, flasks, served_game.game_id, flasks_game.game_id)


@pytest.mark.parametrize("path", ["/v1/games/live", "/v1/games/featured", "/v1/games/export"])
def test_a_path_of_a_views_shape_that_names_another_view_is_that_views(routed, path):
    app, hooked = routed
    flask_path = Client(functools.partial(Flask.wsgi_app, app), TestResponse)
    hooked.clear()
    served = app.test_client().get(path)
    assert hooked == [path]
    assert served.status_code == flask_path.get(path).status_code != 404
