"""Idempotent retries sent to different API replicas: one append, the same answer.

A create's key is bound in a key of its own (``sch:create:<digest>``, one
slot of its own), an action's key in the game's idempotency hash (the game's
slot), so whichever replica a retry reaches finds the record the first request
left.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.store.events import EventStore
from tests.support.cluster_games import new_human_game, view
from tests.support.http import auth

pytestmark = pytest.mark.cluster


def test_a_create_retried_on_every_replica_creates_one_game(topology):
    key = {"Idempotency-Key": str(uuid.uuid4())}
    answers = [requests.post(f"{url}/v1/games", json={}, headers=key, timeout=10)
               for url in topology.urls]  # fmt: skip
    assert {a.status_code for a in answers} == {201}
    assert len({a.json()["game_id"] for a in answers}) == 1
    assert len({a.json()["token"] for a in answers}) == 1
    assert [a.headers.get("Idempotent-Replayed") for a in answers][1:] == ["true", "true"]


def _an_action_to_retry(topology, session: requests.Session):
    """A new game, a legal action of its seat to move, that seat's headers with a fresh
    Idempotency-Key, and the path to post it to."""
    game = new_human_game(topology.next_url, session)
    seat = view(topology.next_url, session, game, 0)["to_move"]
    action = view(topology.next_url, session, game, seat)["deal"]["legal_actions"][0]
    headers = {**auth(game.tokens[seat]), "Idempotency-Key": str(uuid.uuid4())}
    return game, action, headers, f"/v1/games/{game.game_id}/actions"


def test_an_action_retried_on_other_replicas_is_appended_once(topology):
    game, action, headers, url = _an_action_to_retry(topology, requests.Session())
    answers = [requests.post(base + url, json=action, headers=headers, timeout=10)
               for base in topology.urls]  # fmt: skip
    assert {a.status_code for a in answers} == {200}
    assert len({a.json()["version"] for a in answers}) == 1
    assert [a.headers.get("Idempotent-Replayed") for a in answers] == [None, "true", "true"]
    assert EventStore(topology.log).head(game.game_id) == answers[0].json()["version"]


def test_concurrent_retries_on_three_replicas_append_once(topology):
    """The same request at the same moment on every replica: one append, three equal answers."""
    session = requests.Session()
    for _ in range(10):
        game, action, headers, url = _an_action_to_retry(topology, session)
        with ThreadPoolExecutor(3) as pool:
            sent = [pool.submit(requests.post, base + url, json=action, headers=headers,
                                timeout=10) for base in topology.urls]  # fmt: skip
            answers = [future.result() for future in sent]
        assert {a.status_code for a in answers} == {200}, [a.text for a in answers]
        versions = {a.json()["version"] for a in answers}
        assert len(versions) == 1
        assert EventStore(topology.log).head(game.game_id) == versions.pop()
        replayed = [a.headers.get("Idempotent-Replayed") for a in answers]
        assert replayed.count(None) == 1, replayed
