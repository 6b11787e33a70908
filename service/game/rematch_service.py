"""Rematch commands: offer, accept, decline, and what a seat or a view learns of the offer.

The offer's rules are ``service.game.rematch``; this module runs them against
the offer's record (``RematchOffers``, which the store implements) and makes
the new game once an offer is accepted. Two facts keep an accept exactly once:

- the record changes only by compare-and-set, and only while the game is
  still live in the store (its log in Redis): a decline and an accept that race
  cannot both win, and a game that has left for the archive takes no answer;
- the new game's id is derived from the old one's (``auth.derive_rematch_id``),
  so its first append, onto an empty log, is the claim: two accepts (two
  processes, or a retry after a crash) make one game, and the one that lost
  reads the winner's seats record and derives the same tokens from its nonces.

An accepted record whose game is missing (the accepting process died between
the two steps) is healed by the next accept, offer or status read of either
seat: they all make the same game.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, replace
from typing import Protocol

from service.engine import Dealing, DealStarted, Event, GameCreated, SeatTaken
from service.engine.decide import record
from service.engine.fairness import NONCE_BYTES
from service.game import auth, dealing
from service.game.commands import GameService
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, GameNotFound, Problem, Unauthorized
from service.game.rematch import (
    Move,
    Offer,
    RematchStatus,
    check_rematch_allowed,
    decide,
    has_rematch,
)
from service.game.seats import PlayerKind, Seat
from service.game.transaction import Decided, Replayed
from service.game.values import Current, Seated

#: How often a command reads and decides again when the record moved under it.
SWAP_ATTEMPTS = 5
#: The new game's idempotency record: its first append remembers it, so a racing
#: second accept is answered from it (and finds an archived rematch taken).
_CLAIM_KEY = "rematch"


class OfferMoved(Exception):
    """The offer's record is no longer what was read: read and decide again."""


class GameLeftStore(Exception):
    """The game's log is no longer in the live store (it moved to the archive)."""


class RematchClosed(Problem):
    """The game has left the live store for the archive: it takes no offer or answer now."""

    code, title = ProblemCode.REMATCH_CLOSED, "The rematch window has closed"


class RematchOffers(Protocol):
    """The rematch offer of each finished game, beside its log (``service.store.rematches``)."""

    def read(self, game_id: str) -> str | None:
        """The record as ``Offer.encode`` wrote it; None when there is none (or no more)."""
        ...

    def swap(self, game_id: str, expected: str | None, new: str) -> None:
        """Write ``new`` only if the record is still ``expected`` and the game's log is
        live; raises ``OfferMoved`` or ``GameLeftStore`` (nothing written)."""
        ...


@dataclass(frozen=True, slots=True)
class Rematch:
    """A game's rematch as one seat (or a spectator) sees it."""

    #: The old game.
    game_id: str
    #: The caller's seat in both games (None: a spectator's view).
    seat: int | None
    offer: Offer | None
    #: The new game's id, once the offer is accepted (derived: known before it exists).
    rematch_id: str | None = None
    #: The new game as the caller's seat takes it, with its token (not in a view).
    seated: Seated | None = None


