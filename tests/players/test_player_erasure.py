"""An app exports everything held about one of its players, then erases the player: the
name, the app's id for it and the service's id for it are gone from every answer, the
games stay readable and replayable with its seat anonymised, opponents' ratings stand.

On each back end of the database of record (SQLite in a file, a PostgreSQL database of
its own), with a live gunicorn, a real RQ worker, the archive's sweep and a webhook
receiver on loopback: player A plays five rated games (three against B, two against C:
enough games for the leaderboard; its deviation is then set to one no longer
provisional, in the database of record, as a player of many more games would have
it), rated by the worker and archived; a sixth, against B, is
still being played when the app erases A. After the erasure that game ends, C and D
play one more, and every read path is searched, as raw bytes, for A's name, the app's id
for A and A's player id: the games' views, replays, event feeds and streams, a replay
export, the app's listing and NDJSON export, the leaderboard, B's ratings and games,
the webhook delivery log, and the notices the receiver got after the erasure.
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from service.store.archive import open_archive
from service.store.records_db import open_records_database
from tests.support.admin import admin
from tests.support.http import auth
from tests.support.postgres import records_database
from tests.support.receiver import Receiver
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: Both runs start gunicorn and workers: the system lane (tests/conftest.py), both alike.
BACK_ENDS = ["sqlite", "postgresql"]
#: Tricks each rated game plays before its loser resigns: both ratings move (RX7).
TRICKS = 3


@contextlib.contextmanager
def deployment(tmp_path: Path, database_url: str) -> Iterator[tuple[str, LiveServer]]:
    """A Redis of its own, a gunicorn and a worker on it and the database; the archive
    takes a finished game at once and Redis forgets it at the next sweep."""
    redis_server = EmbeddedRedis(tmp_path / "redis").start()
    env = {
        "SCHNAPSEN_ARCHIVE_URL": database_url,
        "SCHNAPSEN_ARCHIVE_GRACE_SECONDS": "0",
        "SCHNAPSEN_SWEEP_SECONDS": "1",
        "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32",
        "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS": "2",
    }
    server = LiveServer(redis_server.url, workers=1, env=env)
    worker = WorkerProcess(redis_server.url, **env)
    try:
        yield redis_server.url, server
    finally:
        worker.stop()
        server.stop()
        redis_server.stop()


def new_app(redis_url: str, database_url: str, name: str) -> dict[str, Any]:
    done = admin(
        redis_url, "clients", "create", name, "--json", env={"SCHNAPSEN_ARCHIVE_URL": database_url}
    )
    return json.loads(done.stdout)


def call(server: LiveServer, method: str, path: str, key: str | None, **kwargs: Any):
    headers = auth(key) if key else {}
    return requests.request(method, f"{server.url}{path}", headers=headers, timeout=30, **kwargs)


def good(answer: requests.Response, *statuses: int) -> Any:
    assert answer.status_code in (statuses or (200,)), f"{answer.status_code} {answer.text}"
    return answer.json() if answer.content else None


def register(server: LiveServer, key: str, name: str) -> dict[str, Any]:
    body = {"app_player_id": f"user-{secrets.token_hex(5)}", "name": name}
    return good(call(server, "POST", "/v1/players", key, json=body), 201)


def started(server: LiveServer, first: dict, second: dict) -> tuple[str, dict[int, str]]:
    """A rated game created by ``first`` and joined by ``second``, a few tricks played."""
    created = good(call(server, "POST", "/v1/games", first["token"], json={"rated": True}), 201)
    game_id = created["game_id"]
    joined = good(
        call(server, "POST", f"/v1/games/{game_id}/join", second["token"],
             json={"invite": created["invite"]}),
        200, 201,
    )  # fmt: skip
    seats = {0: created["token"], 1: joined["token"]}
    rng, plays = random.Random(game_id), 0
    while plays < 2 * TRICKS:
        view = good(call(server, "GET", f"/v1/games/{game_id}", seats[0]))
        mover = good(call(server, "GET", f"/v1/games/{game_id}", seats[view["to_move"]]))
        cards = [a for a in mover["deal"]["legal_actions"] if a["type"] == "play"]
        action = rng.choice(cards or mover["deal"]["legal_actions"])
        good(call(server, "POST", f"/v1/games/{game_id}/actions", seats[view["to_move"]],
                  json=action))  # fmt: skip
        plays += action["type"] == "play"
    return game_id, seats


def played(server: LiveServer, first: dict, second: dict, loser: int) -> str:
    """A rated game played a few tricks, then resigned by seat ``loser``."""
    game_id, seats = started(server, first, second)
    good(call(server, "POST", f"/v1/games/{game_id}/resign", seats[loser]))
    return game_id


def archived(database_url: str, game_id: str) -> bool:
    archive = open_archive(database_url)
    try:
        return archive.get(game_id) is not None
    finally:
        archive.close()


def settled(database_url: str, player_id: str) -> None:
    """The player's default-pool rating no longer provisional (a deviation of 100, on the
    board), as many more rated games would leave it: five against two opponents leave a
    deviation far above the board's 110."""
    db = open_records_database(database_url)
    try:
        with db.write() as run:
            run(
                "UPDATE player_ratings SET deviation = 100, on_board = 1 "
                "WHERE player_id = ? AND pool = 'head-untimed'",
                (player_id,),
            )
    finally:
        db.close()


