"""The terminal client tells each event once: what a player reads of the feed."""

from __future__ import annotations

import io
import random

from service.client.terminal import Cards, Narrator
from service.engine.actions import ActionType
from service.engine.cards import DECK, Card
from service.engine.events import ActionTaken, DealStarted, GameCreated, SeatTaken
from service.engine.game import apply, legal_actions, new_game, start_deal, take_seat
from service.engine.replays import visible_events
from service.engine.state import Variant


def deal_until_the_turn_up_is_drawn(rng: random.Random) -> list:
    """One deal's log, played at random until the turned-up trump card is drawn."""
    deck: list[Card] = list(DECK)
    rng.shuffle(deck)
    events: list = [
        GameCreated(Variant.HEAD, 1),
        SeatTaken(0),
        SeatTaken(1),
        DealStarted(1, 1, tuple(deck)),
    ]
    state = start_deal(take_seat(take_seat(new_game(Variant.HEAD, 1), 0), 1), deck)
    while state.deal is not None and state.deal.talon:
        seat = state.to_move
        action = rng.choice([a for a in legal_actions(state) if a.type is ActionType.PLAY])
        events.append(ActionTaken(seat, action))
        state = apply(state, action, seat)
    return events


def test_the_narrator_names_the_turned_up_trump_card_once_when_the_player_takes_it():
    rng = random.Random(7)
    told = 0
    while told < 5:
        events = deal_until_the_turn_up_is_drawn(rng)
        for viewer in (0, 1):
            for event in visible_events(events, viewer):
                drawn = event.get("turn_up_drawn")
                if not drawn or drawn["seat"] != viewer:
                    continue
                narrator = Narrator(
                    ["You", "Player 2"] if viewer == 0 else ["Player 1", "You"],
                    Cards(io.StringIO()),
                )
                text = "\n".join(narrator.lines(event))
                card = narrator.show.card(drawn["card"])
                assert text.count(card) == 1, text
                assert "You take the trump card" in text, text
                told += 1
