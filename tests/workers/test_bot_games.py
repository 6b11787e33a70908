"""Human against bot, end to end: HTTP, a real RQ worker process, a real Redis."""

from __future__ import annotations

import pytest

from service.bots import LEVELS
from service.engine import ActionTaken, replay
from service.engine.observation import result_to_dict
from service.store.events import EventStore
from tests.support.bot_games import play_against_bot


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_a_whole_game_against_each_bot_level(client, worker, redis_client, level, variant):
    game_id, view = play_against_bot(
        client, level, seed=len(level) * 31 + len(variant), variant=variant
    )
    assert view["status"] == "finished" and view["winner"] in (0, 1)
    assert 0 in view["game_points"]
    log = EventStore(redis_client).events(game_id)
    truth = replay(log)
    assert truth.winner == view["winner"]
    assert [result_to_dict(r) for r in truth.results] == view["deals"]
    bot_moves = [e for e in log if isinstance(e, ActionTaken) and e.seat == 1]
    assert bot_moves, "the bot never moved"
    # every event has its own version: nothing was appended twice
    assert len(log) == view["version"]


def test_the_bot_moves_first_when_it_leads(client, worker):
    # first_dealer 0: the bot at seat 1 is the non-dealer and leads (R1c)
    game_id, view = play_against_bot(client, "random", seed=5, first_dealer=0)
    assert view["status"] == "finished"
    first_deal = client.get(f"/v1/games/{game_id}/replay").json["events"]
    first_action = next(e for e in first_deal if e["type"] == "action_taken")
    assert first_action["seat"] == 1
