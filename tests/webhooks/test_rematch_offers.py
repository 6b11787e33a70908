"""Every rematch offer reaches the app: an offer made again after a decline is a notice of
its own. Over HTTP against gunicorn, a real RQ worker and a real receiver process."""

from __future__ import annotations

import json

import requests

from tests.support.players import bearer
from tests.support.receiver import Receiver
from tests.support.waiting import wait_until
from tests.support.webhook_games import app_key, player_token, register


def _offers(receiver: Receiver) -> list[dict]:
    found = []
    for request in receiver.received():
        body = json.loads(request["body"])
        if request["status"] == 200 and body["type"] == "rematch.offered":
            found.append(body)
    return found


def _two_offers(found: list[dict]) -> list[dict] | None:
    return found if len({offer["id"] for offer in found}) >= 2 else None


def _post(url: str, path: str, token: str, body: dict | None = None) -> dict:
    answer = requests.post(f"{url}{path}", json=body or {}, headers=bearer(token), timeout=10)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def test_an_offer_made_again_after_a_decline_is_delivered_again_with_its_own_id(allowed):
    receiver = Receiver(allowed.folder)
    try:
        key = app_key(allowed.redis)
        register(allowed.url, key, receiver.url, ["rematch.offered"])
        anna, ben = player_token(allowed.url, key, "anna"), player_token(allowed.url, key, "ben")
        created = _post(allowed.url, "/v1/games", anna["token"])
        game = f"/v1/games/{created['game_id']}"
        joined = _post(allowed.url, f"{game}/join", ben["token"], {"invite": created["invite"]})
        _post(allowed.url, f"{game}/resign", joined["token"])

        assert _post(allowed.url, f"{game}/rematch", created["token"])["status"] == "offered"
        first = wait_until(lambda: _offers(receiver), 60, "the first offer's notice")
        _post(allowed.url, f"{game}/rematch/decline", joined["token"])
        assert _post(allowed.url, f"{game}/rematch", created["token"])["status"] == "offered"
        both = wait_until(lambda: _two_offers(_offers(receiver)), 60, "the second offer's notice")
        assert first[0]["id"] in {offer["id"] for offer in both}
        assert len({offer["id"] for offer in both}) == 2
        assert {offer["data"]["seat"] for offer in both} == {1}
    finally:
        receiver.stop()
