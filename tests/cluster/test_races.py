"""The conflicting-action race across API replicas: exactly one append per version.

For each race the seat to move sends a different legal action (where it has
more than one) to each of the three replicas at the same moment, each with the
version it saw. The append script checks the version in the game's slot, on
its primary, whichever replica sent it: one wins, the others answer 409
``stale_version``, and the log holds exactly the winners' actions.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.engine import ActionTaken
from service.store.events import EventStore
from tests.support.cluster_games import new_human_game, view
from tests.support.http import auth

pytestmark = pytest.mark.cluster

RACES = 240
CLIENTS = 4


def race_games(topology, races: int, seed: int) -> dict:
    """Races in games of one client; returns per game the winners' (seat, action) in order."""
    rng = random.Random(seed)
    session = requests.Session()
    senders = [requests.Session() for _ in topology.urls]
    winners: dict[str, list] = {}
    game = new_human_game(topology.next_url, session)
    winners[game.game_id] = []
    done = 0
    while done < races:
        seen = view(topology.next_url, session, game, 0)
        if seen["status"] == "finished":
            game = new_human_game(topology.next_url, session)
            winners[game.game_id] = []
            continue
        seat = seen["to_move"]
        legal = view(topology.next_url, session, game, seat)["deal"]["legal_actions"]
        picks = [legal[i % len(legal)] for i in rng.sample(range(len(legal)), len(legal))]
        bodies = [dict(picks[i % len(picks)], expected_version=seen["version"])
                  for i in range(len(topology.urls))]  # fmt: skip
        barrier = threading.Barrier(len(bodies))

        def post(index: int, bodies=bodies, barrier=barrier, seat=seat, game=game):
            barrier.wait()
            return senders[index].post(
                f"{topology.urls[index]}/v1/games/{game.game_id}/actions",
                json=bodies[index],
                headers=auth(game.tokens[seat]),
                timeout=30,
            )

        with ThreadPoolExecutor(len(bodies)) as pool:
            answers = list(pool.map(post, range(len(bodies))))
        won = [i for i, answer in enumerate(answers) if answer.status_code == 200]
        assert len(won) == 1, [(a.status_code, a.text[:200]) for a in answers]
        for i, answer in enumerate(answers):
            if i not in won:
                assert answer.status_code == 409, answer.text
                assert answer.json()["code"] == "stale_version"
        body = dict(bodies[won[0]])
        del body["expected_version"]
        winners[game.game_id].append((seat, body))
        done += 1
    return winners


def test_races_across_replicas_append_exactly_one_action_per_version(topology):
    """Over 240 races (3 replicas each): one 200 and two 409 per race, and each log is
    exactly the sequence of the races' winners."""
    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(
            pool.map(lambda i: race_games(topology, RACES // CLIENTS, i), range(CLIENTS))
        )
    store = EventStore(topology.log)
    races = 0
    for winners in results:
        for game_id, won in winners.items():
            logged = [(e.seat, e.action.to_dict()) for e in store.events(game_id)
                      if isinstance(e, ActionTaken)]  # fmt: skip
            assert logged == won
            races += len(won)
    assert races >= 200
