"""Replay exports: a game's record as the requester may see it, in three formats.

- ``json``: one document: metadata, every visible event, the deals and the final view;
- ``ndjson``: a header line, one line per event, a closing summary line;
- ``text``: for people: one line per trick, one per other action, one per deal result.

Pure functions over the engine; the worker stores what they build. An
export of a finished game holds every deck (R11d), so ``events_from_export``
can rebuild the log from it and ``verify`` replays it: the results must be
the ones the export states.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from service.engine import fairness
from service.engine.actions import Action
from service.engine.cards import Card, parse_cards
from service.engine.events import (
    Aborted,
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    replay,
)
from service.engine.observation import Viewer, result_to_dict
from service.engine.replays import replay_record
from service.engine.state import Dealing, Variant
from service.engine.vocabulary import ACTION_EVENTS, action_phrase, numbered_tricks, trick_cards

FORMAT = "schnapsen-replay"
SCHEMA = 1
CONTENT_TYPES = {
    "json": "application/json",
    "ndjson": "application/x-ndjson",
    "text": "text/plain; charset=utf-8",
}
EXTENSIONS = {"json": "json", "ndjson": "ndjson", "text": "txt"}


def build(events: Sequence[Event], game_id: str, viewer: Viewer, export_format: str) -> bytes:
    """The export of a game's log for ``viewer`` in ``export_format``."""
    record = replay_record(events, viewer)
    header = {
        "format": FORMAT,
        "schema": SCHEMA,
        "game_id": game_id,
        "viewer": viewer,
        "version": record["version"],
        "complete": record["complete"],
    }
    if export_format == "json":
        document = {**header, "events": record["events"], "deals": record["deals"]}
        document["state"] = record["state"]
        return (json.dumps(document, indent=2) + "\n").encode()
    if export_format == "ndjson":
        lines = [header, *record["events"], {"type": "summary", "deals": record["deals"],
                                              "game_points": record["state"]["game_points"],
                                              "winner": record["state"]["winner"]}]  # fmt: skip
        return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines).encode()
    if export_format == "text":
        return ("\n".join(text_lines(game_id, record)) + "\n").encode()
    raise ValueError(f"unknown export format {export_format!r} (json, ndjson, text)")


def _seat(seat: int) -> str:
    return f"seat {seat}"


def text_lines(game_id: str, record: dict[str, Any]) -> Iterable[str]:
    """The human-readable replay: one line per trick and per other action."""
    state = record["state"]
    yield f"Schnapsen game {game_id} ({state['variant']} counting), version {record['version']}"
    for event, trick_number in numbered_tricks(record["events"]):
        kind = event["type"]
        if kind == "game_created":
            yield f"First dealer: seat {event['first_dealer']}; decks: {event['dealing']}"
        elif kind == "seat_taken":
            who = f"bot ({event['level']})" if event.get("player") == "bot" else "a person"
            yield f"Seat {event['seat']}: {who}"
        elif kind == "deal_started":
            yield ""
            yield (f"Deal {event['number']}: seat {event['dealer']} deals, "
                   f"trump card {event['trump_card']}")  # fmt: skip
            if event.get("deck"):
                yield f"  deck: {' '.join(event['deck'])}"
        elif kind in ACTION_EVENTS:
            if kind == ClockMoved.type:
                yield f"  seat {event['seat']}'s time ran out: a {event['level']} bot moves for it"
            line = _action_line(event)
            if trick_number:
                trick = event["trick"]
                cards = trick_cards(trick, _seat)
                line = f"  trick {trick_number}: {cards} -> seat {trick['winner']}"
            if line:
                yield line
            if "deal_result" in event:
                result = event["deal_result"]
                yield (f"  seat {result['winner']} wins {result['game_points']} game "
                       f"point{'s' if result['game_points'] > 1 else ''} ({result['reason']}); "
                       f"card points {result['card_points'][0]}:{result['card_points'][1]}")  # fmt: skip
        elif kind in _ENDING_LINES:
            yield ""
            yield _ENDING_LINES[kind].format(seat=event["seat"])
    yield ""
    points = state["game_points"]
    if state["winner"] is None and state["status"] == "finished":
        yield f"Game aborted: nobody wins ({points[0]}:{points[1]} game points left)"
    elif state["winner"] is not None:
        yield f"Game over: seat {state['winner']} wins ({points[0]}:{points[1]} game points left)"
    else:
        yield f"Game running: {points[0]}:{points[1]} game points left"


_ENDING_LINES = {
    Resigned.type: "Seat {seat} resigns",
    Aborted.type: "Seat {seat} aborts the game",
    TimeoutClaimed.type: "Seat {seat} claims the game: the opponent's turn timed out",
}


def _action_line(event: dict[str, Any]) -> str | None:
    action, seat = event["action"], event["seat"]
    kind = action["type"]
    if kind == "play":
        return None  # a lead is told with its trick, on the trick's line
    line = f"  seat {seat} {action_phrase(action)}"
    if kind == "exchange_trump_jack":
        line += f", takes {event.get('took')}"
    return line


def parse(data: bytes, export_format: str) -> dict[str, Any]:
    """A json or ndjson export back as one document (header, events, deals)."""
    if export_format == "json":
        return json.loads(data)
    if export_format == "ndjson":
        lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        header, *events, summary = lines
        return {**header, "events": events, "deals": summary["deals"]}
    raise ValueError("only json and ndjson exports can be parsed back")


def events_from_export(document: dict[str, Any]) -> list[Event]:
    """The game's log rebuilt from an export that shows every deck (a finished game)."""
    events: list[Event] = []
    for item in document["events"]:
        kind = item["type"]
        if kind == GameCreated.type:
            dealing = Dealing(item.get("dealing", Dealing.RANDOM.value))
            events.append(GameCreated(Variant(item["variant"]), item["first_dealer"], dealing))
        elif kind == SeatTaken.type:
            events.append(SeatTaken(item["seat"], item.get("player", "human"), item.get("level")))
        elif kind == DealStarted.type:
            if not item.get("deck"):
                raise ValueError(f"deal {item['number']} shows no deck: the export is redacted")
            deck: tuple[Card, ...] = parse_cards(item["deck"])
            events.append(DealStarted(item["number"], item["dealer"], deck, item.get("nonce")))
        elif kind == ActionTaken.type:
            events.append(ActionTaken(item["seat"], Action.from_dict(item["action"])))
        elif kind == ClockMoved.type:
            action = Action.from_dict(item["action"])
            events.append(ClockMoved(item["seat"], action, item["level"]))
        elif kind == Resigned.type:
            events.append(Resigned(item["seat"]))
        elif kind == Aborted.type:
            events.append(Aborted(item["seat"]))
        elif kind == TimeoutClaimed.type:
            events.append(TimeoutClaimed(item["seat"], item["waited_ms"]))
        else:
            raise ValueError(f"unknown event type {kind!r}")
    return events


def verify(document: dict[str, Any]) -> bool:
    """Replaying the export's events gives exactly the deal results it states, and
    every deal's revealed deck matches the commitment published when it was dealt."""
    events = events_from_export(document)
    state = replay(events)
    replayed = [result_to_dict(result) for result in state.results]
    stated = [deal["result"] for deal in document["deals"] if deal["result"] is not None]
    published = {item["number"]: item.get("commitment") for item in document["events"]
                 if item["type"] == DealStarted.type}  # fmt: skip
    fair = all(
        event.nonce is not None
        and fairness.verify(published[event.number], event.nonce, event.deck)
        for event in events
        if isinstance(event, DealStarted)
    )
    return replayed == stated and fair