def forgotten(redis_url: str, game_id: str) -> bool:
    import redis

    with contextlib.closing(redis.Redis.from_url(redis_url)) as client:
        return not client.exists(f"sch:{{{game_id}}}:log")


def rating(server: LiveServer, key: str, player: dict) -> dict[str, Any]:
    return good(call(server, "GET", f"/v1/players/{player['player']['player_id']}", key))["rating"]


def history(server: LiveServer, key: str, player: dict) -> list[dict[str, Any]]:
    path = f"/v1/players/{player['player']['player_id']}/ratings?limit=200"
    return good(call(server, "GET", path, key))["changes"]


def exported(server: LiveServer, key: str, player_id: str) -> dict[str, Any]:
    return good(call(server, "GET", f"/v1/players/{player_id}/export", key))


def replay_export(server: LiveServer, game_id: str) -> bytes:
    """A spectator's replay export of the game, made by the worker, as downloaded."""
    job = good(call(server, "POST", f"/v1/games/{game_id}/exports", None, json={}), 202)

    def done() -> requests.Response | None:
        answer = call(server, "GET", job["export_url"], None)
        return answer if answer.status_code == 200 else None

    return wait_until(done, 60, "the replay export").content


def stream(server: LiveServer, game_id: str, key: str | None) -> bytes:
    """A finished game's whole SSE stream (it ends with the game)."""
    return call(server, "GET", f"/v1/games/{game_id}/stream?after=0", key).content


def all_delivered(server: LiveServer, key: str, hook_id: str, receiver: Receiver) -> bool:
    """Every notice made so far is delivered and in the receiver's hands: a delivery still
    under way when the erasure is made was made before it, and names the player."""
    listed = good(call(server, "GET", f"/v1/webhooks/{hook_id}/deliveries?limit=200", key))
    got = {json.loads(request["body"])["id"] for request in receiver.received()}
    deliveries = listed["deliveries"]
    return all(d["state"] == "delivered" for d in deliveries) and len(got) >= len(deliveries)


