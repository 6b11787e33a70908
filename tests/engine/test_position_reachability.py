"""A position is accepted exactly when a real deal can reach it (R1-R8, R11a).

Every view of the seat to move in random games played by the engine passes
``view_from_position`` and comes back as the same view. Each mutation below
turns such a position into one no deal can reach (a card where it cannot be,
an exchange or a marriage by a seat that was never on lead with the cards, a
tracked deal that should have ended): every one is refused with a
``PositionError`` naming a field. Hypothesis picks the games.

The judge of "a deal reaches it" is independent of the checks under test:
``tests.engine.witness`` places every card, plays the deal with the engine and
compares the seat's view. A position is accepted exactly when it finds one.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine import DECK, Card, Rank, Suit, Variant
from service.engine.knowledge import SeatView, seat_view
from service.engine.masks import follow_mask
from service.engine.position import (
    PositionError,
    position_from_view,
    read_view,
    view_from_position,
)
from service.engine.reachable import objection
from service.engine.state import Trick
from tests.engine.witness import witness
from tests.support.positions import random_states

Position = dict[str, Any]
Mutation = Callable[[Position, SeatView], Position | None]

GAMES = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(list(Variant)))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def views(seed: int, variant: Variant) -> Iterator[SeatView]:
    """The view of the seat to move at every decision of one random game."""
    for state in random_states(seed, variant):
        yield seat_view(state, state.to_move)


# -- what a seat can tell from its view ---------------------------------------


def card_points(view: SeatView, seat: int) -> int:
    """R7a with R6d: tricks, and the marriages once a trick is won."""
    won = [trick for trick in view.tricks if trick.winner == seat]
    if not won:
        return 0
    return sum(t.points for t in won) + sum(m.points for m in view.marriages if m.seat == seat)


def leads_before_exhaustion(view: SeatView) -> list[int]:
    """Who was on lead at each lead an exchange was allowed at (R6a): open talon only."""
    closed_after = None if view.closed_by is None else (9 - view.talon_size) // 2
    last = min(4, len(view.tricks), 4 if closed_after is None else closed_after)
    leaders = [trick.leader for trick in view.tricks] + [view.leader]
    return leaders[: last + 1]


def unseen_pairs(view: SeatView) -> list[Suit]:
    """Suits whose King and Queen the seat never saw (not held, played, face up, married)."""
    seen = set(view.hand) | set(view.played) | {view.turn_up}
    if view.exchanged_card is not None:
        seen.add(view.exchanged_card)
    married = {m.suit for m in view.marriages}
    return [
        suit
        for suit in Suit
        if suit not in married and not seen & {Card.of(Rank.KING, suit), Card.of(Rank.QUEEN, suit)}
    ]


# -- the mutations: each yields a position no deal reaches, or None -------------


def exchange_by_the_other_seat(position: Position, view: SeatView) -> Position | None:
    """The taken trump is where its taker put it: held or played by that seat, never the other."""
    if position["exchange"] is None:
        return None
    position["exchange"]["seat"] = 1 - position["exchange"]["seat"]
    return position


def card_in_hand_taken_by_the_opponents_exchange(
    position: Position, view: SeatView
) -> Position | None:
    """The opponent took the trump and has not played it: it cannot be in our hand."""
    took = view.exchanged_card
    if view.exchanged_by != view.opponent or took in view.played or not view.hand:
        return None
    position["hand"][-1] = took.value
    return position


def exchange_by_a_seat_never_on_lead(position: Position, view: SeatView) -> Position | None:
    """R6a: only the seat on lead exchanges, while the trump card lies under the talon."""
    jack = Card.of(Rank.JACK, view.trump)
    if (
        view.exchanged_by is not None
        or position["trump_card"] is None
        or jack in view.hand
        or jack in view.played
        or view.opponent in leads_before_exhaustion(view)
    ):
        return None
    position["exchange"] = {"seat": view.opponent, "took": view.turn_up.value}
    position["trump_card"] = position["turn_up"] = jack.value
    return position


def opponent_marriages_never_led(position: Position, view: SeatView) -> Position | None:
    """R6c: a declarer leads the King or Queen; these were never played (one to four of them)."""
    suits = unseen_pairs(view)
    if not suits:
        return None
    count = 1 + (len(view.tricks) + len(view.hand)) % len(suits)
    position["marriages"] += [{"seat": view.opponent, "suit": s.value} for s in suits[:count]]
    return position


def marriage_with_the_trump_card_under_the_talon(
    position: Position, view: SeatView
) -> Position | None:
    """R1b, R6b: the trump card under the talon (or out of play) is in nobody's hand."""
    if position["trump_card"] is None or view.turn_up.rank not in (Rank.KING, Rank.QUEEN):
        return None
    position["marriages"].append({"seat": view.opponent, "suit": view.trump.value})
    return position


