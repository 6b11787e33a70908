"""Seats and dealing, tried as a stranger would, over HTTP.

1. Seats stolen through the create ``Idempotency-Key``: idempotency records
   are scoped to the caller (its client key, else its address), so another
   caller with the same key is a new request and learns nothing.
3. Decks chosen by the creator are disclosed to everyone, before the first card.
"""

from __future__ import annotations

import uuid

import pytest

from tests.support.http import auth, session_from

VICTIM, STRANGER = "127.0.0.1", "127.0.0.2"
#: Guessable keys, yet long enough for an address's scope (shorter ones are refused:
#: tests/hardening/test_keys_behind_one_address.py).
WEAK_KEYS = ["0000000000000001", "0000000000000002", "create-game-0001", "1234567890123456"]


@pytest.fixture(scope="module")
def url(live_server) -> str:
    return live_server.url


def test_a_stranger_with_the_same_create_key_gets_a_game_of_its_own(url):
    victim, stranger = session_from(VICTIM), session_from(STRANGER)
    prefix = uuid.uuid4().hex[:6]  # keys of this run only (the records live a day)
    keys = [f"{prefix}{key}" for key in WEAK_KEYS] + WEAK_KEYS
    created = {}
    for key in keys:
        answer = victim.post(f"{url}/v1/games", json={}, headers={"Idempotency-Key": key})
        # a key the victim used in an earlier run answers that run's game: that is the victim's
        assert answer.status_code == 201, answer.text
        created[key] = answer.json()
    victim_tokens = {game["token"] for game in created.values()}
    victim_invites = {game["invite"] for game in created.values()}
    victim_games = {game["game_id"] for game in created.values()}

    # One stranger sends the victim's body, another a different one (no 422 either).
    strangers = [(stranger, {}), (session_from("127.0.0.4"), {"variant": "tracked"})]
    for key in keys:
        for other, body in strangers:
            answer = other.post(f"{url}/v1/games", json=body, headers={"Idempotency-Key": key})
            assert answer.status_code == 201, answer.text
            assert "Idempotent-Replayed" not in answer.headers
            game = answer.json()
            assert game["game_id"] not in victim_games
            assert game["token"] not in victim_tokens
            assert game["invite"] not in victim_invites
    # the victim's own retry still answers its own game, token and invite
    key = keys[0]
    again = victim.post(f"{url}/v1/games", json={}, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["token"] == created[key]["token"]
    assert again.json()["invite"] == created[key]["invite"]


def test_join_keys_are_scoped_to_the_joiner(url):
    creator, joiner, stranger = (session_from(a) for a in (VICTIM, "127.0.0.3", STRANGER))
    game = creator.post(f"{url}/v1/games", json={}).json()
    join = f"{url}/v1/games/{game['game_id']}/join"
    key = {"Idempotency-Key": "join-000000000001"}
    first = joiner.post(join, json={"invite": game["invite"]}, headers=key)
    assert first.status_code == 201, first.text
    # a stranger who saw the invite link and guesses the key gets no seat token
    stolen = stranger.post(join, json={"invite": game["invite"]}, headers=key)
    assert stolen.status_code == 409 and stolen.json()["code"] == "seat_taken", stolen.text
    assert "token" not in stolen.json()
    retried = joiner.post(join, json={"invite": game["invite"]}, headers=key)
    assert retried.status_code == 201 and retried.json()["token"] == first.json()["token"]


def _dealing_everywhere(url: str, body: dict) -> list[str]:
    """The ``dealing`` of a human game as every reader sees it: creator, joiner, spectator."""
    creator, joiner = session_from(VICTIM), session_from("127.0.0.3")
    game = creator.post(f"{url}/v1/games", json=body).json()
    game_id = game["game_id"]
    joined = joiner.post(f"{url}/v1/games/{game_id}/join", json={"invite": game["invite"]})
    assert joined.status_code == 201, joined.text
    seen = [game["dealing"], joined.json()["dealing"]]
    for headers in (auth(game["token"]), auth(joined.json()["token"]), {}):
        seen.append(creator.get(f"{url}/v1/games/{game_id}", headers=headers).json()["dealing"])
        replay = creator.get(f"{url}/v1/games/{game_id}/replay", headers=headers).json()
        seen.append(replay["dealing"])
        events = creator.get(f"{url}/v1/games/{game_id}/events", headers=headers).json()
        seen.append(events["events"][0]["dealing"])  # game_created
    return seen


def test_a_seeded_or_fixed_deal_is_shown_to_the_joiner_and_everyone(url):
    deck = ["AS", "TS", "KS", "QS", "JS", "AH", "TH", "KH", "QH", "JH",
            "AC", "TC", "KC", "QC", "JC", "AD", "TD", "KD", "QD", "JD"]  # fmt: skip
    assert set(_dealing_everywhere(url, {"seed": 424242})) == {"seeded"}
    assert set(_dealing_everywhere(url, {"deck": deck})) == {"fixed"}
    assert set(_dealing_everywhere(url, {"deck": deck, "seed": 5})) == {"fixed"}
    assert set(_dealing_everywhere(url, {})) == {"random"}
    assert set(_dealing_everywhere(url, {"first_dealer": 1})) == {"random"}
