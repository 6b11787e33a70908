"""R11: what each player and each spectator may know (observe, observe_event, replays)."""

import pytest

from service.engine import Card, GameState, Rank, legal_actions, observe, replay
from service.engine.replays import replay_record, state_at, visible_events
from tests.engine.builders import (
    BALANCED_DEAL,
    BALANCED_MOVES,
    CLOSED_DEAL,
    CLOSED_MOVES,
    E1_DEAL,
    E1_MOVES,
    E2_DEAL,
    E2_TO_66,
    E2_TO_CLOSE,
    E2_TO_END,
    E5_DEAL,
    E5_TO_70,
    EXCHANGE_DEAL,
    EXCHANGE_FOUR_TRICKS,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    FULL_DEAL_STRICT,
    TRACKED,
    card_codes_in,
    codes,
    false_claim_deck,
    game_events,
    play,
    play_states,
    start,
)

#: Lines of play that stop while the deal still runs (nothing may be revealed).
LINES = {
    "full": (FULL_DEAL, (*FULL_DEAL_OPEN, *FULL_DEAL_STRICT)),
    "e2": (E2_DEAL, (*E2_TO_CLOSE, *E2_TO_66, *E2_TO_END)),
    "exchange": (EXCHANGE_DEAL, (*EXCHANGE_FOUR_TRICKS, "exchange", "AH", "KS", "KC")),
    "closed": (CLOSED_DEAL, CLOSED_MOVES),
    "e5": (E5_DEAL, (*E5_TO_70, "TC")),
    "balanced": (BALANCED_DEAL, BALANCED_MOVES),
}


def _public_in_hand(state: GameState, seat: int) -> set[Card]:
    """Cards of ``seat``'s hand that R11a makes public, worked out from the deal's facts."""
    deal = state.deal
    public: set[Card] = set()
    for marriage in deal.marriages:
        if marriage.seat == seat:
            public |= {Card.of(Rank.KING, marriage.suit), Card.of(Rank.QUEEN, marriage.suit)}
    if deal.exchanged_by == seat:
        public.add(deal.exchanged_card)
    if deal.turn_up_drawn_by == seat:
        public.add(deal.turn_up)
    return public & set(deal.hands[seat])


def _hidden_from(state: GameState, viewer: int | None) -> set[str]:
    """Card codes ``viewer`` must not see now: the talon and others' unrevealed cards."""
    deal = state.deal
    if deal is None:
        return set()
    hidden = set(deal.talon)
    for seat in (0, 1):
        if seat != viewer:
            hidden |= set(deal.hands[seat]) - _public_in_hand(state, seat)
    return set(codes(hidden))


# -- R11a what a player sees -------------------------------------------------------


def test_r11a_player_sees_own_hand_trump_card_and_talon_size():
    state = start(FULL_DEAL)
    for seat in (0, 1):
        view = observe(state, seat)
        deal = view["deal"]
        assert view["seat"] == seat
        assert deal["hand"] == codes(state.deal.hands[seat])
        assert deal["trump_card"] == "JD" and deal["trump_suit"] == "D"
        assert deal["talon_size"] == 9
        assert deal["opponent_hand_size"] == 5
        assert deal["dealer"] == 1 and deal["to_move"] == 0
    assert observe(state, 0)["deal"]["legal_actions"] == [a.to_dict() for a in legal_actions(state)]
    assert observe(state, 1)["deal"]["legal_actions"] == []


def test_r11a_tricks_current_trick_and_winners_are_public():
    state = play(start(FULL_DEAL), "AC", "QC", "TC", "KC", "AS")
    for viewer in (0, 1, None):
        deal = observe(state, viewer)["deal"]
        assert deal["tricks"] == [
            {
                "leader": 0,
                "cards": [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "QC"}],
                "winner": 0,
            },
            {
                "leader": 0,
                "cards": [{"seat": 0, "card": "TC"}, {"seat": 1, "card": "KC"}],
                "winner": 0,
            },
        ]
        assert deal["current_trick"] == [{"seat": 0, "card": "AS"}]
        assert deal["tricks_won"] == [2, 0]
        assert deal["talon_size"] == 5


