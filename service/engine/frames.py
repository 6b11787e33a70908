"""The frames of a replay: what one viewer sees at each step of a game.

A replay page (and any other client) renders these frames instead of folding
the rules itself: the engine knows how cards are dealt and drawn, what an
exchange moves and how game points count down, so the frames carry the
result of all that. Every frame is rendered from the viewer's observations
of the states around it (``observer.observe``), so it holds what the viewer
may see (R11): their own hand, or every hand once a seat won the game (R11d,
``observer.hands_revealed``); drawn cards only when the viewer may see them.

Frames, in order: each deal's start (``deal``), each trick as it completes,
before the draw (``trick``), each deal's end (``result``), where a running
game stands (``now``), and the end of the game (``game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import ActionType
from .cards import Card, format_cards
from .events import ActionTaken, DealStarted, Event, apply_event
from .observation import result_to_dict, trick_to_dict
from .observer import DealObservation, Observation, Viewer, hands_revealed, observe
from .state import GameState


def replay_frames(
    events: Sequence[Event], viewer: Viewer, latest: GameState
) -> list[dict[str, Any]]:
    """The frames of ``events`` for ``viewer``; ``latest`` is the state after them (R11d)."""
    revealed = hands_revealed(latest)
    seen: list[Observation] = []
    state: GameState | None = None
    for event in events:
        state = apply_event(state, event)
        seen.append(observe(state, viewer, revealed=revealed))
    return render_frames(events, seen, observe(latest, viewer, revealed=revealed))


def render_frames(
    events: Sequence[Event], seen: Sequence[Observation], final: Observation
) -> list[dict[str, Any]]:
    """The frames of ``events`` from the viewer's observation after each (``seen``) and
    at the end (``final``); of the events only their kind, seat and action are read."""
    complete = final.revealed
    frames: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    before: Observation | None = None
    for event, now in zip(events, seen, strict=True):
        if isinstance(event, DealStarted):
            notes = []
            frames.append(_frame("deal", now, now, complete))
        elif isinstance(event, ActionTaken) and before is not None:
            _after_action(event, before, now, complete, frames, notes)
            if now.deal is not None and now.deal.result is not None:
                notes = []
        before = now
    if before is not None and before.deal is not None and frames:
        deal = before.deal
        if deal.result is None and (deal.lead_card is not None or notes):
            frames.append(_frame("now", before, before, complete, notes=notes))
    if complete and frames:
        frames.append({**frames[-1], "kind": "game", "notes": [], "draws": [],
                       "game_points": list(final.game_points),
                       "results": [result_to_dict(r) for r in final.results]})  # fmt: skip
    return frames


def _after_action(
    event: ActionTaken,
    before: Observation,
    after: Observation,
    complete: bool,
    frames: list[dict[str, Any]],
    notes: list[dict[str, Any]],
) -> None:
    old, new = before.deal, after.deal
    assert old is not None and new is not None
    if len(new.tricks) > len(old.tricks):
        frames.append(_trick_frame(before, after, complete, list(notes)))
        notes.clear()
    elif event.action.type is not ActionType.PLAY:  # a led card is the frame's ``lead``
        note: dict[str, Any] = {"seat": event.seat, "action": event.action.to_dict()}
        if new.exchanged_by is not None and old.exchanged_by is None:
            assert new.exchanged_card is not None
            note["took"] = new.exchanged_card.value  # R11a: public
        if len(new.marriages) > len(old.marriages):
            note["marriage_points"] = new.marriages[-1].points  # R6c, R6e
        notes.append(note)
    if new.result is not None and old.result is None:
        frames.append(
            _frame("result", after, after, complete, notes=list(notes))
            | {"result": result_to_dict(new.result)}
        )
        notes.clear()


def _trick_frame(
    before: Observation, after: Observation, complete: bool, notes: list
) -> dict[str, Any]:
    """A completed trick, the hands before the draw, and the draw as the viewer sees it."""
    old, new = before.deal, after.deal
    assert old is not None and new is not None
    trick = new.tricks[-1]
    follower = 1 - trick.leader
    hands: list[tuple[Card, ...] | None] = [None, None]
    sizes = [0, 0]
    draws = []
    for seat in (trick.winner, 1 - trick.winner):
        shown: list[str | None]
        held, hand = old.visible_hands[seat], new.visible_hands[seat]
        if held is not None and hand is not None:
            drawn = [card for card in hand if card not in held]
            hands[seat] = tuple(card for card in hand if card not in drawn)
            shown = [card.value for card in drawn]
        else:
            # A hidden hand: how many cards it drew follows from the sizes (the follower
            # played one), and only the trump card drawn last is public (R11b).
            count = new.hand_sizes[seat] - old.hand_sizes[seat] + (seat == follower)
            turn_up = new.turn_up_drawn_by == seat and old.turn_up_drawn_by is None
            shown = [new.turn_up.value if turn_up else None] * count
        sizes[seat] = new.hand_sizes[seat] - len(shown)
        draws += [{"seat": seat, "card": card} for card in shown]
    # The stock as it lay before the draw, the tricks and marriages as they are after.
    stock = old._replace(
        visible_hands=(hands[0], hands[1]),
        hand_sizes=(sizes[0], sizes[1]),
        tricks=new.tricks,
        closed_by=new.closed_by,
        lead_card=None,
    )
    frame = _frame("trick", after, before, complete, notes=notes, deal=stock)
    frame["trick"] = {**trick_to_dict(trick), "number": len(new.tricks)}
    frame["draws"] = draws
    return frame


def _frame(
    kind: str,
    seen: Observation,
    scored: Observation,
    complete: bool,
    *,
    notes: list | None = None,
    deal: DealObservation | None = None,
) -> dict[str, Any]:
    """One frame of the observed deal (or ``deal``); ``scored`` gives the game points and
    results shown."""
    if deal is None:
        deal = seen.deal
    assert deal is not None
    lead = None if deal.lead_card is None else {"seat": deal.leader, "card": deal.lead_card.value}
    return {
        "kind": kind,
        "deal": deal.number,
        "dealer": deal.dealer,
        "hands": [None if hand is None else format_cards(hand) for hand in deal.visible_hands],
        "counts": list(deal.hand_sizes),
        "trump_card": None if deal.trump_card is None else deal.trump_card.value,
        "trump_suit": deal.trump.value,
        "talon_size": deal.talon_size,
        "closed_by": deal.closed_by,
        "tricks_won": [deal.tricks_won(0), deal.tricks_won(1)],
        "tricks": [
            {**trick_to_dict(trick), "number": number}
            for number, trick in enumerate(deal.tricks, start=1)
        ],
        "marriages": [
            {"seat": m.seat, "suit": m.suit.value, "points": m.points} for m in deal.marriages
        ],
        "lead": lead,
        "notes": notes or [],
        "draws": [],
        "complete": complete,
        "game_points": list(scored.game_points),
        "results": [result_to_dict(r) for r in scored.results],
    }
