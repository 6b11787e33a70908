"""An Idempotency-Key belongs to the player (or app) that sends it, and names no id, token
or game: it only finds the first answer again, and only within the retry window.

Over HTTP against gunicorn, from one address, as players of one app behind a NAT
would call: another player's same key is another request; a key reused once its
records and its answer expired makes a new seek, challenge or token, never the
old game's seat; the same key with another body is refused.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.players import bearer, new_app
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Seconds a seek's and a challenge's record and a keyed answer are kept by ``short_lived``.
RECORDS_KEPT = 2
_TIMEOUT = 30


@dataclass(frozen=True)
class Player:
    id: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.token)


@pytest.fixture(scope="module")
def short_lived(redis_url: str) -> Iterator[LiveServer]:
    """gunicorn keeping seek and challenge records and keyed answers ``RECORDS_KEPT`` s."""
    kept = str(RECORDS_KEPT)
    server = LiveServer(
        redis_url,
        workers=1,
        env={
            "SCHNAPSEN_SEEK_RECORD_SECONDS": kept,
            "SCHNAPSEN_CHALLENGE_RECORD_SECONDS": kept,
            "SCHNAPSEN_IDEMPOTENCY_SECONDS": kept,
            "SCHNAPSEN_LOG_LEVEL": "WARNING",
        },
    )
    try:
        yield server
    finally:
        server.stop()


def _post(url: str, path: str, body: Any, headers: dict[str, str]) -> requests.Response:
    return requests.post(f"{url}{path}", json=body, headers=headers, timeout=_TIMEOUT)


def _get(url: str, path: str, headers: dict[str, str]) -> requests.Response:
    return requests.get(f"{url}{path}", headers=headers, timeout=_TIMEOUT)


def _players(url: str, app_headers: dict[str, str], count: int) -> list[Player]:
    made = []
    for _ in range(count):
        answer = _post(
            url,
            "/v1/players",
            {"app_player_id": f"p-{uuid.uuid4().hex[:12]}", "name": "Player"},
            app_headers,
        )
        assert answer.status_code == 201, answer.text
        made.append(Player(answer.json()["player"]["player_id"], answer.json()["token"]))
    return made


def _key(value: str) -> dict[str, str]:
    return {"Idempotency-Key": value}


def _paired(url: str, player: Player, seek_id: str) -> dict[str, Any]:
    answer = _get(url, f"/v1/seeks/{seek_id}?wait=10", player.headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "paired", answer.json()
    return answer.json()


def _forgotten(url: str, player: Player, path: str) -> bool:
    return _get(url, path, player.headers).status_code == 404


def test_a_seek_key_reused_after_the_records_expired_never_hands_out_the_old_games_seats(
    short_lived, redis_url
):
    url = short_lived.url
    app = new_app(redis.Redis.from_url(redis_url))
    a, b, c, d = _players(url, app.headers, 4)
    key = str(uuid.uuid4())
    waiting = _post(url, "/v1/seeks", {}, b.headers).json()
    first = _post(url, "/v1/seeks", {}, {**a.headers, **_key(key)})
    assert first.status_code == 201 and first.json()["status"] == "paired", first.text
    game, a_token = first.json()["game_id"], first.json()["token"]
    b_token = _paired(url, b, waiting["seek_id"])["token"]

    wait_until(
        lambda: _forgotten(url, a, f"/v1/seeks/{first.json()['seek_id']}"),
        _TIMEOUT,
        "A's seek record to expire",
    )
    other_waiting = _post(url, "/v1/seeks", {}, c.headers).json()
    late = _post(url, "/v1/seeks", {}, {**d.headers, **_key(key)})
    assert late.status_code == 201, late.text
    assert late.json()["status"] == "paired", late.json()
    assert late.json()["game_id"] != game
    assert late.json()["token"] not in (a_token, b_token)
    assert late.json()["seek_id"] != first.json()["seek_id"]
    c_answer = _paired(url, c, other_waiting["seek_id"])
    assert c_answer["game_id"] == late.json()["game_id"] != game
    assert c_answer["token"] not in (a_token, b_token)
    # D's and C's tokens open their own game, not A's and B's
    assert _get(url, f"/v1/games/{game}", bearer(late.json()["token"])).status_code in (401, 403)
    assert _get(url, f"/v1/games/{late.json()['game_id']}", bearer(c_answer["token"])).ok

    # the same player's key, its answer expired too: a new seek, not the old one again
    again = _post(url, "/v1/seeks", {}, {**a.headers, **_key(key)})
    assert again.status_code == 201, again.text
    assert again.json()["seek_id"] != first.json()["seek_id"]
    assert again.json()["status"] == "waiting"
    assert "Idempotent-Replayed" not in again.headers


def test_a_challenge_key_reused_after_the_records_expired_never_hands_out_the_old_game(
    short_lived, redis_url
):
    url = short_lived.url
    app = new_app(redis.Redis.from_url(redis_url))
    a, b, c, d = _players(url, app.headers, 4)
    key = str(uuid.uuid4())
    made = _post(url, "/v1/challenges", {"player_id": b.id}, {**a.headers, **_key(key)})
    assert made.status_code == 201, made.text
    accepted = _post(url, f"/v1/challenges/{made.json()['challenge_id']}/accept", None, b.headers)
    assert accepted.status_code == 201, accepted.text
    game, b_token = accepted.json()["game_id"], accepted.json()["token"]
    a_token = _get(url, f"/v1/challenges/{made.json()['challenge_id']}", a.headers).json()["token"]

    wait_until(
        lambda: _forgotten(url, a, f"/v1/challenges/{made.json()['challenge_id']}"),
        _TIMEOUT,
        "A's challenge record to expire",
    )
    late = _post(url, "/v1/challenges", {"player_id": d.id}, {**c.headers, **_key(key)})
    assert late.status_code == 201, late.text
    assert (late.json()["challenger"], late.json()["challenged"]) == (c.id, d.id)
    taken = _post(url, f"/v1/challenges/{late.json()['challenge_id']}/accept", None, d.headers)
    assert taken.status_code == 201, taken.text
    assert taken.json()["game_id"] != game
    assert taken.json()["token"] not in (a_token, b_token)
    assert late.json()["challenge_id"] != made.json()["challenge_id"]
    assert _get(url, f"/v1/games/{game}", bearer(taken.json()["token"])).status_code in (401, 403)


def test_two_players_behind_one_address_seeking_with_the_same_short_key_each_get_their_own_seek(
    live_server, redis_url
):
    url = live_server.url
    app = new_app(redis.Redis.from_url(redis_url))
    first, second = _players(url, app.headers, 2)
    one = _post(url, "/v1/seeks", {}, {**first.headers, **_key("1")})
    other = _post(url, "/v1/seeks", {}, {**second.headers, **_key("1")})
    assert one.status_code == 201, one.text
    assert other.status_code == 201, other.text
    assert other.json()["seek_id"] != one.json()["seek_id"]
    assert "Idempotent-Replayed" not in other.headers
    # the second seek is the second player's own: it may wait on it, the first may not
    assert _get(url, f"/v1/seeks/{other.json()['seek_id']}", second.headers).ok
    assert _forgotten(url, first, f"/v1/seeks/{other.json()['seek_id']}")


def test_another_players_challenge_with_the_same_key_is_its_own_challenge(live_server, redis_url):
    url = live_server.url
    app = new_app(redis.Redis.from_url(redis_url))
    a, b, c = _players(url, app.headers, 3)
    key = _key(str(uuid.uuid4()))
    mine = _post(url, "/v1/challenges", {"player_id": b.id}, {**a.headers, **key})
    theirs = _post(url, "/v1/challenges", {"player_id": a.id}, {**c.headers, **key})
    assert mine.status_code == theirs.status_code == 201, theirs.text
    assert theirs.json()["challenge_id"] != mine.json()["challenge_id"]
    assert (theirs.json()["challenger"], theirs.json()["challenged"]) == (c.id, a.id)
    assert theirs.json()["status"] == "offered"
    received = _get(url, "/v1/challenges", a.headers).json()["challenges"]
    assert {ch["challenge_id"] for ch in received} == {
        mine.json()["challenge_id"],
        theirs.json()["challenge_id"],
    }


def test_a_late_retry_of_a_registration_never_brings_back_a_replaced_token(live_server, redis_url):
    url = live_server.url
    app = new_app(redis.Redis.from_url(redis_url))
    body = {"app_player_id": f"p-{uuid.uuid4().hex[:12]}", "name": "Anna"}
    key = _key(str(uuid.uuid4()))
    first = _post(url, "/v1/players", body, {**app.headers, **key})
    assert first.status_code == 201, first.text
    second = _post(url, "/v1/players", body, app.headers)
    assert second.status_code == 201, second.text
    old, new = first.json()["token"], second.json()["token"]
    assert _get(url, "/v1/players/me", bearer(old)).status_code == 401

    retried = _post(url, "/v1/players", body, {**app.headers, **key})
    assert retried.status_code == 201, retried.text
    assert _get(url, "/v1/players/me", bearer(old)).status_code == 401
    assert _get(url, "/v1/players/me", bearer(new)).status_code == 200
    assert retried.headers.get("Idempotent-Replayed") == "true"


def test_a_registration_key_reused_after_its_answer_expired_makes_a_new_token(
    short_lived, redis_url
):
    url = short_lived.url
    app = new_app(redis.Redis.from_url(redis_url))
    body = {"app_player_id": f"p-{uuid.uuid4().hex[:12]}", "name": "Anna"}
    key = _key(str(uuid.uuid4()))
    first = _post(url, "/v1/players", body, {**app.headers, **key})
    assert first.status_code == 201, first.text
    late = wait_until(
        lambda: (
            None
            if (answer := _post(url, "/v1/players", body, {**app.headers, **key})).headers.get(
                "Idempotent-Replayed"
            )
            else answer
        ),
        _TIMEOUT,
        "the registration's answer to expire",
    )
    assert late.status_code == 201, late.text
    assert late.json()["token"] != first.json()["token"]
    assert _get(url, "/v1/players/me", bearer(late.json()["token"])).status_code == 200
    assert _get(url, "/v1/players/me", bearer(first.json()["token"])).status_code == 401


def _reused(answer: requests.Response) -> None:
    assert answer.status_code == 422, answer.text
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "idempotency_key_reused"


def _register_twice(url: str, app_headers: dict[str, str]) -> None:
    key = _key(str(uuid.uuid4()))
    anna = {"app_player_id": f"p-{uuid.uuid4().hex[:12]}", "name": "Anna"}
    registered = _post(url, "/v1/players", anna, {**app_headers, **key})
    assert registered.status_code == 201, registered.text
    _reused(_post(url, "/v1/players", {**anna, "name": "Berta"}, {**app_headers, **key}))
    player = Player(registered.json()["player"]["player_id"], registered.json()["token"])
    assert _get(url, "/v1/players/me", player.headers).json()["name"] == "Anna"


def _seek_twice(url: str, app_headers: dict[str, str]) -> None:
    (player,) = _players(url, app_headers, 1)
    key = _key(str(uuid.uuid4()))
    seek = _post(url, "/v1/seeks", {}, {**player.headers, **key})
    assert seek.status_code == 201, seek.text
    _reused(_post(url, "/v1/seeks", {"rated": True}, {**player.headers, **key}))
    assert _get(url, f"/v1/seeks/{seek.json()['seek_id']}", player.headers).json()["rated"] is False


def _hook_twice(url: str, app_headers: dict[str, str]) -> None:
    key = _key(str(uuid.uuid4()))
    hook = {"url": "https://hooks.example.test/one", "events": ["game.finished"]}
    made = _post(url, "/v1/webhooks", hook, {**app_headers, **key})
    assert made.status_code == 201, made.text
    other = {**hook, "url": "https://hooks.example.test/two"}
    _reused(_post(url, "/v1/webhooks", other, {**app_headers, **key}))
    listed = _get(url, "/v1/webhooks", app_headers).json()["webhooks"]
    assert [w["url"] for w in listed] == ["https://hooks.example.test/one"]


@pytest.mark.parametrize(
    "twice", [_register_twice, _seek_twice, _hook_twice], ids=["players", "seeks", "webhooks"]
)
def test_the_same_key_with_another_body_is_refused(live_server, redis_url, twice):
    twice(live_server.url, new_app(redis.Redis.from_url(redis_url)).headers)


def test_a_players_join_key_is_the_players_own_not_its_address(live_server, redis_url):
    url = live_server.url
    app = new_app(redis.Redis.from_url(redis_url))
    creator, joiner, other = _players(url, app.headers, 3)
    made = _post(url, "/v1/games", {"opponent": {"type": "human"}}, creator.headers)
    assert made.status_code == 201, made.text
    join = f"/v1/games/{made.json()['game_id']}/join"
    body = {"invite": made.json()["invite"]}
    # a short key is the player's own: other devices behind the address never share it
    seated = _post(url, join, body, {**joiner.headers, **_key("1")})
    assert seated.status_code == 201, seated.text
    again = _post(url, join, body, {**joiner.headers, **_key("1")})
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["token"] == seated.json()["token"]
    # another player's same key is its own request: the seat is taken, nothing replayed
    late = _post(url, join, body, {**other.headers, **_key("1")})
    assert late.status_code == 409, late.text
    assert late.json()["code"] == "seat_taken"


def test_a_create_key_names_no_game_two_deployments_with_one_secret_make_two_random_ids(
    tmp_path,
):
    """The same caller's same key on two services that share the server's secret (each its
    own Redis): were the id derived from the key, both would name one game."""
    key = _key(str(uuid.uuid4()))
    made = []
    for name in ("one", "two"):
        with EmbeddedRedis(tmp_path / name) as store:
            server = LiveServer(store.url, workers=1, env={"SCHNAPSEN_LOG_LEVEL": "WARNING"})
            try:
                answer = _post(server.url, "/v1/games", {"opponent": {"type": "human"}}, key)
                assert answer.status_code == 201, answer.text
                again = _post(server.url, "/v1/games", {"opponent": {"type": "human"}}, key)
                assert again.headers.get("Idempotent-Replayed") == "true"
                assert again.json()["game_id"] == answer.json()["game_id"]
                made.append(answer.json()["game_id"])
            finally:
                server.stop()
    assert made[0] != made[1]
