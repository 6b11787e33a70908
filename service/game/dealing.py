"""Shuffling decks and choosing the first dealer (the chance outcomes of R1).

Real games draw from the operating system's randomness. Practice games
created with a ``seed`` shuffle with a counter-mode SHA-256 stream, so the
same seed gives the same decks on every machine and Python version. Either
way the deck itself is recorded in the log (R1a), so a replay never shuffles.
"""

from __future__ import annotations

import hashlib
import secrets

from service.engine.cards import DECK, Card


def random_deck() -> tuple[Card, ...]:
    """A uniformly shuffled deck from the operating system's randomness."""
    cards = list(DECK)
    for index in range(len(cards) - 1, 0, -1):
        other = secrets.randbelow(index + 1)
        cards[index], cards[other] = cards[other], cards[index]
    return tuple(cards)


def seeded_deck(seed: int, deal_number: int) -> tuple[Card, ...]:
    """The deck of deal ``deal_number`` of a game created with ``seed``."""
    cards = list(DECK)
    for index in range(len(cards) - 1, 0, -1):
        other = _seeded_int(seed, f"deal:{deal_number}:{index}") % (index + 1)
        cards[index], cards[other] = cards[other], cards[index]
    return tuple(cards)


def first_dealer(seed: int | None) -> int:
    """R1c: chosen at random, or fixed by the seed of a practice game."""
    if seed is None:
        return secrets.randbelow(2)
    return _seeded_int(seed, "first_dealer") % 2


def _seeded_int(seed: int, label: str) -> int:
    # 64 bits: the bias of "% n" for n <= 20 is below 2**-59.
    digest = hashlib.sha256(f"schnapsen:{seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
