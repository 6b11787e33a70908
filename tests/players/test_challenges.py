"""Challenges over HTTP against the real server: a named player of the same app accepts
or declines; an accept makes one game, whoever asks; nobody else sees or answers it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests

from tests.support.players import AppKey, bearer, new_app, register_over_http


def _player(url: str, app: AppKey) -> dict:
    body = register_over_http(url, app.headers, "Challenger")
    return {"id": body["player"]["player_id"], "token": body["token"]}


def _challenge(url: str, who: dict, whom: dict, **body) -> requests.Response:
    return requests.post(
        f"{url}/v1/challenges",
        json={"player_id": whom["id"], **body},
        headers=bearer(who["token"]),
        timeout=10,
    )


def test_a_challenged_player_accepts_and_both_learn_their_seats_in_one_game(
    live_server, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app), _player(url, app)
    made = _challenge(url, anna, ben, variant="tracked")
    assert made.status_code == 201, made.text
    challenge = made.json()
    assert challenge["status"] == "offered" and challenge["challenged"] == ben["id"]
    listed = requests.get(f"{url}/v1/challenges", headers=bearer(ben["token"]), timeout=10)
    assert [c["challenge_id"] for c in listed.json()["challenges"]] == [challenge["challenge_id"]]
    cid = challenge["challenge_id"]
    # the challenged player accepts twice at once: one game, the same answer
    with ThreadPoolExecutor(4) as pool:
        accepts = list(
            pool.map(
                lambda _: requests.post(
                    f"{url}/v1/challenges/{cid}/accept", headers=bearer(ben["token"]), timeout=20
                ),
                range(4),
            )
        )
    assert {answer.status_code for answer in accepts} == {201}
    assert len({(a.json()["game_id"], a.json()["token"]) for a in accepts}) == 1
    accepted = accepts[0].json()
    waited = requests.get(
        f"{url}/v1/challenges/{cid}", params={"wait": 5}, headers=bearer(anna["token"]), timeout=20
    ).json()
    assert waited["status"] == "accepted" and waited["game_id"] == accepted["game_id"]
    assert {waited["seat"], accepted["seat"]} == {0, 1}
    view = requests.get(
        f"{url}/v1/games/{accepted['game_id']}", headers=bearer(accepted["token"]), timeout=10
    ).json()
    assert view["seat"] == accepted["seat"] and view["variant"] == "tracked"
    assert {p["player_id"] for p in view["players"]} == {anna["id"], ben["id"]}


def test_a_declined_or_cancelled_challenge_is_never_accepted(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app), _player(url, app)
    first = _challenge(url, anna, ben).json()["challenge_id"]
    declined = requests.post(
        f"{url}/v1/challenges/{first}/decline", headers=bearer(ben["token"]), timeout=10
    )
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    late = requests.post(
        f"{url}/v1/challenges/{first}/accept", headers=bearer(ben["token"]), timeout=10
    )
    assert late.status_code == 409 and late.json()["code"] == "challenge_closed"
    second = _challenge(url, anna, ben).json()["challenge_id"]
    cancelled = requests.delete(
        f"{url}/v1/challenges/{second}", headers=bearer(anna["token"]), timeout=10
    )
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    late = requests.post(
        f"{url}/v1/challenges/{second}/accept", headers=bearer(ben["token"]), timeout=10
    )
    assert late.status_code == 409


def test_only_the_challenged_player_accepts_and_nobody_else_sees_it(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben, cleo = _player(url, app), _player(url, app), _player(url, app)
    eve = _player(url, new_app(redis_client))
    cid = _challenge(url, anna, ben).json()["challenge_id"]
    own = requests.post(
        f"{url}/v1/challenges/{cid}/accept", headers=bearer(anna["token"]), timeout=10
    )
    assert own.status_code == 409  # the challenger cannot accept its own challenge
    for stranger in (cleo, eve):
        seen = requests.get(
            f"{url}/v1/challenges/{cid}", headers=bearer(stranger["token"]), timeout=10
        )
        assert seen.status_code == 404 and seen.json()["code"] == "challenge_not_found"
        taken = requests.post(
            f"{url}/v1/challenges/{cid}/accept", headers=bearer(stranger["token"]), timeout=10
        )
        assert taken.status_code == 404
    assert _challenge(url, eve, anna).status_code == 404  # another app's player: unknown
    assert _challenge(url, anna, anna).json()["code"] == "challenge_self"
    still = requests.get(f"{url}/v1/challenges/{cid}", headers=bearer(ben["token"]), timeout=10)
    assert still.json()["status"] == "offered"


def test_a_players_challenge_records_are_bounded_however_many_it_cancels(live_server, redis_client):
    """Each challenge's record is kept a day; a player makes at most
    SCHNAPSEN_CHALLENGE_RECORDS_PER_PLAYER (100) of them within that day, open or closed,
    so cancelling as fast as it may does not grow Redis past that bound."""
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app), _player(url, app)
    for _ in range(100):
        made = _challenge(url, anna, ben)
        assert made.status_code == 201, made.text
        cid = made.json()["challenge_id"]
        cancelled = requests.delete(
            f"{url}/v1/challenges/{cid}", headers=bearer(anna["token"]), timeout=10
        )
        assert cancelled.status_code == 200, cancelled.text
    refused = _challenge(url, anna, ben)
    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "too_many_challenges"
    records = list(redis_client.scan_iter(match=f"sch:{{client:{app.id}}}:challenge:*"))
    assert len(records) == 100
    # The other player's own challenges are its own to make.
    assert _challenge(url, ben, anna).status_code == 201
