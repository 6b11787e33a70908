"""A Swiss tournament's standings, from its results and byes alone.

The standings are never kept up to date by increments: they are this function of the
games, so a stored table can always be checked against it.

Scores: a win ``WIN_POINTS`` (1), a loss 0, a bye ``BYE_POINTS`` (1, as a win: the
player was there and the odd count was not their doing). Schnapsen has no draw.
Tiebreaks, in order:

- **Buchholz**: the sum of the final scores of every opponent the player met (a
  withdrawn opponent counts with the score they left with; a bye adds no opponent);
- **Sonneborn-Berger**: the sum of the final scores of the opponents the player beat;
- then more wins (a bye is not a win), then the player id, so the order is total.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from service.competition.records import Bye, Result

WIN_POINTS = 1
BYE_POINTS = 1


@dataclass(frozen=True)
class Standing:
    """One line of the table: the player's place (1 first) and how it was reached."""

    rank: int
    player: str
    points: int
    buchholz: int
    sonneborn_berger: int
    wins: int
    games: int
    byes: int


def swiss_points(results: Iterable[Result], byes: Iterable[Bye]) -> dict[str, int]:
    """Every player's score: wins and byes (players who only lost score 0)."""
    points: dict[str, int] = defaultdict(int)
    for result in results:
        points[result.winner] += WIN_POINTS
        points[result.loser] += 0
    for bye in byes:
        points[bye.player] += BYE_POINTS
    return dict(points)


def swiss_standings(
    results: Iterable[Result], byes: Iterable[Bye] = (), players: Iterable[str] = ()
) -> tuple[Standing, ...]:
    """The table, best first. ``players`` adds those who have no game yet (a late join
    before its first round): they stand on 0 with no tiebreak."""
    results, byes = tuple(results), tuple(byes)
    points = swiss_points(results, byes)
    for player in players:
        points.setdefault(player, 0)
    buchholz: dict[str, int] = defaultdict(int)
    berger: dict[str, int] = defaultdict(int)
    wins: dict[str, int] = defaultdict(int)
    games: dict[str, int] = defaultdict(int)
    sat_out: dict[str, int] = defaultdict(int)
    for result in results:
        winner, loser = result.winner, result.loser
        buchholz[winner] += points[loser]
        buchholz[loser] += points[winner]
        berger[winner] += points[loser]
        wins[winner] += 1
        games[winner] += 1
        games[loser] += 1
    for bye in byes:
        sat_out[bye.player] += 1
    order = sorted(points, key=lambda p: (-points[p], -buchholz[p], -berger[p], -wins[p], p))
    return tuple(
        Standing(
            rank=place,
            player=player,
            points=points[player],
            buchholz=buchholz[player],
            sonneborn_berger=berger[player],
            wins=wins[player],
            games=games[player],
            byes=sat_out[player],
        )
        for place, player in enumerate(order, start=1)
    )
