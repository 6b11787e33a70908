"""Replay exports in three formats: download, checksum, and replay to the same results."""

from __future__ import annotations

import base64
import hashlib

import pytest

from service.game.replay_export import events_from_export, parse, verify
from tests.support.bot_games import play_against_bot
from tests.support.http import auth


@pytest.fixture(scope="module")
def finished_game(client_module, worker):
    return play_against_bot(client_module, "random", seed=77)


@pytest.fixture(scope="module")
def client_module(app):
    return app.test_client()


def export(client, game_id, token, export_format):
    headers = auth(token) if token else {}
    response = client.post(
        f"/v1/games/{game_id}/exports", json={"format": export_format}, headers=headers
    )
    assert response.status_code == 202, response.json
    assert response.headers["Location"] == f"/v1/jobs/{response.json['id']}"
    job = client.get(f"{response.headers['Location']}?wait=20").json
    assert job["status"] == "finished", job
    download = client.get(job["result"]["url"], headers=headers)
    assert download.status_code == 200
    return job["result"], download


@pytest.mark.parametrize("export_format", ["json", "ndjson", "text"])
def test_export_round_trip(client_module, finished_game, export_format):
    game_id, view = finished_game
    # a spectator's export of a finished game: everything is public now (R11d)
    meta, download = export(client_module, game_id, None, export_format)
    assert meta["game_id"] == game_id and meta["viewer"] is None
    body = download.data
    assert hashlib.sha256(body).hexdigest() == meta["sha256"]
    digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
    assert download.headers["Repr-Digest"] == f"sha-256=:{digest}:"
    assert download.headers["Content-Type"].startswith(meta["content_type"].split(";")[0])
    if export_format == "text":
        text = body.decode()
        tricks = sum(1 for line in text.splitlines() if line.startswith("  trick "))
        replay_body = client_module.get(f"/v1/games/{game_id}/replay").json
        assert tricks == sum(1 for e in replay_body["events"] if "trick" in e)
        assert f"Game over: seat {view['winner']} wins" in text
        return
    document = parse(body, export_format)
    assert document["complete"] is True
    assert all(deal["deck"] and len(deal["deck"]) == 20 for deal in document["deals"])
    assert verify(document)
    assert [deal["result"] for deal in document["deals"]] == view["deals"]
    assert len(events_from_export(document)) == view["version"]


def test_a_tampered_export_fails_verification(client_module, finished_game):
    game_id, _view = finished_game
    meta, download = export(client_module, game_id, None, "json")
    document = parse(download.data, "json")
    result = document["deals"][0]["result"]
    result["winner"] = 1 - result["winner"]
    assert not verify(document)


def test_a_seats_export_needs_that_seats_token(client_module, worker):
    created = client_module.post(
        "/v1/games", json={"opponent": {"type": "bot", "level": "random"}, "seed": 8}
    ).json
    meta, download = export(client_module, created["game_id"], created["token"], "json")
    assert meta["viewer"] == 0
    assert client_module.get(meta["url"]).status_code == 401
    document = parse(download.data, "json")
    assert document["complete"] is False
    # while the deal runs the seat's own export hides the deck
    assert document["deals"][-1]["deck"] is None
