"""Impossible positions never reach the bots: gunicorn answers 422 and queues no job.

Each position below is a real seat's view with one fact changed so that no
deal reaches it (R3b, R6a, R6c, R7e, R8b). Sent from outside to the live
server with a real worker running, each one is answered 422
``impossible_position`` naming the field, and no decision job is created:
the bots never see it, and no worker fails on it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
import requests

from service.engine import Card, Rank, Suit, Variant
from service.engine.knowledge import SeatView, seat_view
from service.engine.position import position_from_view
from tests.support.positions import random_states

Position = dict[str, Any]


def views(variant: Variant) -> Iterator[SeatView]:
    for seed in range(400):
        for state in random_states(seed, variant):
            yield seat_view(state, state.to_move)


def a_view(variant: Variant, fits: Callable[[SeatView], bool]) -> SeatView:
    for view in views(variant):
        if fits(view):
            return view
    raise AssertionError("no such view in 400 random games")


def points(view: SeatView, seat: int) -> int:
    won = [t for t in view.tricks if t.winner == seat]
    marriages = sum(m.points for m in view.marriages if m.seat == seat)
    return sum(t.points for t in won) + marriages if won else 0


def pair(suit: Suit) -> set[Card]:
    return {Card.of(Rank.KING, suit), Card.of(Rank.QUEEN, suit)}


def unseen_pairs(view: SeatView) -> list[Suit]:
    seen = set(view.hand) | set(view.played) | {view.turn_up}
    return [suit for suit in Suit if not seen & pair(suit)]


# -- the positions --------------------------------------------------------------


def card_in_hand_taken_by_the_opponents_exchange() -> Position:
    view = a_view(
        Variant.HEAD,
        lambda v: v.exchanged_by == v.opponent and v.exchanged_card not in v.played,
    )
    position = position_from_view(view)
    position["hand"][-1] = view.exchanged_card.value
    return position


def exchange_by_the_seat_not_on_lead() -> Position:
    """On the first lead only the non-dealer may exchange; here the dealer did."""
    view = a_view(
        Variant.HEAD,
        lambda v: not v.tricks and Card.of(Rank.JACK, v.trump) not in v.hand,
    )
    position = position_from_view(view)
    jack = Card.of(Rank.JACK, view.trump).value
    position["exchange"] = {"seat": view.dealer, "took": view.turn_up.value}
    position["trump_card"] = position["turn_up"] = jack
    return position


def opponent_marriages_without_a_lead() -> Position:
    view = a_view(Variant.HEAD, lambda v: len(v.tricks) >= 3 and unseen_pairs(v))
    position = position_from_view(view)
    position["marriages"].append({"seat": view.opponent, "suit": unseen_pairs(view)[0].value})
    return position


def tracked_with_84_card_points() -> Position:
    view = a_view(Variant.HEAD, lambda v: max(points(v, 0), points(v, 1)) >= 84)
    position = position_from_view(view)
    position["variant"] = "tracked"
    return position


def tracked_after_the_last_trick() -> Position:
    view = a_view(Variant.HEAD, lambda v: not v.hand and v.lead_card is None)
    position = position_from_view(view)
    position["variant"] = "tracked"
    return position


def opponent_marriages_in_three_or_four_suits(count: int) -> Callable[[], Position]:
    def build() -> Position:
        view = a_view(Variant.HEAD, lambda v: not v.tricks and len(unseen_pairs(v)) >= count)
        position = position_from_view(view)
        position["marriages"] = [
            {"seat": view.opponent, "suit": suit.value} for suit in unseen_pairs(view)[:count]
        ]
        return position

    return build


def marriage_with_the_trump_card_under_the_talon() -> Position:
    view = a_view(
        Variant.HEAD,
        lambda v: (
            v.turn_up_drawn_by is None
            and v.turn_up.rank in (Rank.KING, Rank.QUEEN)
            and not pair(v.trump) & (set(v.hand) | set(v.played))
        ),
    )
    position = position_from_view(view)
    position["marriages"].append({"seat": view.opponent, "suit": view.trump.value})
    return position


IMPOSSIBLE: dict[str, tuple[Callable[[], Position], str]] = {
    "a card in our hand taken by the opponent's exchange": (
        card_in_hand_taken_by_the_opponents_exchange,
        "exchange",
    ),
    "an exchange by the seat not on lead": (exchange_by_the_seat_not_on_lead, "exchange"),
    "an opponent marriage without a lead": (opponent_marriages_without_a_lead, "marriages"),
    "a tracked position with 84 card points": (tracked_with_84_card_points, "tricks"),
    "a tracked position after ten tricks": (tracked_after_the_last_trick, "tricks"),
    "three opponent marriages": (opponent_marriages_in_three_or_four_suits(3), "marriages"),
    "four opponent marriages": (opponent_marriages_in_three_or_four_suits(4), "marriages"),
    "a marriage with the trump card under the talon": (
        marriage_with_the_trump_card_under_the_talon,
        "marriages",
    ),
}


def decision_jobs(connection: redis.Redis) -> set[bytes]:
    return set(connection.scan_iter("rq:job:move-*"))


@pytest.mark.parametrize("name", list(IMPOSSIBLE))
def test_an_impossible_position_is_answered_422_and_queues_no_job(
    live_server, worker, redis_client, name
):
    build, field = IMPOSSIBLE[name]
    position = build()
    before = decision_jobs(redis_client)
    reply = requests.post(
        f"{live_server.url}/v1/bot/moves?wait=10",
        json={"position": copy.deepcopy(position), "level": "heuristic"},
        timeout=30,
    )
    assert reply.status_code == 422, (name, reply.status_code, reply.text[:400])
    assert reply.headers["Content-Type"].startswith("application/problem+json")
    problem = reply.json()
    assert problem["code"] == "impossible_position", problem
    assert any(key.startswith(field) for key in problem["errors"]), (name, problem)
    assert decision_jobs(redis_client) == before, "a job was queued for an impossible position"


def test_the_real_positions_these_are_made_from_get_a_decision(live_server, worker):
    """The same kind of views, unchanged, are answered: the 422s are the changes' doing."""
    view = a_view(Variant.HEAD, lambda v: len(v.tricks) >= 3 and v.exchanged_by is not None)
    reply = requests.post(
        f"{live_server.url}/v1/bot/moves?wait=20",
        json={"position": position_from_view(view), "level": "heuristic"},
        timeout=40,
    )
    assert reply.status_code == 200, reply.text[:400]
    assert reply.json()["status"] == "finished"
