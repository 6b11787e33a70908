"""The event feed and the game view are sent without a marshmallow dump (they are the
hottest answers), so their schemas' dumps must be the identity on everything the
engine produces: a field the engine sends and the schema lacks (or the reverse)
fails here."""

from __future__ import annotations

import random

import pytest

from schemas.games import EventSchema, EventsSchema, GameViewSchema
from service.engine import (
    ActionTaken,
    DealStarted,
    GameCreated,
    SeatTaken,
    Variant,
    apply,
    legal_actions,
    replay,
    start_deal,
)
from service.engine.observation import observe
from service.engine.replays import visible_events
from service.game.dealing import random_deck


def random_game(rng: random.Random, variant: Variant) -> list:
    events = [GameCreated(variant, rng.randrange(2)), SeatTaken(0), SeatTaken(1, "bot", "random")]
    state = replay(events)
    while state.winner is None:
        if state.awaiting_deal:
            deck = random_deck()
            state = start_deal(state, deck)
            events.append(DealStarted(state.deal.number, state.deal.dealer, deck, "ab" * 32))
            continue
        seat, action = state.to_move, rng.choice(legal_actions(state))
        state = apply(state, action, seat)
        events.append(ActionTaken(seat, action))
    return events


@pytest.mark.parametrize(
    "games",
    [
        pytest.param(5, id="sample"),
        pytest.param(20, id="all", marks=pytest.mark.heavy),
    ],
)
@pytest.mark.parametrize("variant", list(Variant))
def test_the_feeds_and_the_views_schemas_dump_what_the_engine_sends_unchanged(variant, games):
    """The fast lanes dump five random games of each variant, the heavy lane twenty
    (CONTRIBUTING.md)."""
    rng = random.Random(f"feed-{variant.value}")
    for _game in range(games):
        events = random_game(rng, variant)
        for version in (len(events) // 3, len(events)):  # running, and finished
            shown = events[:version]
            state = replay(shown)
            for viewer, invite in ((0, "an-invite"), (0, None), (1, None), (None, None)):
                feed = list(visible_events(shown, viewer))
                for event in feed:
                    assert EventSchema().dump(event) == event
                view = {**observe(state, viewer), "game_id": "g", "version": version,
                        "players": [{"seat": 0, "type": "human", "joined": True},
                                    {"seat": 1, "type": "bot", "level": "random",
                                     "joined": True}], "invite": invite}  # fmt: skip
                assert GameViewSchema().dump(view) == view
                body = {"game_id": "g", "version": version, "events": feed, "view": view}
                assert EventsSchema().dump(body) == body