class RematchService:
    """The rematch commands over the game service and the offers' record."""

    def __init__(self, games: GameService, offers: RematchOffers):
        self.games = games
        self.offers = offers

    # -- commands ------------------------------------------------------------
    def offer(self, game_id: str, token: str | None) -> Rematch:
        """Offer a rematch (an accept when the other seat offered first; against a bot,
        accepted at once)."""
        return self._move(game_id, token, Move.OFFER)

    def accept(self, game_id: str, token: str | None) -> Rematch:
        """Accept the other seat's offer: the new game is made (once)."""
        return self._move(game_id, token, Move.ACCEPT)

    def decline(self, game_id: str, token: str | None) -> Rematch:
        """Decline the other seat's offer; either seat may offer again later."""
        return self._move(game_id, token, Move.DECLINE)

    def status(self, game_id: str, token: str | None) -> Rematch:
        """The offer as the token's seat sees it, with its seat and token in the new game
        once accepted (so the seat that offered learns its token)."""
        current, seat = self._seated(game_id, token)
        return self._answer(current, seat, self._read(game_id)[1])

    def shown(self, current: Current, seat: int | None) -> Rematch | None:
        """The rematch a game's view shows (None: none), without tokens.

        The offer's record, else (once the record has expired) the game at the
        derived id: a game's rematch is found by its id alone.
        """
        if not has_rematch(current.state):
            return None
        offer = self._read(current.game_id)[1]
        if offer is None:
            return None
        accepted = offer.status is RematchStatus.ACCEPTED
        rematch_id = self.rematch_id(current.game_id) if accepted else None
        return Rematch(current.game_id, seat, offer, rematch_id)

    def read(self, game_id: str) -> str | None:
        """The offer's record as stored: what a long-poll compares to see it change."""
        return self.offers.read(game_id)

    # -- the steps -------------------------------------------------------------
    def _move(self, game_id: str, token: str | None, move: Move) -> Rematch:
        current, seat = self._seated(game_id, token)
        check_rematch_allowed(current.state)
        against_bot = current.seats.against_bot
        for _attempt in range(SWAP_ATTEMPTS):
            stored, before = self._read(game_id)
            after = decide(before, seat, move, against_bot=against_bot)
            if after != before:
                try:
                    self.offers.swap(game_id, stored, after.encode())
                except OfferMoved:
                    continue
                except GameLeftStore:
                    raise RematchClosed(
                        "this game has moved to the archive: its rematch window has closed; "
                        "create a new game instead"
                    ) from None
            return self._answer(current, seat, after)
        raise Conflict("the rematch offer changed too often; try again", code=ProblemCode.BUSY)

    def _seated(self, game_id: str, token: str | None) -> tuple[Current, int]:
        if token is None:
            raise Unauthorized(
                "a rematch is a seat's: send 'Authorization: Bearer <token>'",
                code=ProblemCode.TOKEN_REQUIRED,
            )
        current = self.games.current(game_id)
        seat = self.games.seat_for(current, token)
        assert seat is not None
        return current, seat

    def _read(self, game_id: str) -> tuple[str | None, Offer | None]:
        """The offer's record as stored, and as an ``Offer``.

        No record, but a game at the derived id: the record has expired and the game
        it made has not, so the offer was accepted (by a seat no longer known).
        """
        stored = self.offers.read(game_id)
        offer = Offer.decode(stored)
        if offer is None and self.games.store.head(self.rematch_id(game_id)) > 0:
            return stored, Offer(None, RematchStatus.ACCEPTED)
        return stored, offer

    def _answer(self, current: Current, seat: int, offer: Offer | None) -> Rematch:
        if offer is None or offer.status is not RematchStatus.ACCEPTED:
            return Rematch(current.game_id, seat, offer)
        seated = self._new_game(current, seat)
        return Rematch(current.game_id, seat, offer, seated.current.game_id, seated)

    def rematch_id(self, game_id: str) -> str:
        """The id of ``game_id``'s rematch (whether it exists yet or not)."""
        return auth.derive_rematch_id(self.games.secret, game_id)

    # -- the new game --------------------------------------------------------
    def _new_game(self, old: Current, seat: int) -> Seated:
        """The rematch of ``old`` as ``seat`` takes it: made now, or found made."""
        new_id = self.rematch_id(old.game_id)
        try:
            current = self.games.current(new_id)
        except GameNotFound:
            current = self._make(old, new_id)
        nonce = current.seats[seat].nonce
        assert nonce is not None  # a person's seat of a rematch is taken from the start
        return Seated(current, seat, auth.seat_token(self.games.secret, new_id, seat, nonce), None)

    def _make(self, old: Current, new_id: str) -> Current:
        """Create the rematch: the same seats (people and bots), the same variant, the
        other seat deals first; listed for the old game's client app, a bot's move
        asked for by the append's listeners, as on any create."""
        state = old.state
        first_dealer = 1 - state.first_dealer
        seats = old.seats.for_rematch(old.game_id)
        events: list[Event] = [GameCreated(state.variant, first_dealer, Dealing.RANDOM)]
        for number in (0, 1):
            seat = seats[number]
            if seat.bot:
                events.append(SeatTaken(number, PlayerKind.BOT.value, seat.level))
                continue
            events.append(SeatTaken(number, PlayerKind.HUMAN.value))
            nonce = auth.new_nonce()
            token = auth.seat_token(self.games.secret, new_id, number, nonce)
            taken = Seat(PlayerKind.HUMAN, token_hash=auth.fingerprint(token), nonce=nonce)
            seats = seats.with_seat(number, _kept(seat, taken))
        # R1c: the first deal's dealer is the first dealer.
        deck = dealing.random_deck()
        events.append(DealStarted(1, first_dealer, deck, secrets.token_hex(NONCE_BYTES)))
        if seats.owner is not None:  # before the log: a game is never missing from the listing
            self.games.client_games.add(seats.owner, new_id, int(time.time() * 1000))
        outcome = self.games.transaction.begin(
            new_id,
            Decided(record(None, events), None, seats),
            idempotency_key=_CLAIM_KEY,
            fingerprint=old.game_id,
        )
        if outcome is None or isinstance(outcome, Replayed):
            return self.games.current(new_id)  # another accept made it first
        return outcome.current


def _kept(old: Seat, taken: Seat) -> Seat:
    """``old`` with the secrets of ``taken``: whatever else a seat records is kept."""
    return replace(old, token_hash=taken.token_hash, nonce=taken.nonce)


__all__ = [
    "GameLeftStore",
    "OfferMoved",
    "Rematch",
    "RematchClosed",
    "RematchOffers",
    "RematchService",
]
