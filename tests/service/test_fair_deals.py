"""Provably fair deals: each deck is committed to when dealt and proven at the game's end."""

from __future__ import annotations

import hashlib
import random
import secrets

from service.engine import DECK, Card
from service.engine.cards import parse_cards
from service.engine.fairness import commitment, verify
from tests.support.games import random_move, two_seated
from tests.support.http import auth


def test_the_commitment_is_sha256_of_the_nonce_then_the_deck_codes():
    nonce = secrets.token_hex(32)
    deck = list(DECK)
    random.Random(1).shuffle(deck)
    expected = hashlib.sha256(bytes.fromhex(nonce) + "".join(c.value for c in deck).encode())
    assert commitment(nonce, deck) == expected.hexdigest()
    assert verify(expected.hexdigest(), nonce, deck)


def test_a_tampered_deck_or_nonce_fails_verification():
    nonce = secrets.token_hex(32)
    deck = list(DECK)
    published = commitment(nonce, deck)
    swapped = deck[:]
    swapped[0], swapped[19] = swapped[19], swapped[0]
    assert not verify(published, nonce, swapped)
    assert not verify(published, secrets.token_hex(32), deck)
    assert not verify(published, "00", deck)  # not even a nonce


def play_out(client, seed: int) -> tuple[str, list[str]]:
    """Two people play a whole game; the commitments seen while it ran."""
    game, tokens = two_seated(client, seed=seed)
    rng = random.Random(seed)
    seen: list[str] = []
    after = 0
    while True:
        feed = client.get(f"/v1/games/{game}/events?after={after}", headers=auth(tokens[0])).json
        for event in feed["events"]:
            if event["type"] == "deal_started":
                assert "deck" not in event and "nonce" not in event
                seen.append(event["commitment"])
        after = feed["version"]
        if random_move(client, game, tokens, rng) is None:
            return game, seen


def test_every_deal_of_finished_games_verifies(client):
    for seed in (3, 4, 5):
        game, seen = play_out(client, seed)
        replay = client.get(f"/v1/games/{game}/replay").json
        assert replay["complete"]
        deals = replay["deals"]
        assert [deal["commitment"] for deal in deals] == seen, "published before play"
        for deal in deals:
            assert verify(deal["commitment"], deal["nonce"], parse_cards(deal["deck"]))


def test_a_tampered_deck_of_a_finished_game_is_detected(client):
    game, _seen = play_out(client, 6)
    deal = client.get(f"/v1/games/{game}/replay").json["deals"][0]
    deck: list[Card] = list(parse_cards(deal["deck"]))
    deck[10], deck[11] = deck[11], deck[10]  # say the trump card was another
    assert not verify(deal["commitment"], deal["nonce"], deck)