def marriage_by_the_other_seat(position: Position, view: SeatView) -> Position | None:
    """R6c: the declarer led the marriage's card; the other seat never did."""
    if not view.marriages:
        return None
    marriage = position["marriages"][len(view.tricks) % len(view.marriages)]
    marriage["seat"] = 1 - marriage["seat"]
    return position


def opponent_led_pairs(view: SeatView) -> list[Suit]:
    """Suits whose King or Queen the opponent led first while the other is still unseen
    and not yet known to be in the opponent's hand (a card it took by the exchange needs
    no more room there)."""
    seen = set(view.hand) | set(view.played) | {view.turn_up} | set(view.known_opponent_cards())
    married = {m.suit for m in view.marriages}
    suits = []
    for suit in Suit:
        king, queen = Card.of(Rank.KING, suit), Card.of(Rank.QUEEN, suit)
        shown = [t for t in view.tricks if {t.lead, t.follow} & {king, queen}]
        if suit in married or len(shown) != 1 or shown[0].leader != view.opponent:
            continue
        other = queen if shown[0].lead is king else king
        if shown[0].lead in (king, queen) and other not in seen:
            suits.append(suit)
    return suits


def opponent_marriages_beyond_the_hands_room(position: Position, view: SeatView) -> Position | None:
    """Each declared pair's other card stays in the opponent's hand: more than it can hold."""
    suits = opponent_led_pairs(view)
    if len(suits) <= view.opponent_hand_size - len(view.known_opponent_cards()):
        return None
    position["marriages"] += [{"seat": view.opponent, "suit": s.value} for s in suits]
    return position


def tracked_with_66(position: Position, view: SeatView) -> Position | None:
    """R7e: in the tracked variant a seat with 66 has gone out; the deal is over."""
    if view.variant is not Variant.HEAD or max(card_points(view, s) for s in (0, 1)) < 66:
        return None
    position["variant"] = Variant.TRACKED.value
    return position


def tracked_after_the_last_trick(position: Position, view: SeatView) -> Position | None:
    """R8b: in the tracked variant the last trick settles the deal; nobody claims after it."""
    if view.variant is not Variant.HEAD or view.hand or view.lead_card is not None:
        return None
    position["variant"] = Variant.TRACKED.value
    return position


def card_in_hand_and_played(position: Position, view: SeatView) -> Position | None:
    if not view.tricks or not view.hand:
        return None
    position["hand"][0] = view.tricks[-1].card_of(view.opponent).value
    return position


def drawn_trump_card_in_the_wrong_hand(position: Position, view: SeatView) -> Position | None:
    """R3b: the loser of the fifth trick drew the turn-up; the other seat never held it."""
    drawer = view.turn_up_drawn_by
    if drawer is None or view.turn_up in view.played or not view.hand:
        return None
    if drawer == view.opponent:
        position["hand"][-1] = view.turn_up.value
        return position
    unseen = [c for c in DECK if c not in view.hand and c not in view.played]
    unseen = [c for c in unseen if c not in view.known_opponent_cards()]
    if not unseen:
        return None
    position["hand"][view.hand.index(view.turn_up)] = unseen[0].value
    return position


def trump_card_played_before_it_was_drawn(position: Position, view: SeatView) -> Position | None:
    """R3b: we drew the turn-up with the fifth trick; it cannot be in an earlier one."""
    if view.turn_up_drawn_by != view.seat or view.turn_up not in view.hand:
        return None
    for index, trick in enumerate(view.tricks[:5]):
        ours = trick.card_of(view.seat)
        swapped = (
            replace(trick, lead=view.turn_up)
            if trick.leader == view.seat
            else replace(trick, follow=view.turn_up)
        )
        if _winner(swapped, view.trump) == trick.winner:
            side = 0 if trick.leader == view.seat else 1
            position["tricks"][index]["cards"][side]["card"] = view.turn_up.value
            position["hand"][view.hand.index(view.turn_up)] = ours.value
            return position
    return None


def strict_play_broken(position: Position, view: SeatView) -> Position | None:
    """R5: after a close or once the talon is exhausted, the follower must follow, beat, trump.

    Our card in a strict trick is swapped with one we still hold that the rule did
    not allow there (same winner, so the rest of the deal reads the same).
    """
    closed_after = None if view.closed_by is None else (9 - view.talon_size) // 2
    strict_from = 5 if closed_after is None else closed_after
    for index in range(strict_from, len(view.tricks)):
        trick = view.tricks[index]
        if trick.leader == view.seat:
            continue
        held_then = {
            trick.follow,
            *view.hand,
            *(t.card_of(view.seat) for t in view.tricks[index + 1 :]),
        }
        mask = follow_mask(sum(c.bit for c in held_then), trick.lead.order, view.trump.number, True)
        for card in view.hand:
            swapped = replace(trick, follow=card)
            if not card.bit & mask and _winner(swapped, view.trump) == trick.winner:
                position["tricks"][index]["cards"][1]["card"] = card.value
                position["hand"][view.hand.index(card)] = trick.follow.value
                return position
    return None


