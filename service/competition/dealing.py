"""Who deals first: the Swiss's colour balance, for a card game.

Dealing first is Schnapsen's white/black: the dealer's opponent (forehand) leads the
first trick. A player's balance is the games they dealt first minus the games they
led first; a board gives the first deal to the player whose balance is lower, so each
player's balance stays within one while their opponents allow it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from service.competition.records import Pairing, Result


def dealer_balance(results: Iterable[Result]) -> dict[str, int]:
    """Games dealt first minus games led first, per player who played."""
    balance: dict[str, int] = defaultdict(int)
    for result in results:
        balance[result.dealer] += 1
        balance[result.forehand] -= 1
    return dict(balance)


def last_dealt(results: Iterable[Result]) -> dict[str, bool]:
    """Whether each player dealt first in their latest game (by round)."""
    latest: dict[str, tuple[int, bool]] = {}
    for result in results:
        for player, dealt in ((result.dealer, True), (result.forehand, False)):
            if player not in latest or latest[player][0] <= result.round:
                latest[player] = (result.round, dealt)
    return {player: dealt for player, (_, dealt) in latest.items()}


def first_dealer(
    better: str,
    other: str,
    balance: Mapping[str, int],
    dealt_last: Mapping[str, bool],
    better_deals: bool = True,
) -> Pairing:
    """The board of ``better`` (the higher placed) and ``other``: the lower balance deals;
    on equal balances, whoever did not deal last time; then ``better_deals`` decides.
    A Swiss alternates it down the boards (as a chess Swiss alternates white on the top
    boards of round one): were the better placed always to deal, they would win more
    often than not, and a winners' group would all lean to leading next round."""

    def wish(player: str) -> tuple[int, int]:
        return (balance.get(player, 0), 1 if dealt_last.get(player, False) else 0)

    if wish(other) < wish(better) or (wish(other) == wish(better) and not better_deals):
        return Pairing(dealer=other, forehand=better)
    return Pairing(dealer=better, forehand=other)


def clash(a: str, b: str, balance: Mapping[str, int]) -> int:
    """How much a board of ``a`` and ``b`` would strain the balance: 0 when their wishes
    differ or either is even; else ``16 ** (k - 1)`` when the player who must give in
    goes from a lean of ``k`` to ``k + 1`` (1 to reach two, 16 to reach three, ...), so
    a matching takes many boards that push a player to two before one that pushes a
    player to three."""
    ba, bb = balance.get(a, 0), balance.get(b, 0)
    if ba * bb <= 0:
        return 0
    return 1 << 4 * (min(abs(ba), abs(bb)) - 1)


def most_strain(players: Iterable[str], balance: Mapping[str, int]) -> int:
    """The most ``clash`` any board of ``players`` can give (a bound for weights)."""
    return 1 << 4 * max((abs(balance.get(p, 0)) for p in players), default=0)
