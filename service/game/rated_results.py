"""Which rated results count, and for whom (docs/rules.md, RX7 and RX8).

A rated result is a claim about two players' strength. A game given up before
any real play says nothing about the winner's strength, and a pair of
accounts that plays each other again and again can move ratings as far as it
likes. So, as chess servers do:

- RX7, minimum play: a result counts for both players only once the game has
  seen ``MIN_TRICKS`` tricks, or a deal has ended (a deal scored is play). A
  resign or a timeout before that is still the ending seat's loss, so a
  player with a poor hand gains nothing by resigning it (RX6), but its
  opponent gains nothing from a game that was not played.
- RX8, one pair's games: of the rated games between the same two players, only
  ``PAIR_GAMES`` ending within ``PAIR_WINDOW_SECONDS`` of each other change
  ratings; later ones within the window are played and listed, but rate
  nobody. The store keeps the pair's recent games and decides this in the same
  script that writes the ratings, so two games ending at once cannot both slip
  under the bound.
- A pool's leaderboard ranks a player only once it has ``LEADERBOARD_MIN_GAMES``
  rated games in the pool, and its rating there is no longer provisional
  (``service.game.pools.PROVISIONAL_DEVIATION``).

Pure: the engine's state in, seats out.
"""

from __future__ import annotations

from service.engine import GameState

#: The tricks a game must have seen before its result counts for the winner (RX7).
MIN_TRICKS = 3
#: Rated games of one pair that count within the window (RX8).
PAIR_GAMES = 3
#: The window of RX8, in seconds: a day.
PAIR_WINDOW_SECONDS = 24 * 3600
#: Rated games in a pool a player needs before the pool's leaderboard ranks it.
LEADERBOARD_MIN_GAMES = 5


def played_enough(state: GameState) -> bool:
    """RX7: a deal has ended, or the running deal has seen ``MIN_TRICKS`` tricks."""
    if state.results:
        return True
    return state.deal is not None and len(state.deal.tricks) >= MIN_TRICKS


def rated_seats(state: GameState) -> tuple[int, ...]:
    """The seats whose ratings a rated game's end changes: both once played enough, else
    only the seat that lost (a resign or a timeout before minimum play), none without a
    winner."""
    if state.winner is None:
        return ()
    if played_enough(state):
        return (0, 1)
    return (1 - state.winner,)


__all__ = [
    "LEADERBOARD_MIN_GAMES",
    "MIN_TRICKS",
    "PAIR_GAMES",
    "PAIR_WINDOW_SECONDS",
    "played_enough",
    "rated_seats",
]
