"""The arena: players come and go for a fixed time, and whoever is waiting is paired at once.

Points (docs/tournaments.md, "Arena"): a win ``ARENA_WIN`` (2), a loss 0; after
``STREAK`` wins in a row (2) the player is on a streak and each further win counts
double (4) until their next loss. Schnapsen has no draw, so there is no draw rule.

Pairing (as lichess's arena): the players waiting are ordered by their place in the
standings and matched so that each meets someone close in that order, by a
maximum-weight matching whose weight falls with the square of the gap in places (up to
``ARENA_EXACT`` waiting; above that, neighbours in the order, the greedy equivalent).
Two players who have just played each other are never paired again at once: one of
them waits for the next player free instead. So is whoever is left over on an odd count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.competition.dealing import dealer_balance, first_dealer, last_dealt
from service.competition.matching import best_matching
from service.competition.records import Pairing, Result

ARENA_WIN = 2
STREAK = 2
ARENA_EXACT = 24


@dataclass(frozen=True)
class Waiting:
    """A player free to be paired (finished a game or just joined, not paused)."""

    player: str


@dataclass(frozen=True)
class ArenaStanding:
    rank: int
    player: str
    points: int
    wins: int
    games: int
    #: Whether the player's next win counts double.
    on_streak: bool


def in_order(results: Iterable[Result]) -> list[Result]:
    """The results in the order the games ended (``Result.round`` is that order)."""
    return sorted(results, key=lambda result: result.round)


def arena_points(results: Iterable[Result]) -> dict[str, int]:
    return {line.player: line.points for line in arena_standings(results)}


def arena_standings(
    results: Iterable[Result], players: Iterable[str] = ()
) -> tuple[ArenaStanding, ...]:
    """The table from the games alone, best first: points, then wins, then fewer games,
    then the player id. ``players`` adds those who joined and have no game yet."""
    points: dict[str, int] = defaultdict(int)
    wins: dict[str, int] = defaultdict(int)
    games: dict[str, int] = defaultdict(int)
    run: dict[str, int] = defaultdict(int)
    for player in players:
        points[player] += 0
    for result in in_order(results):
        winner, loser = result.winner, result.loser
        points[winner] += ARENA_WIN * (2 if run[winner] >= STREAK else 1)
        points[loser] += 0
        run[winner] += 1
        run[loser] = 0
        wins[winner] += 1
        games[winner] += 1
        games[loser] += 1
    order = sorted(points, key=lambda p: (-points[p], -wins[p], games[p], p))
    return tuple(
        ArenaStanding(place, p, points[p], wins[p], games[p], run[p] >= STREAK)
        for place, p in enumerate(order, start=1)
    )


def last_opponents(results: Iterable[Result]) -> dict[str, str]:
    """Each player's opponent in their latest game."""
    latest: dict[str, str] = {}
    for result in in_order(results):
        latest[result.dealer] = result.forehand
        latest[result.forehand] = result.dealer
    return latest


def arena_pairings(
    waiting: Sequence[Waiting], results: Iterable[Result] = ()
) -> tuple[Pairing, ...]:
    """The boards for the players waiting now, given every finished game of the arena.
    Whoever is not on a board keeps waiting."""
    results = tuple(results)
    names = list(dict.fromkeys(entry.player for entry in waiting))
    table = {line.player: line.rank for line in arena_standings(results, names)}
    ranked = sorted(names, key=lambda p: (table[p], p))
    place = {player: i for i, player in enumerate(ranked)}
    previous = last_opponents(results)

    def rematch(a: str, b: str) -> bool:
        return previous.get(a) == b or previous.get(b) == a

    if len(ranked) <= ARENA_EXACT:
        ceiling = len(ranked) ** 2 + 1

        def weight(a: str, b: str) -> int | None:
            return None if rematch(a, b) else ceiling - (place[a] - place[b]) ** 2

        pairs = best_matching(ranked, weight)
    else:
        pairs = []
        free = list(ranked)
        while len(free) >= 2:
            player = free.pop(0)
            partner = next((p for p in free[:4] if not rematch(player, p)), None)
            if partner is not None:
                free.remove(partner)
                pairs.append((player, partner))
    balance, dealt = dealer_balance(results), last_dealt(results)
    ordered = sorted(
        (min(pair, key=place.__getitem__), max(pair, key=place.__getitem__)) for pair in pairs
    )
    ordered.sort(key=lambda pair: place[pair[0]])
    return tuple(first_dealer(better, other, balance, dealt) for better, other in ordered)
