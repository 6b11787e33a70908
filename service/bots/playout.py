"""Uniformly random play of whole deals, fast: the benchmark of ``fast.py``.

``random_playout`` is ``FastDeal.legal_actions`` and ``FastDeal.apply`` fused
into one loop over local variables (no method calls, no lists per step). It
chooses exactly what step-by-step play with the same random numbers chooses;
the tests check that, so its speed is the speed of the full rules.
"""

from __future__ import annotations

from collections.abc import Callable

from service.bots.fast import (
    ACCEPT,
    CLAIM,
    CLOSE,
    CLOSER_RAN_OUT,
    EXCHANGE,
    HIGHER,
    JACK,
    KINGS_MASK,
    LAST_TRICK,
    MARRIAGE,
    PAIR_MASK,
    POINTS,
    SUIT,
    SUIT_MASK,
    FastDeal,
    FastResult,
)
from service.engine.points import WINNING_POINTS, marriage_points, penalty


def shuffled_deck(random: Callable[[], float]) -> list[int]:
    """A uniformly shuffled deck of card indices (Fisher-Yates on ``random()``)."""
    deck = list(range(20))
    for i in range(19, 0, -1):
        j = int(random() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def random_playout(deal: FastDeal, random: Callable[[], float]) -> tuple[FastResult, int]:
    """Play ``deal`` to its end by uniformly random legal actions; (result, actions taken).

    One fused loop over local variables, for speed. It chooses exactly as
    ``apply(legal_actions()[int(random() * len(legal))])`` step by step would
    (the tests check that). It uses ``deal`` up: the deal's fields are left
    half-updated, so pass a copy to keep it; read the returned result.
    """
    head = deal.head
    trump = deal.trump
    trump_mask = SUIT_MASK[trump]
    trump_jack = 1 << (5 * trump + JACK)
    hands = deal.hands
    talon = deal.talon
    talon_pos = deal.talon_pos
    talon_len = len(talon)
    turn_up = deal.turn_up
    drawn_by = deal.drawn_by
    leader = deal.leader
    lead = deal.lead
    points = deal.trick_points[:]
    tricks = deal.tricks_won[:]
    marriage = deal.marriage_points[:]
    declared = deal.declared
    closed_by = deal.closed_by
    at_close = deal.at_close
    any_trick = bool(deal.tricks)
    last_winner = deal.tricks[-1][3] if deal.tricks else -1
    if deal.result is not None:
        return deal.result, 0
    steps = 0
    pair = PAIR_MASK
    kings = KINGS_MASK
    while True:
        steps += 1
        if lead < 0:
            seat = leader
            hand = hands[seat]
            if declared >= 0:
                options = hand & pair[declared]
                n = options.bit_count() + head
                pick = int(random() * n)
                if pick == n - 1 and head:
                    action = CLAIM
                else:
                    for _ in range(pick):
                        options &= options - 1
                    action = (options & -options).bit_length() - 1
            elif not hand:
                action = CLAIM if random() < 0.5 else ACCEPT
            else:
                n_cards = hand.bit_count()
                if closed_by < 0 and drawn_by < 0:
                    jack = 1 if hand & trump_jack else 0
                    n_open = 1 + jack  # exchange (with the trump jack), close
                else:
                    jack = n_open = 0
                married = hand & (hand >> 1) & kings  # a King whose Queen is held too
                n_married = married.bit_count() if married else 0
                claim = 1 if head and any_trick else 0
                pick = int(random() * (n_cards + n_open + n_married + claim))
                if pick < n_cards:
                    options = hand
                    for _ in range(pick):
                        options &= options - 1
                    action = (options & -options).bit_length() - 1
                else:
                    pick -= n_cards
                    if pick < n_open:
                        action = EXCHANGE if jack and pick == 0 else CLOSE
                    elif pick - n_open < n_married:
                        for _ in range(pick - n_open):
                            married &= married - 1
                        action = MARRIAGE + SUIT[(married & -married).bit_length() - 1]
                    else:
                        action = CLAIM
            # -- apply a leader's action
            if action < 20:
                hands[seat] = hand & ~(1 << action)
                lead = action
                declared = -1
                continue
            if action in (CLAIM, ACCEPT):
                deal.trick_points, deal.tricks_won, deal.marriage_points = points, tricks, marriage
                deal.closed_by, deal.at_close = closed_by, at_close
                if action == ACCEPT:
                    if closed_by >= 0:
                        return (1 - closed_by, penalty(at_close[1]), CLOSER_RAN_OUT, -1), steps
                    return (last_winner, 1, LAST_TRICK, -1), steps
                return deal.claim_result(seat), steps
            if action == EXCHANGE:
                hands[seat] = hand & ~trump_jack | (1 << turn_up)
                turn_up = 5 * trump + JACK
                continue
            if action == CLOSE:
                opponent = 1 - seat
                closed_by = seat
                opp_points = points[opponent] + (marriage[opponent] if tricks[opponent] else 0)
                at_close = (opp_points, tricks[opponent])
                continue
            suit = action - MARRIAGE
            marriage[seat] += marriage_points(suit == trump)
            declared = suit
            if not head and tricks[seat] and points[seat] + marriage[seat] >= WINNING_POINTS:
                deal.trick_points, deal.tricks_won, deal.marriage_points = points, tricks, marriage
                deal.closed_by, deal.at_close = closed_by, at_close
                return deal.claim_result(seat), steps
            continue
        # -- the follower
        follower = 1 - leader
        hand = hands[follower]
        lead_suit = SUIT[lead]
        if closed_by < 0 and drawn_by < 0:
            options = hand
        else:
            same = hand & SUIT_MASK[lead_suit]
            options = ((same & HIGHER[lead]) or same) if same else ((hand & trump_mask) or hand)
        pick = int(random() * options.bit_count())
        for _ in range(pick):
            options &= options - 1
        card = (options & -options).bit_length() - 1
        hands[follower] = hand & ~(1 << card)
        if SUIT[card] == lead_suit:
            winner = follower if card < lead else leader
        else:
            winner = follower if SUIT[card] == trump else leader
        points[winner] += POINTS[lead] + POINTS[card]
        tricks[winner] += 1
        any_trick = True
        last_winner = winner
        leader = winner
        lead = -1
        if closed_by < 0 and drawn_by < 0:
            loser = 1 - winner
            hands[winner] |= 1 << talon[talon_pos]
            if talon_pos + 1 < talon_len:
                hands[loser] |= 1 << talon[talon_pos + 1]
                talon_pos += 2
            else:
                hands[loser] |= 1 << turn_up
                talon_pos += 1
                drawn_by = loser
        if not head:
            if points[winner] + marriage[winner] >= WINNING_POINTS:
                deal.trick_points, deal.tricks_won, deal.marriage_points = points, tricks, marriage
                deal.closed_by, deal.at_close = closed_by, at_close
                return deal.claim_result(winner), steps
            if not hands[0] and not hands[1]:
                if closed_by >= 0:
                    return (1 - closed_by, penalty(at_close[1]), CLOSER_RAN_OUT, -1), steps
                return (winner, 1, LAST_TRICK, -1), steps
