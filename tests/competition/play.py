"""Random Swiss tournaments for the properties: fields, results, withdrawals, late joins.

Also the checks' own means, written apart from the pairing's: a perfect-matching test
for "could this round have avoided it" (networkx on the plain graph of who may meet,
no weights) and, for small rounds, every pairing there is.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import networkx as nx

from service.competition import Bye, Entrant, Result, Round, pair_round


@dataclass
class PlayedRound:
    """One round as the tournament saw it: who was in, what was known, how it paired."""

    field: list[Entrant]
    results_before: list[Result]
    byes_before: list[Bye]
    round: Round


@dataclass
class Tournament:
    rounds: list[PlayedRound] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)
    withdrawn: set[str] = field(default_factory=set)


def play(seed: int, players: int, rounds: int, churn: bool = True) -> Tournament:
    """A tournament of ``players`` entrants over ``rounds`` rounds: each game won by the
    higher rated with odds by the rating gap; between rounds a few withdraw and a few
    join late (``churn``)."""
    rng = random.Random(seed)
    field_ = [Entrant(f"p{i:03d}", round(rng.gauss(1500, 250))) for i in range(players)]
    joined = players
    tournament = Tournament()
    for number in range(1, rounds + 1):
        if churn and number > 1:
            for entrant in list(field_):
                if len(field_) > 2 and rng.random() < 0.04:
                    field_.remove(entrant)
                    tournament.withdrawn.add(entrant.player)
            for _ in range(rng.choice((0, 0, 0, 1, 2))):
                field_.append(Entrant(f"p{joined:03d}", round(rng.gauss(1500, 250))))
                joined += 1
        paired = pair_round(number, field_, tournament.results, tournament.byes)
        tournament.rounds.append(
            PlayedRound(list(field_), list(tournament.results), list(tournament.byes), paired)
        )
        rating = {entrant.player: entrant.rating for entrant in field_}
        for board in paired.pairings:
            edge = (rating[board.dealer] - rating[board.forehand]) / 400
            dealer_wins = rng.random() < 1 / (1 + 10**-edge)
            winner = board.dealer if dealer_wins else board.forehand
            tournament.results.append(Result(number, board.dealer, board.forehand, winner))
        if paired.bye is not None:
            tournament.byes.append(Bye(number, paired.bye))
    return tournament


def met(results: list[Result]) -> set[frozenset[str]]:
    return {result.players for result in results}


def repeats(played: PlayedRound) -> int:
    before = met(played.results_before)
    return sum(board.players in before for board in played.round.pairings)


def pairs_without_repeat(played: PlayedRound, bye_to: set[str] | None = None) -> bool:
    """Whether the round's field could be paired with no two players meeting again (on
    an odd count, the bye to any player, or to one of ``bye_to``)."""
    players = [entrant.player for entrant in played.field]
    before = met(played.results_before)
    graph = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from(
        (a, b)
        for i, a in enumerate(players)
        for b in players[i + 1 :]
        if frozenset((a, b)) not in before
    )
    if len(players) % 2:
        graph.add_edges_from(("bye", p) for p in (bye_to if bye_to is not None else players))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return 2 * len(matching) == graph.number_of_nodes()


def every_pairing(players: list[str]) -> Iterator[tuple[list[tuple[str, str]], str | None]]:
    """Every way to pair ``players`` (one sits out on an odd count)."""
    if len(players) % 2:
        for sitter in players:
            for pairs, _ in every_pairing([p for p in players if p != sitter]):
                yield pairs, sitter
        return
    if not players:
        yield [], None
        return
    first, rest = players[0], players[1:]
    for i, partner in enumerate(rest):
        for pairs, _ in every_pairing(rest[:i] + rest[i + 1 :]):
            yield [(first, partner), *pairs], None


#: The fast lane's tournaments: every size class, every round count, played once.
FIELDS = (
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    15,
    17,
    20,
    24,
    31,
    40,
    47,
    49,
    53,
    64,
    80,
    111,
    150,
    211,
    300,
)


@functools.cache
def seeded() -> tuple[Tournament, ...]:
    return tuple(
        play(seed=1000 + i, players=size, rounds=3 + i % 9) for i, size in enumerate(FIELDS)
    )
