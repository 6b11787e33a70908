"""Competition: pairing and standings of tournaments (Swiss and arena), as pure functions.

Everything here is computed from what a tournament already holds, its entrants and the
results of its games, and returns frozen records: no HTTP, no queue, no storage. So the
standings a store keeps can always be checked against a recomputation from the games
alone (``swiss_standings``, ``arena_standings``), and a pairing made again from the same
history is the same pairing. docs/tournaments.md gives the rules.
"""

from __future__ import annotations

from service.competition.arena import (
    ArenaStanding,
    Waiting,
    arena_pairings,
    arena_points,
    arena_standings,
)
from service.competition.dealing import dealer_balance, first_dealer
from service.competition.records import Bye, Entrant, Pairing, Result, Round
from service.competition.standings import BYE_POINTS, WIN_POINTS, Standing, swiss_standings
from service.competition.swiss import pair_round

__all__ = [
    "BYE_POINTS",
    "WIN_POINTS",
    "ArenaStanding",
    "Bye",
    "Entrant",
    "Pairing",
    "Result",
    "Round",
    "Standing",
    "Waiting",
    "arena_pairings",
    "arena_points",
    "arena_standings",
    "dealer_balance",
    "first_dealer",
    "pair_round",
    "swiss_standings",
]