def test_r11a_exchange_and_the_card_taken_are_public():
    before = start(EXCHANGE_DEAL)
    state = play(before, "exchange")
    for viewer in (1, None):
        deal = observe(state, viewer)["deal"]
        assert deal["trump_card"] == "JH"
        assert deal["exchange"] == {"seat": 0, "took": "AH"}
        assert deal["revealed_cards"] == [["AH"], []]
    events = list(visible_events(game_events([EXCHANGE_DEAL], [("exchange",)]), 1))
    assert events[-1]["took"] == "AH"
    assert events[-1]["action"] == {"type": "exchange_trump_jack"}


def test_r11a_last_trump_card_drawn_is_public():
    events = game_events([FULL_DEAL], [FULL_DEAL_OPEN])
    state = replay(events)
    for viewer in (0, None):
        assert observe(state, viewer)["deal"]["revealed_cards"][1] == ["JD"]
        assert observe(state, viewer)["deal"]["trump_card"] is None
        last = list(visible_events(events, viewer))[-1]
        assert last["turn_up_drawn"] == {"seat": 1, "card": "JD"}
    assert "JD" not in observe(state, 0)["deal"]["hand"]


# -- R11b what a player never sees ------------------------------------------------


@pytest.mark.parametrize("line", sorted(LINES))
def test_r11b_view_never_shows_hidden_cards(line):
    deck, moves = LINES[line]
    for state in play_states(start(deck), *moves):
        for viewer in (0, 1):
            view = observe(state, viewer)
            seen = card_codes_in(view)
            assert not seen & _hidden_from(state, viewer), (line, viewer, seen)
            assert view["deal"]["hand"] == codes(state.deal.hands[viewer])
            assert "talon" not in view["deal"] and "deck" not in view["deal"]


@pytest.mark.parametrize("line", sorted(LINES))
def test_r11b_event_feed_never_shows_hidden_cards(line):
    deck, moves = LINES[line]
    events = game_events([deck], [moves])
    for viewer in (0, 1):
        feed = list(visible_events(events, viewer))
        assert len(feed) == len(events)
        for version, item in enumerate(feed, start=1):
            assert item["version"] == version
            state = state_at(events, version)
            assert "deck" not in item
            assert not card_codes_in(item) & _hidden_from(state, viewer), (line, viewer, item)


def test_r11b_a_player_sees_only_their_own_draws():
    events = game_events([FULL_DEAL], [FULL_DEAL_OPEN[:2]])
    for viewer, drawn in [(0, ["JC"]), (1, ["AD"])]:
        last = list(visible_events(events, viewer))[-1]
        assert last["drew"] == drawn
    assert "drew" not in list(visible_events(events, None))[-1]


def test_r11b_the_deal_started_event_shows_only_the_own_hand():
    events = game_events([FULL_DEAL], [()])
    dealt = {viewer: list(visible_events(events, viewer))[-1] for viewer in (0, 1, None)}
    assert dealt[0]["hand"] == sorted(codes(FULL_DEAL[:5]), key=lambda c: Card(c).order)
    assert set(dealt[1]["hand"]) == set(codes(FULL_DEAL[5:10]))
    assert dealt[None]["hand"] == []
    for item in dealt.values():
        assert item["trump_card"] == "JD"
        assert "deck" not in item


# -- R11c spectators ---------------------------------------------------------


@pytest.mark.parametrize("line", sorted(LINES))
def test_r11c_spectator_sees_no_hand(line):
    deck, moves = LINES[line]
    for state in play_states(start(deck), *moves):
        view = observe(state, None)
        assert view["seat"] is None
        assert view["deal"]["hand"] == []
        assert view["deal"]["legal_actions"] == []
        assert not card_codes_in(view) & _hidden_from(state, None)
    events = game_events([deck], [moves])
    for version, item in enumerate(visible_events(events, None), start=1):
        assert "drew" not in item and "deck" not in item
        assert not card_codes_in(item) & _hidden_from(state_at(events, version), None)


