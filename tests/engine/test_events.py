"""Events: their JSON form, and the fold that rebuilds a game from them (R1a, R1c, R10c)."""

import json

import pytest

from service.engine import (
    DECK,
    EVENT_SCHEMA,
    Action,
    ActionTaken,
    ActionType,
    Card,
    Dealing,
    DealStarted,
    ErrorCode,
    GameCreated,
    InvalidDeckError,
    InvalidEventError,
    SeatTaken,
    Suit,
    Variant,
    apply_event,
    event_from_dict,
    event_to_dict,
    new_game,
    replay,
    start_deal,
    take_seat,
)
from tests.engine.builders import (
    E1_DEAL,
    E1_MOVES,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    codes,
    false_claim_deck,
    game_events,
    play,
    start,
)

EVENTS = [
    GameCreated(Variant.HEAD, 0),
    GameCreated(Variant.TRACKED, 1),
    SeatTaken(0),
    SeatTaken(1, "bot", "easy"),
    SeatTaken(1, "human", None),
    DealStarted(1, 1, FULL_DEAL),
    DealStarted(7, 0, tuple(reversed(FULL_DEAL))),
    ActionTaken(0, Action.play(Card.QH)),
    ActionTaken(1, Action.declare_marriage(Suit.SPADES)),
    ActionTaken(0, Action(ActionType.EXCHANGE_TRUMP_JACK)),
    ActionTaken(1, Action(ActionType.CLOSE_TALON)),
    ActionTaken(0, Action(ActionType.CLAIM)),
    ActionTaken(1, Action(ActionType.ACCEPT_LAST_TRICK)),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: f"{e.type}")
def test_event_dict_round_trip(event):
    data = event_to_dict(event)
    assert data["type"] == event.type
    assert data["v"] == EVENT_SCHEMA
    text = json.dumps(data)
    assert event_from_dict(json.loads(text)) == event


def test_r1a_a_log_written_before_dealing_was_recorded_still_reads_as_random():
    old = {"type": "game_created", "v": EVENT_SCHEMA, "variant": "head", "first_dealer": 0}
    assert event_from_dict(old) == GameCreated(Variant.HEAD, 0, Dealing.RANDOM)
    assert replay([event_from_dict(old)]).dealing is Dealing.RANDOM


def test_event_dict_forms():
    assert event_to_dict(GameCreated(Variant.TRACKED, 1)) == {
        "type": "game_created",
        "v": EVENT_SCHEMA,
        "variant": "tracked",
        "first_dealer": 1,
        "dealing": "random",
    }
    assert event_to_dict(GameCreated(Variant.HEAD, 0, Dealing.SEEDED))["dealing"] == "seeded"
    assert event_to_dict(ActionTaken(1, Action.play(Card.QH))) == {
        "type": "action_taken",
        "v": EVENT_SCHEMA,
        "seat": 1,
        "action": {"type": "play", "card": "QH"},
    }
    assert "level" not in event_to_dict(SeatTaken(0))
    assert event_to_dict(SeatTaken(1, "bot", "hard"))["level"] == "hard"


def _good(kind):
    return event_to_dict(
        {
            "game": GameCreated(Variant.HEAD, 0),
            "seat": SeatTaken(0),
            "deal": DealStarted(1, 0, FULL_DEAL),
            "action": ActionTaken(0, Action.play(Card.AC)),
        }[kind]
    )


@pytest.mark.parametrize(
    "kind, change",
    [
        ("game", {"v": None}),
        ("game", {"v": EVENT_SCHEMA + 1}),
        ("game", {"type": "game_deleted"}),
        ("game", {"variant": "blitz"}),
        ("game", {"first_dealer": 2}),
        ("game", {"first_dealer": True}),
        ("seat", {"seat": -1}),
        ("seat", {"seat": "0"}),
        ("deal", {"deck": ["AC", "XX"] + codes(FULL_DEAL[2:])}),
        ("deal", {"deck": None}),
        ("deal", {"dealer": 3}),
        ("action", {"action": {"type": "play", "card": "ZZ"}}),
        ("action", {"action": {"type": "dance"}}),
        ("action", {"seat": None}),
    ],
)
def test_event_from_bad_dict_raises_invalid_event(kind, change):
    data = {**_good(kind), **change}
    with pytest.raises(InvalidEventError) as caught:
        event_from_dict(data)
    assert caught.value.code is ErrorCode.INVALID_EVENT


@pytest.mark.parametrize("missing", ["type", "v", "seat", "action"])
def test_event_from_dict_with_missing_field_raises_invalid_event(missing):
    data = _good("action")
    del data[missing]
    with pytest.raises(InvalidEventError):
        event_from_dict(data)