def _winner(trick: Trick, trump: Suit) -> int:
    return 1 - trick.leader if trick.follow.beats(trick.lead, trump) else trick.leader


MUTATIONS: dict[str, Mutation] = {
    f.__name__: f
    for f in (
        exchange_by_the_other_seat,
        card_in_hand_taken_by_the_opponents_exchange,
        exchange_by_a_seat_never_on_lead,
        opponent_marriages_never_led,
        marriage_with_the_trump_card_under_the_talon,
        marriage_by_the_other_seat,
        opponent_marriages_beyond_the_hands_room,
        tracked_with_66,
        tracked_after_the_last_trick,
        card_in_hand_and_played,
        drawn_trump_card_in_the_wrong_hand,
        trump_card_played_before_it_was_drawn,
        strict_play_broken,
    )
}


def mutated(view: SeatView) -> Iterator[tuple[str, Position]]:
    original = position_from_view(view)
    for name, mutation in MUTATIONS.items():
        changed = mutation(copy.deepcopy(original), view)
        if changed is not None:
            yield name, changed


# -- the properties --------------------------------------------------------------


@SETTINGS
@given(GAMES)
def test_every_position_of_a_real_game_passes_and_reads_back_the_same(game):
    for view in views(*game):
        assert view_from_position(position_from_view(view)) == replace(view, number=1)


@pytest.mark.heavy  # every mutation of every position of 60 games, each refused
@SETTINGS
@given(GAMES)
def test_every_position_no_deal_reaches_is_refused_naming_a_field(game):
    for view in views(*game):
        for name, position in mutated(view):
            try:
                view_from_position(position)
            except PositionError as refused:
                assert refused.field, (name, refused)
            else:
                raise AssertionError(f"accepted after {name}: {position}")
            try:
                shaped = read_view(position)
            except PositionError:
                continue
            assert witness(shaped) is None, f"{name} left a position a deal reaches: {position}"


#: Changes that keep a position's form (so it reads) but may make it unreachable.
EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("marriage"), st.integers(0, 1), st.sampled_from(list(Suit))),
        st.tuples(st.just("unmarry"), st.integers(0, 3)),
        st.tuples(st.just("exchange"), st.integers(0, 1), st.sampled_from(DECK)),
        st.tuples(st.just("variant"), st.sampled_from(list(Variant))),
        st.tuples(st.just("declared"), st.sampled_from(list(Suit))),
        st.tuples(st.just("hand"), st.integers(0, 4), st.sampled_from(DECK)),
        st.tuples(st.just("trick"), st.integers(0, 9), st.integers(0, 1), st.sampled_from(DECK)),
    ),
    max_size=3,
)


def edited(position: Position, edits: list[tuple[Any, ...]]) -> Position:
    for kind, *args in edits:
        if kind == "marriage":
            position["marriages"].append({"seat": args[0], "suit": args[1].value})
        elif kind == "unmarry" and position["marriages"]:
            position["marriages"].pop(args[0] % len(position["marriages"]))
        elif kind == "exchange":
            jack = Card.of(Rank.JACK, Card.parse(position["turn_up"]).suit).value
            position["exchange"] = {"seat": args[0], "took": args[1].value}
            position["turn_up"] = jack
            if position["trump_card"] is not None:
                position["trump_card"] = jack
        elif kind == "variant":
            position["variant"] = args[0].value
        elif kind == "declared":
            position["declared_marriage"] = args[0].value
        elif kind == "hand" and position["hand"]:
            position["hand"][args[0] % len(position["hand"])] = args[1].value
        elif kind == "trick" and position["tricks"]:
            trick = position["tricks"][args[0] % len(position["tricks"])]
            trick["cards"][args[1]]["card"] = args[2].value
            trick.pop("winner", None)  # the cards say who won; a later leader may then disagree
    return position


@pytest.mark.heavy  # each of 60 games' positions edited, then a deal sought for it
@SETTINGS
@given(GAMES, st.data())
def test_a_position_is_accepted_exactly_when_the_engine_plays_a_deal_to_it(game, data):
    """The independent oracle: ``witness`` places every card, plays the deal with the
    engine and compares the seat's view; it finds a deal exactly for accepted positions."""
    for view in views(*game):
        position = edited(position_from_view(view), data.draw(EDITS))
        try:
            shaped = read_view(position)
        except PositionError:
            continue  # malformed or inconsistent in form: refused before any deal is sought
        found = objection(shaped)
        assert (found is None) == (witness(shaped) is not None), (found, position)