def test_r11c_spectator_sees_public_facts():
    state = play(start(E2_DEAL), *E2_TO_CLOSE, "marry H")
    deal = observe(state, None)["deal"]
    assert deal["closed_by"] == 0
    assert deal["marriages"] == [{"seat": 0, "suit": "H", "points": 40}]  # hearts are trumps
    # R6c: the view says what a marriage is worth, so no client re-implements it.
    assert deal["marriage_points"] == {"C": 20, "D": 20, "H": 40, "S": 20}
    assert deal["revealed_cards"] == [["KH", "QH"], []]
    assert deal["hand_sizes"] == [5, 5]
    assert deal["tricks_won"] == [1, 2]
    assert deal["card_points"] is None


def test_r11c_card_points_hidden_in_head_visible_in_tracked():
    head = play(start(E1_DEAL), *E1_MOVES[:2])
    tracked = play(start(E1_DEAL, TRACKED), *E1_MOVES[:2])
    for viewer in (0, 1, None):
        assert observe(head, viewer)["deal"]["card_points"] is None
        assert observe(tracked, viewer)["deal"]["card_points"] == [21, 0]


# -- R11d revealing the record -----------------------------------------------


def _deck_in_feed(events, viewer):
    return [item.get("deck") for item in visible_events(events, viewer) if "number" in item]


def test_r11d_deck_hidden_while_the_deal_runs():
    events = game_events([E1_DEAL], [E1_MOVES])
    for viewer in (0, 1, None):
        assert _deck_in_feed(events, viewer) == [None]
        record = replay_record(events, viewer)
        assert record["deals"] == [
            {"number": 1, "dealer": 1, "commitment": None, "nonce": None, "deck": None,
             "result": None}
        ]  # fmt: skip
        assert record["complete"] is False


def test_r11d_a_finished_deals_deck_waits_for_the_end_of_the_game():
    """R11d allows showing a finished deal to both players; the service waits for the
    end of the game (its fair-deal promise: no deck leaves the server before then)."""
    events = game_events([E1_DEAL, false_claim_deck()], [(*E1_MOVES, "claim"), ("marry H",)])
    for viewer in (0, 1, None):
        record = replay_record(events, viewer)
        assert [deal["deck"] for deal in record["deals"]] == [None, None]
        assert record["deals"][0]["result"]["winner"] == 0  # the result itself is public
        assert record["deals"][0]["result"]["game_points"] == 3
        assert _deck_in_feed(events, viewer) == [None, None]


def test_r11d_everything_revealed_to_everyone_once_the_game_is_over():
    decks = [false_claim_deck(), E1_DEAL, false_claim_deck()]
    moves = [("marry H", "claim"), (*E1_MOVES, "claim"), ("marry H", "claim")]
    events = game_events(decks, moves, first_dealer=0)
    assert replay(events).winner == 0
    for viewer in (0, 1, None):
        record = replay_record(events, viewer)
        assert record["complete"] is True
        assert [deal["deck"] for deal in record["deals"]] == [codes(deck) for deck in decks]
        assert [deal["dealer"] for deal in record["deals"]] == [0, 1, 0]
        assert record["state"]["winner"] == 0
        assert record["state"]["game_points"] == [0, 7]


def test_r11d_replay_record_at_a_running_version_reveals_nothing_new():
    events = game_events([E1_DEAL], [(*E1_MOVES, "claim")])
    running = len(events) - 1
    for viewer in (0, 1, None):
        record = replay_record(events, viewer, at=running)
        assert record["version"] == running
        assert record["deals"][0]["deck"] is None
        assert len(record["events"]) == running
        assert record["state"]["deal"]["hand"] == (
            [] if viewer is None else codes(state_at(events, running).deal.hands[viewer])
        )


def test_r6e_a_declared_marriage_is_public_with_its_points_in_the_feed():
    """R6c, R6e: every viewer's feed says what a declared marriage is worth (40 in trumps)."""
    events = game_events([E2_DEAL], [(*E2_TO_CLOSE, "marry H")])
    for viewer in (0, 1, None):
        declared = [
            item
            for item in visible_events(events, viewer)
            if item.get("action", {}).get("type") == "declare_marriage"
        ]
        assert [item["marriage_points"] for item in declared] == [40]
