"""Replays: a game's events folded into what a viewer may see, at any version.

Version ``v`` is the state after the first ``v`` events of the log (the log
numbers its events 1, 2, 3...). Every function here is pure and renders what
the viewer may see from the observer's result (``observer.observe``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .events import Event, apply_event, replay
from .frames import replay_frames
from .observation import render_event, render_view, result_to_dict
from .observer import Viewer, deck_revealed
from .observer import observe as see
from .state import GameState


def state_at(events: Sequence[Event], version: int) -> GameState:
    """The state after the first ``version`` events (1 <= version <= len(events))."""
    if not 1 <= version <= len(events):
        raise ValueError(f"version {version} is outside 1..{len(events)}")
    return replay(events[:version])


def visible_events(
    events: Sequence[Event],
    viewer: Viewer,
    *,
    after: int = 0,
    latest: GameState | None = None,
    start: GameState | None = None,
) -> Iterator[dict[str, Any]]:
    """The events after version ``after``, each as ``viewer`` may see it, with its ``version``.

    ``events`` is the whole log, or, when ``start`` is given, the events after
    version ``after`` that follow the snapshot ``start`` (the state at
    ``after``). ``latest`` is the state after the whole log; it decides which
    decks are revealed (R11d). Computed when not given.
    """
    if start is None:
        before: GameState | None = replay(events[:after]) if after else None
        tail = events[after:]
    else:
        before, tail = start, events
    if latest is None:
        latest = replay(tail, before) if tail else before
    assert latest is not None
    revealed = deck_revealed(latest)
    seen = None if before is None else see(before, viewer, revealed=revealed)
    for offset, event in enumerate(tail, start=1):
        before = apply_event(before, event)
        now = see(before, viewer, revealed=revealed)
        data = render_event(event, seen, now)
        yield {"version": after + offset, **data, "to_move": now.to_move}
        seen = now


def replay_record(
    events: Sequence[Event], viewer: Viewer, *, at: int | None = None
) -> dict[str, Any]:
    """A whole game (or its first ``at`` events) as ``viewer`` may see it.

    Holds every visible event, the view of the state at the end, and, per
    deal, its deck when R11d allows and its result. Once the game is over
    every deck is in it.
    """
    version = len(events) if at is None else at
    shown = events[:version]
    latest = replay(shown)
    final = see(latest, viewer)
    feed = list(visible_events(shown, viewer, latest=latest))
    deals = []
    for item in feed:
        if item["type"] == "deal_started":
            deals.append(
                {
                    "number": item["number"],
                    "dealer": item["dealer"],
                    "commitment": item.get("commitment"),
                    "nonce": item.get("nonce"),
                    "deck": item.get("deck"),
                }
            )
    for deal in deals:
        number = deal["number"]
        finished = number <= len(final.results)
        deal["result"] = result_to_dict(final.results[number - 1]) if finished else None
    return {
        "version": version,
        "dealing": final.dealing.value,
        "complete": final.over,
        "events": feed,
        "deals": deals,
        "steps": replay_frames(shown, viewer, latest),
        "state": render_view(final),
    }
