"""The frames of a replay: what one viewer sees at each step of a game.

A replay page (and any other client) renders these frames instead of folding
the rules itself: the engine knows how cards are dealt and drawn, what an
exchange moves and how game points count down, so the frames carry the
result of all that. Every frame is cut to what the viewer may see (R11):
their own hand, or every hand once the game is over (R11d, the decks are
then revealed); drawn cards only when the viewer may see them.

Frames, in order: each deal's start (``deal``), each trick as it completes,
before the draw (``trick``), each deal's end (``result``), where a running
game stands (``now``), and the end of the game (``game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import ActionType
from .cards import format_cards
from .events import ActionTaken, DealStarted, Event, apply_event
from .observation import Viewer, result_to_dict, trick_to_dict
from .state import DealState, GameState


def replay_frames(
    events: Sequence[Event], viewer: Viewer, latest: GameState
) -> list[dict[str, Any]]:
    """The frames of ``events`` for ``viewer``; ``latest`` is the state after them (R11d)."""
    complete = latest.winner is not None
    frames: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    before: GameState | None = None
    for event in events:
        after = apply_event(before, event)
        if isinstance(event, DealStarted):
            notes = []
            frames.append(_frame("deal", after, after.deal, viewer, complete, after))
        elif isinstance(event, ActionTaken) and before is not None:
            _after_action(event, before, after, viewer, complete, frames, notes)
            if after.deal is not None and after.deal.result is not None:
                notes = []
        before = after
    if before is not None and before.deal is not None and frames:
        deal = before.deal
        if deal.result is None and (deal.lead_card is not None or notes):
            frames.append(_frame("now", before, deal, viewer, complete, before, notes=notes))
    if complete and frames:
        frames.append({**frames[-1], "kind": "game", "notes": [], "draws": [],
                       "game_points": list(latest.game_points),
                       "results": [result_to_dict(r) for r in latest.results]})  # fmt: skip
    return frames


def _after_action(
    event: ActionTaken,
    before: GameState,
    after: GameState,
    viewer: Viewer,
    complete: bool,
    frames: list[dict[str, Any]],
    notes: list[dict[str, Any]],
) -> None:
    old, new = before.deal, after.deal
    assert old is not None and new is not None
    if len(new.tricks) > len(old.tricks):
        frames.append(_trick_frame(before, after, viewer, complete, list(notes)))
        notes.clear()
    elif event.action.type is not ActionType.PLAY:  # a led card is the frame's ``lead``
        note: dict[str, Any] = {"seat": event.seat, "action": event.action.to_dict()}
        if new.exchanged_by is not None and old.exchanged_by is None:
            note["took"] = new.exchanged_card.value  # R11a: public
        if len(new.marriages) > len(old.marriages):
            note["marriage_points"] = new.marriages[-1].points  # R6c, R6e
        notes.append(note)
    if new.result is not None and old.result is None:
        frames.append(
            _frame("result", after, new, viewer, complete, after, notes=list(notes))
            | {"result": result_to_dict(new.result)}
        )
        notes.clear()


def _trick_frame(
    before: GameState, after: GameState, viewer: Viewer, complete: bool, notes: list
) -> dict[str, Any]:
    """A completed trick, the hands before the draw, and the draw as the viewer sees it."""
    old, new = before.deal, after.deal
    assert old is not None and new is not None
    trick = new.tricks[-1]
    drawn = [[card for card in new.hands[seat] if card not in old.hands[seat]] for seat in (0, 1)]
    hands = tuple(
        tuple(card for card in new.hands[seat] if card not in drawn[seat]) for seat in (0, 1)
    )
    draws = []
    for seat in (trick.winner, 1 - trick.winner):
        for card in drawn[seat]:
            public = (
                complete or seat == viewer or (new.turn_up_drawn_by == seat and card is new.turn_up)
            )
            draws.append({"seat": seat, "card": card.value if public else None})
    # The stock as it lay before the draw, the tricks and marriages as they are after.
    shown = old._replace(hands=hands, tricks=new.tricks, closed_by=new.closed_by, lead_card=None)
    frame = _frame("trick", after, shown, viewer, complete, before, notes=notes)
    frame["trick"] = {**trick_to_dict(trick), "number": len(new.tricks)}
    frame["draws"] = draws
    return frame


def _frame(
    kind: str,
    state: GameState,
    deal: DealState | None,
    viewer: Viewer,
    complete: bool,
    scored: GameState,
    *,
    notes: list | None = None,
) -> dict[str, Any]:
    """One frame of ``deal``; ``scored`` gives the game points and results shown."""
    assert deal is not None
    lead = None if deal.lead_card is None else {"seat": deal.leader, "card": deal.lead_card.value}
    return {
        "kind": kind,
        "deal": deal.number,
        "dealer": deal.dealer,
        "hands": [
            format_cards(deal.hands[seat]) if complete or seat == viewer else None
            for seat in (0, 1)
        ],
        "counts": [len(deal.hands[0]), len(deal.hands[1])],
        "trump_card": None if deal.trump_card is None else deal.trump_card.value,
        "trump_suit": deal.trump.value,
        "talon_size": len(deal.talon),
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
