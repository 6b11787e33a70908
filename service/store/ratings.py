"""A rated game's end changes its players' Glicko-2 ratings, once.

A game is rated when it was created so (``Seats.rated``): between two players
of one client app, or, when the app asks for it on a game against a bot, for
its one player, the bot standing at the fixed rating of its level (its ladder
Elo plus ``BOT_RATING_BASE``, ``glicko2.fixed``; a bot's rating never moves).
Each game is its own rating period (``glicko2.rate_game``), in the game's rating
pool (``service.game.pools``: its variant and its clock's speed): only the
players' ratings in that pool move, and the history entry names the pool. An aborted game
has no winner and changes nothing; a resign or a timeout is a loss. Which
results count, and for whom, is ``service.game.rated_results``: before
minimum play only the loser's rating moves (RX7), and one pair's games past
its window's count rate nobody (RX8, decided by the writing script).

Exactly once: the new ratings and the game's mark are written by one script
(``PlayerStore.write_ratings``), so running the rating again (a job run
twice, or the archive's job after the end's own) finds the mark and writes
nothing; when another game of a player was rated between the read and the
write, the ratings are read and computed again, after a random wait that
doubles with each loss, so two writers of one player's ratings do not meet
at the same step again and again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

from service.game import glicko2, rated_results
from service.game.players import Rated
from service.game.pools import Pool, pool_of
from service.game.values import Current
from service.store.player_records import Players
from service.store.players import DOCUMENTED_PAIR_RULES, PairRules, RatingChange

#: A bot level's fixed rating is its ladder Elo (``random`` at 0) plus this.
BOT_RATING_BASE = 1000.0
#: How often a rating is computed again when a player's rating moved meanwhile.
ATTEMPTS = 8
#: Before computing again, a writer that lost the race waits a random time up to this
#: many seconds, doubled after each loss: two writers rating one player's games at once
#: would otherwise meet again at the same step and the same one could lose every time.
FIRST_BACKOFF_S = 0.002


def _glicko(rated: Rated) -> glicko2.Rating:
    return glicko2.Rating(rated.rating, rated.deviation, rated.volatility)


class RatedGames:
    """Writes the ratings of ended rated games (``rate``), once a game."""

    def __init__(
        self,
        players: Players,
        bot_elo: Mapping[str, float],
        rules: PairRules = DOCUMENTED_PAIR_RULES,
    ):
        self.players = players
        self.bot_elo = dict(bot_elo)
        self.rules = rules

    def rate(self, current: Current) -> bool | None:
        """Rate the game if it is a rated game that ended with a winner: True when this
        call wrote the ratings, False when they were written before, None when the game
        is not one to rate (casual, not over, aborted, or past its pair's count, RX8)."""
        seats, state = current.seats, current.state
        app = seats.owner
        if not seats.rated or app is None or not state.over or state.winner is None:
            return None
        score = 1.0 if state.winner == 0 else 0.0
        players = (seats[0].player, seats[1].player)
        pair = None if None in players or seats.against_bot else (players[0], players[1])
        pool = pool_of(state.variant, seats.clock)
        for attempt in range(ATTEMPTS):
            if attempt:
                time.sleep(random.uniform(0, FIRST_BACKOFF_S * 2**attempt))
            changes = self._changes(app, current, score, pool)
            if not changes:
                return None
            written = self.players.write_ratings(
                app, current.game_id, changes, pair=pair, rules=self.rules, pool=pool
            )
            if written == 2:
                return None
            if written >= 0:
                return written == 1
        raise RuntimeError(f"the ratings of game {current.game_id} kept moving")

    def _changes(self, app: str, current: Current, score: float, pool: Pool) -> list[RatingChange]:
        seats = current.seats
        sides: list[tuple[glicko2.Rating, str | None, int]] = []
        for number in (0, 1):
            seat = seats[number]
            if seat.bot:
                elo = self.bot_elo.get(seat.level or "")
                if elo is None:
                    return []
                sides.append((glicko2.fixed(BOT_RATING_BASE + elo), None, 0))
            elif seat.player is None:
                return []
            else:
                rated = self.players.get(app, seat.player).rating_in(pool)
                sides.append((_glicko(rated), seat.player, rated.games))
        (a, pa, ga), (b, pb, gb) = sides
        new_a, new_b = glicko2.rate_game(a, b, score)
        at = int(time.time() * 1000)
        changes = []
        counted = rated_results.rated_seats(current.state)
        for seat, new, old, player, games, opponent, won in (
            (0, new_a, a, pa, ga, pb or f"bot:{seats[1].level}", score),
            (1, new_b, b, pb, gb, pa or f"bot:{seats[0].level}", 1.0 - score),
        ):
            if player is None or seat not in counted:
                continue
            rated = Rated(new.rating, new.deviation, new.volatility, games + 1)
            entry = {
                "game_id": current.game_id,
                "pool": pool.name,
                "at": at,
                "opponent": opponent,
                "score": won,
                "rating_before": round(old.rating, 2),
                "rating": round(new.rating, 2),
                "deviation": round(new.deviation, 2),
                "volatility": round(new.volatility, 6),
            }
            changes.append(RatingChange(player, games, rated, entry))
        return changes