def test_every_mutation_meets_positions_it_applies_to():
    """The mutations are not vacuous: each changes positions of a few real games."""
    met = {name: 0 for name in MUTATIONS}
    rng = random.Random(5)
    for _ in range(60):
        for view in views(rng.randrange(2**32), rng.choice(list(Variant))):
            for name, _position in mutated(view):
                met[name] += 1
    assert all(count >= 3 for count in met.values()), met


def test_an_opponent_void_in_trumps_with_two_unseen_trumps_and_one_talon_card_is_refused():
    """R5b, R6b: hearts are trumps (KH turned up); seat 1 closed after four tricks, leaving
    one card in the talon. Seat 0 answered the trump lead TH with QD, so it held no
    trump from then on. AH and JH are unseen and seat 0 never held them, but the
    talon has room for one card only."""
    trick = lambda leader, lead, follow, winner: {  # noqa: E731
        "leader": leader,
        "cards": [{"seat": leader, "card": lead}, {"seat": 1 - leader, "card": follow}],
        "winner": winner,
    }
    position = {
        "variant": "head", "seat": 1, "dealer": 0, "hand": ["TD", "KD", "AS"],
        "trump_card": "KH", "turn_up": "KH", "talon_size": 1, "closed_by": 1,
        "tricks": [
            trick(1, "QC", "AD", 1), trick(1, "JC", "QH", 0), trick(0, "KC", "TC", 1),
            trick(1, "KS", "QS", 1), trick(1, "AC", "TS", 1), trick(1, "TH", "QD", 1),
        ],
        "current_trick": [], "marriages": [], "declared_marriage": None, "exchange": None,
    }  # fmt: skip
    with pytest.raises(PositionError) as refused:
        view_from_position(position)
    assert refused.value.field == "tricks"
    assert "AH, JH" in refused.value.message
    position["hand"] = ["AH", "KD", "AS"]  # AH in our hand instead: JH lies in the talon
    assert view_from_position(position).talon_size == 1


def test_a_marriage_with_the_trump_card_under_the_talon_names_the_turn_up():
    """R1b, R6c: the King of trumps lies face up under the talon, so the opponent's first
    lead, the Queen of trumps, cannot have come with a marriage."""

    def fits(view: SeatView) -> bool:
        queen = Card.of(Rank.QUEEN, view.trump)
        return (
            not view.tricks
            and view.lead_card is not None
            and view.turn_up.rank is Rank.KING
            and queen not in view.hand
        )

    view = next(v for seed in range(200) for v in views(seed, Variant.HEAD) if fits(v))
    position = position_from_view(view)
    position["current_trick"][0]["card"] = Card.of(Rank.QUEEN, view.trump).value
    assert view_from_position(position).lead_card.rank is Rank.QUEEN  # a lead that happens
    position["marriages"] = [{"seat": view.opponent, "suit": view.trump.value}]
    with pytest.raises(PositionError) as refused:
        view_from_position(position)
    assert refused.value.field == "marriages[0]"
    assert f"{view.turn_up} lay face up under the talon" in refused.value.message


def test_a_trump_marriage_whose_queen_came_by_the_exchange_is_reachable_and_accepted():
    """R6a, R6c: the opponent took the trump Queen by the exchange, then led the King and
    declared 40 while the Queen, known to be in its hand, still is: no more room needed."""
    trick = lambda leader, first, second, winner: {  # noqa: E731
        "leader": leader,
        "cards": [{"seat": leader, "card": first}, {"seat": 1 - leader, "card": second}],
        "winner": winner,
    }
    position: Position = {
        "schema": 1, "variant": "head", "seat": 0, "dealer": 1,
        "hand": ["TH", "JS"], "trump_card": None, "turn_up": "JD", "talon_size": 0,
        "closed_by": None,
        "tricks": [
            trick(0, "KS", "AD", 1), trick(1, "TD", "AS", 1), trick(1, "TS", "QS", 1),
            trick(1, "AH", "JH", 1), trick(1, "KC", "KH", 1), trick(1, "TC", "AC", 0),
            trick(0, "JC", "QC", 1), trick(1, "KD", "JD", 1),
        ],
        "current_trick": [{"seat": 1, "card": "QH"}],
        "marriages": [{"seat": 1, "suit": "C"}, {"seat": 1, "suit": "D"}],
        "declared_marriage": None,
        "exchange": {"seat": 1, "took": "QD"},
        "game_points": [3, 2],
    }  # fmt: skip
    assert witness(read_view(copy.deepcopy(position))) is not None, "a deal reaches it"
    view_from_position(position)  # accepted: no PositionError
