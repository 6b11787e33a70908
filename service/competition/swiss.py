"""A Swiss round's pairing, from the field and the history alone.

The rules, in the order they give way (docs/tournaments.md, "Swiss pairing"):

1. no two players meet twice while a pairing without a repeat exists;
2. no player gets a second bye while another player without one can take it (the bye
   goes to the lowest-placed such player, as far as rule 1 allows);
3. players meet their own score group; a player floats to a neighbouring group only
   when their group cannot pair them (an odd count, or all they could meet there met
   them already), and the fewest, and the shortest way, that rules 1 and 2 allow;
4. the first deal goes to the player whose dealer balance is lower
   (service/competition/dealing.py), and boards whose two players both lean the same
   way are avoided where the groups allow;
5. inside a score group the top half meets the bottom half, first against first
   (the Dutch system's order), so the leaders meet each other late.

How: a field of up to ``EXACT_LIMIT`` players is paired at once by a maximum-weight
matching whose weights rank the rules above (``exact_pairing``): the best pairing there
is. A larger field is paired score group by group from the top, each group with the
players floated from the group above; a group up to ``EXACT_LIMIT`` is matched exactly,
a larger one by the Dutch order with the nearest exchange that avoids a repeat (large
groups come early, when few have met). Whoever a group cannot pair floats down. Should
players be left over at the bottom, the bottom of the table is paired again exactly,
twice as much of it each time until it pairs without a repeat, up to the whole field,
and only then is a repeat allowed (the fewest). So a round of a thousand players costs
milliseconds, and no repeat is ever accepted that the whole field could avoid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from service.competition.dealing import (
    clash,
    dealer_balance,
    first_dealer,
    last_dealt,
    most_strain,
)
from service.competition.matching import best_matching
from service.competition.records import Bye, Entrant, Result, Round
from service.competition.standings import swiss_points

#: Up to how many players a field, a score group or a stretch of the table is matched
#: exactly (networkx: a tenth of a second for a complete graph of 48 here).
EXACT_LIMIT = 48
#: How far down a group's Dutch order an exchange is looked for before one that strains
#: the dealer balance is taken.
DEALER_REACH = 6
#: The stand-in for the bye in a matching: whoever is matched with it sits out.
BYE = "\x00bye"


class PairingError(ValueError):
    """The field cannot be paired as given (a player entered twice)."""


@dataclass(frozen=True)
class History:
    """What the pairing reads of the tournament so far."""

    points: Mapping[str, int]
    met: frozenset[frozenset[str]]
    had_bye: frozenset[str]
    balance: Mapping[str, int]
    dealt_last: Mapping[str, bool]

    @classmethod
    def of(cls, results: Iterable[Result], byes: Iterable[Bye]) -> History:
        results, byes = tuple(results), tuple(byes)
        return cls(
            points=swiss_points(results, byes),
            met=frozenset(result.players for result in results),
            had_bye=frozenset(bye.player for bye in byes),
            balance=dealer_balance(results),
            dealt_last=last_dealt(results),
        )

    def score(self, player: str) -> int:
        return self.points.get(player, 0)

    def have_met(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.met


def pair_round(
    number: int,
    entrants: Sequence[Entrant],
    results: Iterable[Result] = (),
    byes: Iterable[Bye] = (),
) -> Round:
    """Round ``number``'s boards for ``entrants`` (the players in the tournament now: late
    joins in, withdrawals out), given every earlier result and bye (withdrawn players'
    too: whom a player met stays met)."""
    players = [entrant.player for entrant in entrants]
    if len(set(players)) != len(players):
        raise PairingError("a player is entered twice")
    history = History.of(results, byes)
    rating = {entrant.player: entrant.rating for entrant in entrants}
    ranked = sorted(players, key=lambda p: (-history.score(p), -rating[p], p))
    if len(ranked) < 2:
        return Round(number, (), ranked[0] if ranked else None)
    if len(ranked) <= EXACT_LIMIT:
        pairs, bye = fewest_repeats(ranked, history)
    else:
        pairs, bye = group_pairing(ranked, history)
    return boards(number, ranked, pairs, bye, history)


def boards(
    number: int,
    ranked: Sequence[str],
    pairs: Iterable[tuple[str, str]],
    bye: str | None,
    history: History,
) -> Round:
    """The round's boards in table order, each with its first dealer (on even wishes the
    better placed deals on the first board, the other on the second, and so on)."""
    place = {player: i for i, player in enumerate(ranked)}
    ordered = sorted(
        (tuple(sorted(pair, key=place.__getitem__)) for pair in pairs),
        key=lambda pair: place[pair[0]],
    )
    return Round(
        number,
        tuple(
            first_dealer(a, b, history.balance, history.dealt_last, better_deals=i % 2 == 0)
            for i, (a, b) in enumerate(ordered)
        ),
        bye,
    )


# -- exact: a maximum-weight matching whose weights rank the rules ----------------------


def exact_pairing(
    ranked: Sequence[str], history: History, allow_repeats: bool, with_bye: bool | None = None
) -> tuple[list[tuple[str, str]], str | None] | None:
    """The best pairing of ``ranked`` (in table order) by the rules, or None if it cannot
    pair everyone without a repeat and ``allow_repeats`` is off. ``with_bye`` (default: an
    odd count) adds the bye's stand-in."""
    with_bye = len(ranked) % 2 == 1 if with_bye is None else with_bye
    nodes = list(ranked) + ([BYE] if with_bye else [])
    place = {player: i for i, player in enumerate(ranked)}
    count = len(nodes)
    lowest = min(history.score(p) for p in ranked)
    top = max(history.score(p) for p in ranked)
    # Units, each above everything the ones below it can add up to over a whole pairing.
    dutch_unit = 1
    dealer_unit = dutch_unit * (count * count + 1)
    score_unit = dealer_unit * (count * most_strain(ranked, history.balance) + 1)
    bye_unit = score_unit * (count * ((top - lowest + 1) ** 2 + 1) + 1) * 2
    repeat_unit = bye_unit * (count + 1)
    ceiling = repeat_unit * (count + 1)
    half = len(ranked) // 2

    def weight(a: str, b: str) -> int | None:
        if b == BYE:
            # The lowest score, then the lowest place, sits out; a second bye last.
            repeat = a in history.had_bye
            cost = score_unit * (history.score(a) - lowest + 1) ** 2 + dutch_unit * (
                count - place[a]
            )
            return ceiling - cost - (bye_unit if repeat else 0)
        met = history.have_met(a, b)
        if met and not allow_repeats:
            return None
        gap = history.score(a) - history.score(b)
        cost = (
            score_unit * gap * gap
            + dealer_unit * clash(a, b, history.balance)
            + dutch_unit * abs(abs(place[a] - place[b]) - half)
            + (repeat_unit if met else 0)
        )
        return ceiling - cost

    matched = best_matching(nodes, weight)
    if 2 * len(matched) != count:
        return None
    pairs = [(a, b) for a, b in matched if BYE not in (a, b)]
    bye = next((a if b == BYE else b for a, b in matched if BYE in (a, b)), None)
    return pairs, bye


