"""Property tests: whole games of random legal play, both variants.

Every test draws a ``seed`` (and a variant and a play policy) with Hypothesis
and plays one WHOLE game with ``random.Random(seed)``: the first dealer, each
deal's deck and every action (chosen among ``legal_actions``) come from that
generator, until a seat reaches 0 game points. The game is recorded as its
event log and the state after each event, and the test checks its property on
that record.

A failure prints the falsifying ``seed``, ``variant`` and ``policy``;
``play_game(seed, variant, policy)`` replays that exact game.

Policies (how a seat picks among the legal actions):

- ``uniform``: any legal action, uniformly. In the head variant this claims
  often (a claim is legal after every trick won), so deals end early.
- ``rare_claim``: claims with a small probability, closes rarely.
- ``no_claim``: never claims, may close (closed deals run out: R9b).
- ``patient``: never claims, never closes: every head-variant deal is played
  to the last trick (all 20 cards), then accepted.

Games per run: ``GAMES_PER_TEST`` examples for each of the ``@given`` tests
below (Hypothesis runs ``max_examples`` examples; a seed is a 64-bit integer,
so repeated examples are negligible).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from service.engine import (
    DECK,
    ActionTaken,
    DealEndReason,
    DealStarted,
    ErrorCode,
    GameState,
    IllegalActionError,
    Variant,
    apply,
    event_from_dict,
    event_to_dict,
    legal_actions,
    observe,
    replay,
    start_deal,
)
from service.engine.actions import (
    ACCEPT_LAST_TRICK,
    CLAIM,
)
from service.engine.cards import sort_cards
from tests.support.random_games import (
    ALL_ACTIONS,
    card_places,
    game_settings,
    permute_hidden,
    play_game,
    policies,
    seeds,
    variants,
)

# -- the properties ----------------------------------------------------------


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_every_card_in_exactly_one_place(seed, variant, policy):
    """At all times the 20 cards lie each in exactly one place (R1b, R2, R3)."""
    game = play_game(seed, variant, policy)
    for state in game.states:
        deal = state.deal
        if deal is None:
            continue
        places = card_places(deal)
        repeated = sorted(str(card) for card, n in Counter(places).items() if n > 1)
        missing = sorted(str(card) for card in set(DECK) - set(places))
        assert not repeated and not missing and len(places) == len(DECK), (
            f"deal {deal.number} after {len(deal.tricks)} tricks: "
            f"repeated {repeated}, missing {missing}, {len(places)} cards"
        )
        for hand in deal.hands:
            assert list(hand) == sort_cards(hand), f"a hand out of canonical order: {hand}"


@game_settings
@given(seed=seeds, variant=variants, policy=st.sampled_from(("patient", "no_claim", "rare_claim")))
def test_property_played_out_deal_has_120_trick_points(seed, variant, policy):
    """A deal whose 20 cards all went to tricks has 120 trick points (R1 notation)."""
    game = play_game(seed, variant, policy)
    for deal in game.finished_deals():
        for seat in (0, 1):
            won = sum(t.points for t in deal.tricks if t.winner == seat)
            assert deal.trick_points[seat] == won, (
                f"deal {deal.number}: seat {seat} has {deal.trick_points[seat]} trick points, "
                f"its tricks hold {won}"
            )
        if deal.cards_out and deal.closed_by is None:
            assert len(deal.tricks) == 10, f"deal {deal.number}: cards out after {len(deal.tricks)}"
        if len(deal.tricks) == 10:
            event("a deal played out to the 10th trick")
            assert deal.closed_by is None
            assert sum(deal.trick_points) == 120, (
                f"deal {deal.number} played out: trick points {deal.trick_points}, not 120"
            )
        if variant is Variant.HEAD and policy == "patient":
            # Nobody claims or closes: every deal is played to the last trick (R8a).
            assert len(deal.tricks) == 10, f"deal {deal.number} ended after {len(deal.tricks)}"
            assert deal.result.reason is DealEndReason.LAST_TRICK
            assert deal.result.winner == deal.tricks[-1].winner
            assert deal.result.game_points == 1


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_finished_deal_gives_1_to_3_game_points_to_one_seat(seed, variant, policy):
    """Each deal gives 1-3 game points to one seat; points only go down by that (R9, R10a)."""
    game = play_game(seed, variant, policy)
    assert game.states[0].game_points == (7, 7)
    won = [0, 0]
    for before, after in pairwise(game.states):
        if len(after.results) == len(before.results):
            assert after.game_points == before.game_points, "game points moved without a result"
            continue
        assert len(after.results) == len(before.results) + 1, "more than one result at once"
        result = after.results[-1]
        assert result == after.deal.result, "the new result is not the deal's result"
        assert result.number == len(after.results)
        assert result.winner in (0, 1)
        assert result.game_points in (1, 2, 3), f"deal {result.number}: {result.game_points}"
        event(f"deal worth {result.game_points} ({result.reason.value})")
        winner, loser = result.winner, 1 - result.winner
        expected = max(0, before.game_points[winner] - result.game_points)
        assert after.game_points[winner] == expected, (
            f"deal {result.number}: seat {winner} won {result.game_points} from "
            f"{before.game_points[winner]} but has {after.game_points[winner]}"
        )
        assert after.game_points[loser] == before.game_points[loser], "the loser's points moved"
        won[winner] += result.game_points
    final = game.final.game_points
    assert final == (max(0, 7 - won[0]), max(0, 7 - won[1])), f"{final} after winning {won}"


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_game_ends_exactly_when_a_seat_reaches_0(seed, variant, policy):
    """The first seat at 0 wins; nothing is dealt or played after (R10b)."""
    game = play_game(seed, variant, policy)
    for state in game.states[:-1]:
        assert 0 not in state.game_points and state.winner is None, "play went on after 0"
        assert state.status != "finished"
        has_deal = state.deal is not None and state.deal.result is None
        assert state.awaiting_deal == (not has_deal), "awaiting_deal while a deal runs"
    final = game.final
    assert final.game_points.count(0) == 1, f"final game points {final.game_points}"
    assert final.winner == final.game_points.index(0)
    assert final.winner == final.results[-1].winner, "the winner did not win the last deal"
    assert final.status == "finished"
    assert final.to_move is None
    assert final.awaiting_deal is False
    assert legal_actions(final) == []
    assert isinstance(game.events[-1], ActionTaken), "the game did not end on an action"
    assert final.deal is not None and final.deal.result is not None
    assert len(final.results) == sum(isinstance(e, DealStarted) for e in game.events)
    rng = random.Random(seed)
    deck = rng.sample(DECK, len(DECK))
    try:
        start_deal(final, deck)
    except IllegalActionError as error:
        assert error.code is ErrorCode.GAME_OVER
    else:
        raise AssertionError("a deal started after the game was over")
    for action in ALL_ACTIONS:
        for seat in (None, 0, 1):
            try:
                apply(final, action, seat)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{action} applied after the game was over")


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_legal_actions_never_empty_and_all_apply(seed, variant, policy):
    """While a deal runs, the seat to move has legal actions, and each one applies."""
    game = play_game(seed, variant, policy)
    dealers = []
    for item, state in zip(game.events, game.states, strict=True):
        if isinstance(item, DealStarted):
            dealers.append(state.deal.dealer)
            assert state.to_move == 1 - state.deal.dealer, "R1c: the non-dealer leads first"
    assert all(a != b for a, b in pairwise(dealers)), f"R10c: dealers {dealers}"
    for state, seat, _action, after in game.moves():
        assert seat == state.to_move
        deal = state.deal
        expected = deal.leader if deal.lead_card is None else 1 - deal.leader
        assert state.to_move == expected
        if len(after.deal.tricks) > len(deal.tricks) and after.deal.result is None:
            assert after.to_move == after.deal.tricks[-1].winner, "the trick's winner must lead"
    for state in game.deal_states():
        legal = legal_actions(state)
        assert legal, f"no legal action for seat {state.to_move}"
        assert len(set(legal)) == len(legal), f"repeated legal actions {legal}"
        if state.variant is Variant.TRACKED:
            assert CLAIM not in legal and ACCEPT_LAST_TRICK not in legal
        for action in legal:
            after = apply(state, action, state.to_move)
            assert isinstance(after, GameState)
            assert apply(state, action) == after, "seat=None differs from the seat to move"
            try:
                apply(state, action, 1 - state.to_move)
            except IllegalActionError as error:
                assert error.code is ErrorCode.NOT_YOUR_TURN
            else:
                raise AssertionError(f"seat {1 - state.to_move} played {action} out of turn")
    for state in game.states:
        if state.deal is None or state.deal.result is not None:
            assert legal_actions(state) == [], "legal actions while no deal runs"


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_replay_of_events_gives_the_same_state(seed, variant, policy):
    """The event log rebuilds the game exactly, also through JSON (R1a, the event log)."""
    game = play_game(seed, variant, policy)
    assert replay(game.events) == game.final
    rng = random.Random(seed)
    for cut in rng.sample(range(1, len(game.events) + 1), 3):
        assert replay(game.events[:cut]) == game.states[cut - 1], f"differs after {cut} events"
    stored = json.dumps([event_to_dict(item) for item in game.events])
    loaded = [event_from_dict(data) for data in json.loads(stored)]
    assert loaded == game.events, "an event changed through JSON"
    assert json.dumps([event_to_dict(item) for item in loaded]) == stored
    assert replay(loaded) == game.final
    # From a snapshot: the rest of the log on top of a state in the middle.
    cut = rng.randrange(1, len(game.events))
    assert replay(loaded[cut:], game.states[cut - 1]) == game.final


@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_observation_leaks_no_hidden_card(seed, variant, policy):
    """R11: what a seat (or a spectator) sees does not depend on the cards hidden from it.

    At random points, the opponent's unseen hand cards and the talon's face-down
    cards are permuted among their places; ``observe`` must give the same view.
    """
    game = play_game(seed, variant, policy)
    rng = random.Random(seed)
    checked = 0
    for state in game.deal_states():
        if rng.random() > 0.3:
            continue
        deal = state.deal
        for viewer in (0, 1):
            other = permute_hidden(deal, (1 - viewer,), rng)
            assert sorted(card_places(other), key=str) == sorted(card_places(deal), key=str)
            if other.hands[1 - viewer] != deal.hands[1 - viewer] or other.talon != deal.talon:
                checked += 1
            seen, seen_other = observe(state, viewer), observe(state._replace(deal=other), viewer)
            assert seen == seen_other, (
                f"seat {viewer} sees a difference when its hidden cards are permuted: "
                f"{_diff(seen, seen_other)}"
            )
        both = permute_hidden(deal, (0, 1), rng)
        seen, seen_other = observe(state, None), observe(state._replace(deal=both), None)
        assert seen == seen_other, f"a spectator sees hidden cards: {_diff(seen, seen_other)}"
    event("a hidden-card permutation changed the state" if checked else "no permutation checked")


@pytest.mark.heavy  # every action tried at every step of 200 games: the costliest property
@game_settings
@given(seed=seeds, variant=variants, policy=policies)
def test_property_illegal_actions_raise_and_leave_the_state_unchanged(seed, variant, policy):
    """Every action not in legal_actions raises IllegalActionError; the state stays as it was."""
    game = play_game(seed, variant, policy)
    for state in game.states:
        before = repr(state)
        legal = legal_actions(state)
        for action in ALL_ACTIONS:
            if action in legal:
                continue
            for seat in {None, state.to_move}:
                try:
                    apply(state, action, seat)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(
                        f"illegal {action} by seat {seat} applied (legal: "
                        f"{[str(a) for a in legal]})"
                    )
        if state.deal is not None and state.deal.result is None:
            try:
                start_deal(state, state.deal.deck)
            except IllegalActionError:
                pass
            else:
                raise AssertionError("a new deal started while a deal was under way")
        assert repr(state) == before, "a refused action changed the state"
        assert legal_actions(state) == legal
    for before, seat, action, after in game.moves():
        assert apply(before, action, seat) == after, "the same action gave another state"


def _diff(a: dict, b: dict) -> dict:
    """The fields of two observations that differ, for the failure message."""
    out = {key: (a.get(key), b.get(key)) for key in a.keys() | b.keys() if a.get(key) != b.get(key)}
    if "deal" in out and a.get("deal") and b.get("deal"):
        return _diff(a["deal"], b["deal"])
    return out
