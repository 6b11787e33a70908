"""What a Swiss's and an arena's jobs share (``workers.tournaments``, ``workers.arenas``):
the database of record, a claimed round's games made from its stored seed, the
notices told to the app, and the kept results as the competition core reads them."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

from service.competition import Result
from service.engine import Variant
from service.game.clock import TimeControl
from service.game.problems import GameNotFound
from service.game.tournament_notices import TournamentNotice
from service.game.values import Current
from service.jobs.tournaments import VIA
from service.store.tournament_records import Board, PairedRound, Tournament, TournamentRecords
from workers.runtime import runtime


def tournament_records() -> TournamentRecords:
    """The tournaments of this worker's database of record."""
    records = runtime().tournaments
    if records is None:
        raise RuntimeError("tournaments need the database of record (SCHNAPSEN_ARCHIVE_URL)")
    return records


def tell(app: str, found: list[TournamentNotice]) -> None:
    """Deliver ``found`` to the app's webhooks; told again by a job run again, the same
    notices (their ids are the tournament's, the kind's and the round's) are kept once."""
    for notice in found:
        runtime().webhook_events.tell_app(app, notice)


def _derived(seed: str, what: str) -> str:
    """A value of the round's games, from the round's stored secret seed alone."""
    return hmac.new(bytes.fromhex(seed), what.encode(), hashlib.sha256).hexdigest()


def game_id_of(seed: str, board: int) -> str:
    return _derived(seed, f"game:{board}")[:16]


def make_games(tournament: Tournament, paired: PairedRound) -> None:
    """Make the claimed round's games not made yet: each game's id and seat nonces come
    from the round's seed, so a game is made once whoever makes it."""
    games = runtime().games
    clock = None if tournament.clock is None else TimeControl.decode(json.dumps(tournament.clock))
    for board in paired.boards:
        try:
            games.current(board.game_id)
            continue
        except GameNotFound:
            pass
        nonces = (
            _derived(paired.seed, f"nonce:{board.board}:0")[:32],
            _derived(paired.seed, f"nonce:{board.board}:1")[:32],
        )
        games.create_paired(
            board.game_id,
            tournament.app,
            (board.dealer, board.forehand),
            Variant(tournament.variant),
            True,
            clock,
            VIA,
            nonces=nonces,
            first_dealer=0,
            tournament=tournament.id,
        )
        # Each player's list of games holds it, as a seek's or a challenge's game.
        runtime().players.played(
            tournament.app, (board.dealer, board.forehand), board.game_id, int(time.time() * 1000)
        )


def results_of(boards: list[Board]) -> list[Result]:
    """The kept results of ``boards``: in a Swiss the round is the round, in an arena the
    pairing the game was made by (a player's games end in the order they were paired)."""
    return [
        Result(board.round, board.dealer, board.forehand, board.winner)
        for board in boards
        if board.winner is not None
    ]


def game_of(game_id: str) -> Current | None:
    try:
        return runtime().games.current(game_id)
    except GameNotFound:
        return None


def winner_of(current: Current) -> str | None:
    """The player who won an ended game; None while it is played."""
    if not current.state.over or current.state.winner is None:
        return None
    return current.seats[current.state.winner].player


__all__ = [
    "game_id_of",
    "game_of",
    "make_games",
    "results_of",
    "tell",
    "tournament_records",
    "winner_of",
]
