"""What the game service answers without changing a game: a game at a version, the
seat a token opens, a client's games, the invite, the events after a version.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.engine import Event, GameState, SeatTaken, replay
from service.game import auth
from service.game.log import LIST_SCAN_LIMIT, GameListing, GameLog, Listed, RateCounts
from service.game.problems import GameNotFound, Unauthorized
from service.game.transaction import Transaction
from service.game.values import Current, GamePage


class GameQueries:
    """The reading half of ``GameService``: one game's log, the client listing, the secret
    tokens and invites are derived from."""

    def __init__(
        self, game_log: GameLog, secret: bytes, listing: GameListing, transaction: Transaction
    ):
        self.store = game_log
        self.secret = secret
        self.client_games = listing
        self.transaction = transaction

    def current(
        self, game_id: str, version: int | None = None, *, counts: RateCounts | None = None
    ) -> Current:
        """The game at ``version`` (default: now), from the newest snapshot plus newer events;
        ``counts``, the request's rate limits, counted by the same read."""
        return self.transaction.load(game_id, version, counts=counts)[0]

    def seat_for(self, current: Current, token: str | None) -> int | None:
        """The seat a bearer token acts for; ``None`` (a spectator) without a token."""
        if token is None:
            return None
        return self._seat_of(current, token)

    def list_games(
        self, owner: str, *, status: str | None, after: Listed | None, limit: int
    ) -> GamePage:
        """The games ``owner`` created, newest first, with ``status`` if given.

        Status comes from each game's log (it is not indexed), so filtering
        reads at most ``LIST_SCAN_LIMIT`` index entries per page; a page may
        then hold fewer than ``limit`` games and still have a next cursor.
        """
        found: list[tuple[Listed, Current]] = []
        scanned = 0
        cursor = after
        while len(found) < limit and scanned < LIST_SCAN_LIMIT:
            batch = self.client_games.page(owner, cursor, min(limit, LIST_SCAN_LIMIT - scanned))
            if not batch:
                return GamePage(found, None)
            for listed in batch:
                scanned += 1
                cursor = listed
                try:
                    current = self.current(listed.game_id)
                except GameNotFound:  # a create that failed after indexing its id
                    continue
                if status is None or current.state.status == status:
                    found.append((listed, current))
                    if len(found) == limit:
                        break
        if cursor is None or not self.client_games.page(owner, cursor, 1):
            return GamePage(found, None)
        return GamePage(found, cursor)

    def invite_for(self, current: Current, seat: int | None) -> str | None:
        """The invite, for seat 0 only, while seat 1 of a game between people is empty.

        It is seat 0's secret to pass on (its view may show it, so an app that
        lost the create answer can still share it); nobody else ever sees it.
        """
        nonce = current.seats.invite_nonce
        state = current.state
        if seat != 0 or nonce is None or state.seated[1] or state.over:
            return None
        return self._invite(current.game_id, nonce)

    def events_after(
        self, game_id: str, after: int
    ) -> tuple[GameState | None, list[Event], Current]:
        """The state at ``after`` and the events after it, for the event feed."""
        latest = self.current(game_id)
        if after >= latest.version:
            return None, [], latest
        start = self.current(game_id, after).state if after > 0 else None
        return start, self.store.events(game_id, after, latest.version), latest

    def events_since(
        self, known: Current, announced: Sequence[Event] | None = None
    ) -> tuple[list[Event], Current]:
        """The events after ``known`` and the game they lead to: one round trip, or none
        when the append's announcement brought them (``announced``).

        For waiters, who already hold the state they waited at: folding the
        new events onto it is cheaper than loading the game again.
        """
        if announced is not None:
            events = list(announced)
        else:
            events = self.store.events(known.game_id, known.version)
        if not events:
            return [], known
        if any(isinstance(event, SeatTaken) for event in events):  # the seats record changed
            return events, self.current(known.game_id, known.version + len(events))
        state = replay(events, known.state)
        return events, Current(known.game_id, known.version + len(events), state, known.seats)

    # -- secrets and seats -------------------------------------------------
    def _seat_of(self, current: Current, token: str) -> int:
        presented = auth.fingerprint(token)  # hashed once, compared with both seats'
        for seat in (0, 1):
            if auth.fingerprint_matches(presented, current.seats[seat].token_hash):
                return seat
        raise Unauthorized("this token belongs to no seat of this game")

    def _seat_token(self, game_id: str, seat: int, nonce: str) -> str:
        return auth.seat_token(self.secret, game_id, seat, nonce)

    def _invite(self, game_id: str, nonce: str) -> str:
        return auth.derive_secret(self.secret, game_id, "invite", nonce)


def bot_to_move(current: Current) -> bool:
    """A bot's seat is to move (while the game runs: a finished game has nobody to move)."""
    seat = current.state.to_move
    return current.seats.bot_level(seat) is not None