def fewest_repeats(
    ranked: Sequence[str], history: History
) -> tuple[list[tuple[str, str]], str | None]:
    """The best pairing of the whole of ``ranked``: without a repeat if there is one, else
    with the fewest (a complete graph always pairs everyone)."""
    found = exact_pairing(ranked, history, allow_repeats=False)
    if found is None:
        found = exact_pairing(ranked, history, allow_repeats=True)
    assert found is not None
    return found


# -- large fields: score group by score group ----------------------------------------------


def group_pairing(
    ranked: Sequence[str], history: History
) -> tuple[list[tuple[str, str]], str | None]:
    """A large field's pairing: the bye first, then the groups from the top, then the
    bottom again exactly while anyone is left over."""
    bye = None
    if len(ranked) % 2:
        fresh = [p for p in ranked if p not in history.had_bye]
        bye = (fresh or list(ranked))[-1]
    playing = [p for p in ranked if p != bye]
    pairs: list[tuple[str, str]] = []
    carried: list[str] = []
    for group in score_groups(playing, history):
        got, carried = pair_group(carried + group, len(carried), history)
        pairs.extend(got)
    if not carried:
        return pairs, bye
    return widen(ranked, pairs, bye, history)


def score_groups(ranked: Sequence[str], history: History) -> list[list[str]]:
    groups: list[list[str]] = []
    for player in ranked:
        if groups and history.score(groups[-1][-1]) == history.score(player):
            groups[-1].append(player)
        else:
            groups.append([player])
    return groups


