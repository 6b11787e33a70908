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
) -> Pairing:
    """The board of ``better`` (the higher placed) and ``other``: the lower balance deals;
    on equal balances, whoever did not deal last time; then the better placed deals
    (as white goes to the higher player in a chess Swiss)."""

    def wish(player: str) -> tuple[int, int]:
        return (balance.get(player, 0), 1 if dealt_last.get(player, False) else 0)

    if wish(other) < wish(better):
        return Pairing(dealer=other, forehand=better)
    return Pairing(dealer=better, forehand=other)


def clash(a: str, b: str, balance: Mapping[str, int]) -> int:
    """How much a board of ``a`` and ``b`` would strain the balance: 0 when their wishes
    differ or either is even, else how far the one who must give in goes past one."""
    ba, bb = balance.get(a, 0), balance.get(b, 0)
    if ba * bb <= 0:
        return 0
    return min(abs(ba), abs(bb))