def test_r1a_deal_started_event_records_the_deck_order():
    events = game_events([FULL_DEAL], [FULL_DEAL_OPEN[:4]])
    dealt = [event for event in events if isinstance(event, DealStarted)]
    assert len(dealt) == 1
    assert dealt[0].deck == FULL_DEAL
    assert event_to_dict(dealt[0])["deck"] == codes(FULL_DEAL)


def test_r1a_replay_of_the_log_is_exact():
    """Folding the stored log (through its JSON form) gives the very same state."""
    events = game_events([FULL_DEAL], [FULL_DEAL_OPEN])
    stored = [json.loads(json.dumps(event_to_dict(event))) for event in events]
    rebuilt = replay([event_from_dict(data) for data in stored])
    assert rebuilt == play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    assert rebuilt.deal.deck == FULL_DEAL
    # and again: replay draws no random numbers
    assert replay(events) == rebuilt


def test_r1a_replay_from_snapshot_equals_full_replay():
    events = game_events([FULL_DEAL], [FULL_DEAL_OPEN])
    snapshot = replay(events[:6])
    assert replay(events[6:], snapshot) == replay(events)


def test_r1a_stored_deck_that_is_not_a_full_pack_is_rejected():
    events = [GameCreated(Variant.HEAD, 1), SeatTaken(0), SeatTaken(1)]
    state = replay(events)
    bad = DealStarted(1, 1, FULL_DEAL[:19] + (FULL_DEAL[0],))
    with pytest.raises(InvalidEventError) as caught:
        apply_event(state, bad)
    assert "R1a" in str(caught.value)


def test_r1c_first_dealer_is_recorded_and_replayed():
    for first_dealer in (0, 1):
        deck = E1_DEAL
        events = game_events([deck], [()], first_dealer=first_dealer)
        assert events[0] == GameCreated(Variant.HEAD, first_dealer)
        state = replay(events)
        assert state.first_dealer == first_dealer
        assert state.deal.dealer == first_dealer
        assert state.deal.leader == 1 - first_dealer
        assert set(state.deal.hands[1 - first_dealer]) == set(deck[:5])


def test_r10c_deal_started_with_the_wrong_dealer_is_rejected():
    events = game_events([false_claim_deck()], [("marry H", "claim")])
    state = replay(events)
    assert state.next_dealer == 0  # the first dealer was seat 1
    with pytest.raises(InvalidEventError):
        apply_event(state, DealStarted(2, 1, E1_DEAL))
    with pytest.raises(InvalidEventError):
        apply_event(state, DealStarted(3, 0, E1_DEAL))
    assert apply_event(state, DealStarted(2, 0, E1_DEAL)).deal.dealer == 0


def test_invalid_event_sequences_are_rejected():
    with pytest.raises(InvalidEventError):
        replay([])
    with pytest.raises(InvalidEventError):
        apply_event(None, SeatTaken(0))
    with pytest.raises(InvalidEventError):
        apply_event(None, ActionTaken(0, Action.play(Card.AC)))
    created = apply_event(None, GameCreated(Variant.HEAD, 0))
    with pytest.raises(InvalidEventError):
        apply_event(created, GameCreated(Variant.HEAD, 0))
    seated = apply_event(created, SeatTaken(0))
    with pytest.raises(InvalidEventError):
        apply_event(seated, SeatTaken(0))


def test_stored_illegal_action_is_rejected_on_replay():
    events = game_events([E1_DEAL], [E1_MOVES[:1]])
    state = replay(events)
    # seat 1 must follow; seat 0 acting, or a card seat 1 lacks, do not apply
    with pytest.raises(InvalidEventError) as caught:
        apply_event(state, ActionTaken(0, Action.play(Card.AD)))
    assert caught.value.code is ErrorCode.INVALID_EVENT
    with pytest.raises(InvalidEventError):
        apply_event(state, ActionTaken(1, Action.play(Card.AS)))
    assert apply_event(state, ActionTaken(1, Action.play(Card.TC))).deal.tricks[0].winner == 0


@pytest.mark.parametrize("number", [True, "1", 0, -2, 1.0])
def test_r1a_deal_started_with_a_bad_number_is_refused(number):
    data = {"v": 1, "type": "deal_started", "number": number, "dealer": 0}
    data["deck"] = [card.value for card in DECK]
    with pytest.raises(InvalidEventError, match="not a deal number"):
        event_from_dict(data)


def test_r1a_start_deal_refuses_card_codes_instead_of_cards():
    game = take_seat(take_seat(new_game(), 0), 1)
    with pytest.raises(InvalidDeckError, match="Card values"):
        start_deal(game, [card.value for card in DECK])
