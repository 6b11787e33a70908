"""Positions as JSON (bots as a service): round trips, and impossible positions refused."""

import copy
import json
import random
from dataclasses import replace

import pytest

from service.engine import Variant, legal_actions
from service.engine.knowledge import seat_view
from service.engine.position import PositionError, position_from_view, view_from_position
from tests.support.positions import random_states


def positions(seed: int, variant: Variant):
    """(state, position of the seat to move) at every decision of a random game."""
    for state in random_states(seed, variant, random.Random.choice):
        if state.to_move is not None:
            yield state, position_from_view(seat_view(state, state.to_move))


@pytest.mark.parametrize("variant", list(Variant))
def test_r11a_every_reachable_position_round_trips_through_json(variant):
    count = 0
    for seed in range(40):
        for state, position in positions(seed, variant):
            back = view_from_position(json.loads(json.dumps(position)))
            assert back == replace(seat_view(state, state.to_move), number=1)
            assert back.legal_actions() == legal_actions(state)
            count += 1
    assert count > 1000


def a_position(predicate):
    for seed in range(200):
        for state, position in positions(seed, Variant.HEAD):
            if predicate(state, position):
                return copy.deepcopy(position)
    raise AssertionError("no such position in 200 games")


def refused(position, field_prefix):
    with pytest.raises(PositionError) as error:
        view_from_position(position)
    assert error.value.field.startswith(field_prefix), error.value
    return error.value


def test_a_card_in_two_places_is_refused():
    position = a_position(lambda s, p: len(p["tricks"]) >= 1)
    position["hand"][0] = position["tricks"][0]["cards"][0]["card"]
    assert "exists once" in str(refused(position, ""))


def test_a_hand_of_the_wrong_size_is_refused():
    position = a_position(lambda s, p: len(p["tricks"]) == 2 and not p["current_trick"])
    position["hand"] = position["hand"][:-1]
    refused(position, "hand")


def test_a_talon_that_does_not_fit_the_tricks_is_refused():
    position = a_position(lambda s, p: len(p["tricks"]) == 1 and p["closed_by"] is None)
    position["talon_size"] = 9
    refused(position, "talon_size")


def test_a_trick_with_the_wrong_winner_is_refused():
    position = a_position(lambda s, p: len(p["tricks"]) >= 1)
    trick = position["tricks"][0]
    trick["winner"] = 1 - trick["winner"]
    assert "R2b" in str(refused(position, "tricks[0]"))


def test_an_illegal_current_trick_is_refused():
    position = a_position(lambda s, p: bool(p["current_trick"]))
    position["current_trick"][0]["seat"] = 1 - position["current_trick"][0]["seat"]
    refused(position, "current_trick")


def test_a_position_where_another_seat_is_to_move_is_refused():
    position = a_position(lambda s, p: True)
    position["seat"] = 1 - position["seat"]
    refused(position, "")


def test_unknown_cards_and_schema_are_refused():
    position = a_position(lambda s, p: True)
    bad_card = copy.deepcopy(position)
    bad_card["hand"][0] = "ZZ"
    refused(bad_card, "hand[0]")
    bad_schema = copy.deepcopy(position)
    bad_schema["schema"] = 99
    refused(bad_schema, "schema")


def test_an_opponent_marriage_with_a_card_in_our_hand_is_refused():
    position = a_position(lambda s, p: any(c[0] in "KQ" for c in p["hand"]) and not p["marriages"])
    card = next(c for c in position["hand"] if c[0] in "KQ")
    position["marriages"] = [{"seat": 1 - position["seat"], "suit": card[1]}]
    refused(position, "marriages[0]")