@pytest.mark.parametrize("back_end", BACK_ENDS)
def test_an_erased_player_is_in_no_answer_and_its_games_and_opponents_stand(
    back_end: str, request: pytest.FixtureRequest, tmp_path: Path
):
    with (
        records_database(
            back_end, lambda: request.getfixturevalue("postgres_url"), tmp_path
        ) as database_url,
        deployment(tmp_path, database_url) as (redis_url, server),
    ):
        app = new_app(redis_url, database_url, "erasing app")
        other = new_app(redis_url, database_url, "another app")
        key = app["key"]
        name = f"Zelda Erasable {secrets.token_hex(3)}"
        a, b = register(server, key, name), register(server, key, "Bruno")
        c, d = register(server, key, "Carla"), register(server, key, "Dora")
        a_id, a_app_id = a["player"]["player_id"], a["player"]["app_player_id"]
        receiver = Receiver(tmp_path)
        try:
            hook = good(call(server, "POST", "/v1/webhooks", key, json={"url": receiver.url}), 201)
            before = [
                played(server, a, b, 1),
                played(server, b, a, 1),
                played(server, a, b, 0),
                played(server, c, a, 0),
                played(server, a, c, 0),
            ]
            wait_until(lambda: rating(server, key, a)["games"] == 5, 60, "A's five ratings")
            for game_id in before:
                wait_until(lambda g=game_id: archived(database_url, g), 60, "the archiving")
            live, live_seats = started(server, a, b)
            settled(database_url, a_id)
            board = good(call(server, "GET", "/v1/leaderboard", key))["players"]
            assert [row["player"]["player_id"] for row in board] == [a_id]

            # The export: everything held about A, before the erasure.
            assert (
                call(server, "GET", f"/v1/players/{a_id}/export", other["key"]).status_code == 404
            )
            for credential in (a["token"], None):
                refused = call(server, "GET", f"/v1/players/{a_id}/export", credential)
                assert refused.status_code == 401, refused.text
            dump = wait_until(
                lambda: (found := exported(server, key, a_id))["webhook_deliveries"] and found,
                60,
                "the deliveries naming A in its export",
            )
            assert all(a_id in delivery["body"] for delivery in dump["webhook_deliveries"])
            assert dump["player"]["name"] == name
            assert dump["player"]["app_player_id"] == a_app_id
            assert dump["player"]["rating"]["games"] == 5
            assert {change["game_id"] for change in dump["ratings"]} == set(before)
            assert {game["game_id"] for game in dump["games"]} == {*before, live}

            opponents = {p["player"]["player_id"]: p for p in (b, c)}
            ratings = {pid: rating(server, key, p) for pid, p in opponents.items()}
            histories = {pid: history(server, key, p) for pid, p in opponents.items()}
            assert all(len(h) >= 2 for h in histories.values())
            wait_until(
                lambda: all_delivered(server, key, hook["webhook_id"], receiver),
                60,
                "every notice before the erasure delivered",
            )
            delivered = len(receiver.received())

            # The erasure.
            assert call(server, "DELETE", f"/v1/players/{a_id}", other["key"]).status_code == 404
            assert call(server, "DELETE", f"/v1/players/{a_id}", key).status_code == 204
            assert call(server, "DELETE", f"/v1/players/{a_id}", key).status_code == 404
            assert call(server, "GET", "/v1/players/me", a["token"]).status_code == 401
            assert call(server, "GET", f"/v1/players/{a_id}", key).status_code == 404
            assert call(server, "GET", f"/v1/players/{a_id}/export", key).status_code == 404

            # The game in play goes on, A's seat anonymised; then C and D play.
            seat_of_a = 0
            view = good(call(server, "GET", f"/v1/games/{live}", live_seats[1]))
            assert view["players"][seat_of_a].get("erased") is True
            good(call(server, "POST", f"/v1/games/{live}/resign", live_seats[1]))
            after = played(server, c, d, 1)
            for game_id in (live, after):
                wait_until(lambda g=game_id: archived(database_url, g), 60, "the archiving")
            wait_until(
                lambda: any(
                    json.loads(r["body"])["type"] == "game.finished"
                    and json.loads(r["body"])["data"]["game_id"] == live
                    for r in receiver.received()
                ),
                60,
                "the notice of the game in play's end",
            )
            for game_id in before[:2]:
                wait_until(lambda g=game_id: forgotten(redis_url, g), 60, "Redis to forget")

            # Opponents' ratings and histories stand (their numbers; the opponent is anonymous).
            for pid, player in opponents.items():
                now = rating(server, key, player)
                if pid == c["player"]["player_id"]:
                    assert now["games"] == ratings[pid]["games"] + 1  # the game after
                else:
                    assert now == ratings[pid]
                kept = [e for e in history(server, key, player) if e["game_id"] != after]
                drop = ("opponent",)
                assert [{k: v for k, v in e.items() if k not in drop} for e in kept] == [
                    {k: v for k, v in e.items() if k not in drop} for e in histories[pid]
                ]

            # Every read path, searched as raw bytes.
            answers: dict[str, bytes] = {}
            every = [*before, live, after]
            for game_id in every:
                for path in ("", "/replay", "/events?after=0"):
                    reply = call(server, "GET", f"/v1/games/{game_id}{path}", None)
                    assert reply.status_code == 200, (game_id, path, reply.text)
                    answers[f"{game_id}{path}"] = reply.content
                answers[f"{game_id} stream"] = stream(server, game_id, None)
            for game_id, seat in ((live, 1), (live, 0)):
                for path in ("", "/replay", "/events?after=0"):
                    reply = call(server, "GET", f"/v1/games/{game_id}{path}", live_seats[seat])
                    assert reply.status_code == 200, reply.text
                    answers[f"{game_id}{path} seat {seat}"] = reply.content
            answers["replay export"] = replay_export(server, before[0])
            b_id = b["player"]["player_id"]
            for path, credential in (
                ("/v1/games?client=me&limit=100", key),
                ("/v1/games/export?client=me", key),
                ("/v1/leaderboard", key),
                (f"/v1/players/{b_id}", key),
                (f"/v1/players/{b_id}/ratings?limit=200", key),
                ("/v1/players/me/games?limit=200", b["token"]),
                ("/v1/players/me", b["token"]),
                (f"/v1/webhooks/{hook['webhook_id']}/deliveries?limit=200", key),
            ):
                reply = call(server, "GET", path, credential)
                assert reply.status_code == 200, (path, reply.text)
                answers[path] = reply.content
            listed = json.loads(answers["/v1/games?client=me&limit=100"])["games"]
            assert {g["game_id"] for g in listed} >= set(every)
            assert json.loads(answers["/v1/leaderboard"])["players"] == []
            for index, notice in enumerate(receiver.received()[delivered:]):
                answers[f"notice {index}"] = notice["body"].encode()
            assert any(k.startswith("notice") for k in answers)
            for secret in (name, a_id, a_app_id):
                found = [where for where, body in answers.items() if secret.encode() in body]
                assert not found, f"{secret!r} is still in {found}"
            for game_id in every[:-1]:
                replay = json.loads(answers[f"{game_id}/replay"])
                seats = replay["state"]["players"]
                assert [s.get("erased", False) for s in seats].count(True) == 1, seats
        finally:
            receiver.stop()