def pair_group(
    members: list[str], floaters: int, history: History
) -> tuple[list[tuple[str, str]], list[str]]:
    """One score group's pairs (its first ``floaters`` members came down from above) and
    who floats on down, in table order."""
    if len(members) <= EXACT_LIMIT:
        return exact_group(members, floaters, history)
    return dutch_group(members, history)


def exact_group(
    members: list[str], floaters: int, history: History
) -> tuple[list[tuple[str, str]], list[str]]:
    """A small group matched exactly: the most pairs; the floaters from above paired
    first; on an odd count the lowest placed floats; then dealer balance and Dutch order."""
    count = len(members)
    place = {player: i for i, player in enumerate(members)}
    half = count // 2
    dealer_unit = count * count + 1
    keep_unit = dealer_unit * (count * most_strain(members, history.balance) + 1)
    float_unit = keep_unit * (count * count + 1)

    def weight(a: str, b: str) -> int | None:
        if history.have_met(a, b):
            return None
        came_down = (place[a] < floaters) + (place[b] < floaters)
        gap = history.score(a) - history.score(b)
        return (
            float_unit * (came_down * 4 - gap * gap + 8)
            + keep_unit * (2 * count - place[a] - place[b])
            - dealer_unit * clash(a, b, history.balance)
            - abs(abs(place[a] - place[b]) - half)
        )

    pairs = best_matching(members, weight)
    paired = {p for pair in pairs for p in pair}
    return pairs, [p for p in members if p not in paired]


def dutch_group(members: list[str], history: History) -> tuple[list[tuple[str, str]], list[str]]:
    """A large group by the Dutch order: the i-th of the top half meets the i-th of the
    bottom half, or the nearest of the bottom half it has not met (one that keeps the
    dealer balance within ``DEALER_REACH`` of there, if any). Those left unpaired are
    paired among themselves the same way; who is left then floats."""
    pairs: list[tuple[str, str]] = []
    rest = members
    while len(rest) >= 2:
        half = len(rest) // 2
        top, bottom = rest[:half], rest[half:]
        free = list(bottom)
        left: list[str] = []
        for i, player in enumerate(top):
            partner = nearest(player, free, min(i, len(free) - 1), history)
            if partner is None:
                left.append(player)
            else:
                free.remove(partner)
                pairs.append((player, partner))
        unpaired = set(left) | set(free)
        following = [p for p in rest if p in unpaired]
        if len(following) == len(rest):
            break
        rest = following
    return pairs, rest


def nearest(player: str, free: list[str], start: int, history: History) -> str | None:
    """The first of ``free`` from ``start`` outwards that ``player`` has not met, among
    the nearest ``DEALER_REACH`` the one that strains the dealer balance least."""
    if not free:
        return None
    order = sorted(range(len(free)), key=lambda j: (abs(j - start), j))
    fits = [free[j] for j in order if not history.have_met(player, free[j])][:DEALER_REACH]
    if not fits:
        return None
    return min(fits, key=lambda candidate: clash(player, candidate, history.balance))


def widen(
    ranked: Sequence[str],
    pairs: list[tuple[str, str]],
    bye: str | None,
    history: History,
) -> tuple[list[tuple[str, str]], str | None]:
    """Pair the bottom of the table again exactly, twice as much of it each time, until
    it pairs without a repeat; the whole field with the fewest repeats if it never does."""
    size = 16
    while True:
        tail = set(ranked[-size:])
        kept = [pair for pair in pairs if not (set(pair) & tail)]
        again = [p for p in ranked if p in tail or (p != bye and not any(p in q for q in kept))]
        holds_bye = bye is not None and bye in again
        if len(again) == len(ranked):
            return fewest_repeats(ranked, history)
        found = exact_pairing(again, history, allow_repeats=False, with_bye=holds_bye)
        if found is not None:
            new_pairs, new_bye = found
            return kept + new_pairs, new_bye if holds_bye else bye
        size *= 2
