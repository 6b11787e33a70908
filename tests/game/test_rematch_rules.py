"""The rules of a rematch offer, and the seats record a rematch starts from."""

from __future__ import annotations

import pytest

from service.game.problems import Conflict
from service.game.rematch import Move, Offer, RematchStatus, decide
from service.game.seats import PlayerKind, Seat, Seats

OFFERED_BY_0 = Offer(0, RematchStatus.OFFERED)
ACCEPTED_BY_0 = Offer(0, RematchStatus.ACCEPTED)
DECLINED_BY_0 = Offer(0, RematchStatus.DECLINED)


@pytest.mark.parametrize(
    ("before", "seat", "move", "after"),
    [
        (None, 0, Move.OFFER, OFFERED_BY_0),
        (OFFERED_BY_0, 0, Move.OFFER, OFFERED_BY_0),
        (OFFERED_BY_0, 1, Move.OFFER, ACCEPTED_BY_0),
        (OFFERED_BY_0, 1, Move.ACCEPT, ACCEPTED_BY_0),
        (ACCEPTED_BY_0, 1, Move.ACCEPT, ACCEPTED_BY_0),
        (ACCEPTED_BY_0, 0, Move.OFFER, ACCEPTED_BY_0),
        (OFFERED_BY_0, 1, Move.DECLINE, DECLINED_BY_0),
        (DECLINED_BY_0, 1, Move.DECLINE, DECLINED_BY_0),
        # An offer after a decline is the game's next offer: a notice of its own.
        (DECLINED_BY_0, 1, Move.OFFER, Offer(1, RematchStatus.OFFERED, 2)),
        (DECLINED_BY_0, 0, Move.OFFER, Offer(0, RematchStatus.OFFERED, 2)),
    ],
)
def test_each_move_leaves_the_offer_the_rules_say(before, seat, move, after):
    assert decide(before, seat, move, against_bot=False) == after


@pytest.mark.parametrize(
    ("before", "seat", "move", "code"),
    [
        (None, 1, Move.ACCEPT, "no_rematch_offer"),
        (None, 1, Move.DECLINE, "no_rematch_offer"),
        (DECLINED_BY_0, 1, Move.ACCEPT, "no_rematch_offer"),
        (ACCEPTED_BY_0, 1, Move.DECLINE, "no_rematch_offer"),
        (OFFERED_BY_0, 0, Move.ACCEPT, "own_rematch_offer"),
        (OFFERED_BY_0, 0, Move.DECLINE, "own_rematch_offer"),
        (ACCEPTED_BY_0, 0, Move.ACCEPT, "own_rematch_offer"),
    ],
)
def test_a_move_the_rules_refuse_names_its_code(before, seat, move, code):
    with pytest.raises(Conflict) as refused:
        decide(before, seat, move, against_bot=False)
    assert refused.value.code == code


def test_against_a_bot_an_offer_is_accepted_as_it_is_made():
    assert decide(None, 0, Move.OFFER, against_bot=True) == ACCEPTED_BY_0


def test_an_offer_reads_back_as_it_was_written():
    for offer in (OFFERED_BY_0, ACCEPTED_BY_0, Offer(1, RematchStatus.DECLINED, 3)):
        assert Offer.decode(offer.encode()) == offer
    assert Offer.decode(None) is None
    # A record kept before offers were numbered is the game's first offer.
    assert Offer.decode("declined:1") == Offer(1, RematchStatus.DECLINED, 1)


def test_a_rematch_record_keeps_the_seats_and_owner_but_no_secret_nor_seed():
    old = Seats(
        (
            Seat(PlayerKind.HUMAN, token_hash="t0", nonce="n0"),
            Seat(PlayerKind.BOT, "heuristic"),
        ),
        invite_hash="i",
        invite_nonce="in",
        seed=7,
        owner="cl_1",
    )
    new = old.for_rematch("g_old")
    assert new == Seats(
        (Seat(PlayerKind.HUMAN), Seat(PlayerKind.BOT, "heuristic")),
        owner="cl_1",
        rematch_of="g_old",
    )
    assert Seats.decode(new.encode()) == new
    assert new.encode()["rematch_of"] == "g_old"