def test_a_keyed_registration_retried_after_the_erasure_replays_nothing_of_the_erased_player(
    live_server: LiveServer, redis_client
):
    from tests.support.players import new_app as app_in_redis

    app = app_in_redis(redis_client, "keyed erasure")
    name = f"Zelda Keyed {secrets.token_hex(3)}"
    body = {"app_player_id": f"user-{secrets.token_hex(5)}", "name": name}
    headers = {**app.headers, "Idempotency-Key": f"register-{secrets.token_hex(8)}"}

    def registration() -> requests.Response:
        return requests.post(
            f"{live_server.url}/v1/players", json=body, headers=headers, timeout=30
        )

    first = good(registration(), 201)
    renamed = good(
        requests.post(
            f"{live_server.url}/v1/players",
            json={**body, "name": f"{name} Renamed"},
            headers={**app.headers, "Idempotency-Key": f"rename-{secrets.token_hex(8)}"},
            timeout=30,
        ),
        201,
    )
    erased_id = first["player"]["player_id"]
    assert renamed["player"]["player_id"] == erased_id  # the same player, named again
    assert registration().headers.get("Idempotent-Replayed") == "true"
    assert call(live_server, "DELETE", f"/v1/players/{erased_id}", app.key).status_code == 204

    retried = registration()
    assert retried.status_code == 201, retried.text
    assert retried.headers.get("Idempotent-Replayed") is None
    again = retried.json()
    assert again["player"]["player_id"] != erased_id
    assert again["token"] not in (first["token"], renamed["token"])
    assert call(live_server, "GET", f"/v1/players/{erased_id}", app.key).status_code == 404
    for stored in redis_client.scan_iter(match="sch:answer:*"):
        kept = redis_client.get(stored) or b""
        for secret in (erased_id, first["token"], renamed["token"]):
            assert secret.encode() not in kept, f"{stored!r} still holds {secret!r}"
