"""A share of waiting slots per key: taken to its size, given back, and forgotten when empty."""

from __future__ import annotations

import pytest

from service.live.shares import Shares


def test_a_key_takes_slots_up_to_its_share_and_other_keys_keep_theirs():
    shares = Shares(2)
    assert shares.take("address:127.0.0.2") and shares.take("address:127.0.0.2")
    assert not shares.take("address:127.0.0.2")
    assert shares.take("address:127.0.0.3")
    shares.give_back("address:127.0.0.2")
    assert shares.take("address:127.0.0.2")


def test_a_key_that_gave_every_slot_back_is_no_longer_counted():
    shares = Shares(3)
    for _ in range(3):
        shares.take("game-1")
    for _ in range(3):
        shares.give_back("game-1")
    assert shares.held("game-1") == 0 and shares.keys == 0
    with pytest.raises(ValueError):
        shares.give_back("game-1")


def test_a_share_of_0_refuses_nothing():
    shares = Shares(0)
    assert all(shares.take("address:127.0.0.2") for _ in range(10_000))
