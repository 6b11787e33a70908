"""The Schnapsen rules engine: pure, standard library only.

Start here::

    from service.engine import new_game, take_seat, start_deal, legal_actions, apply

The state is rebuilt from facts (``events``), changed only by ``apply``, and
shown to a viewer only through ``observation.observe`` (docs/rules.md, R11).
The search core's modules (and the bots') may run compiled (``native``): first
of all, a compiled group older than its source is set aside for the source.
"""

from .native import use_sources_when_stale

use_sources_when_stale()

from .actions import Action, ActionType
from .cards import DECK, Card, Rank, Suit
from .decide import Decision, decide, record
from .errors import EngineError, ErrorCode, IllegalActionError, InvalidDeckError, InvalidEventError
from .events import (
    EVENT_SCHEMA,
    Aborted,
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    GameEnded,
    Resigned,
    SeatTaken,
    TimeoutClaimed,
    apply_event,
    event_from_dict,
    event_to_dict,
    replay,
)
from .game import apply, legal_actions, new_game, start_deal, take_seat
from .observation import observe, observe_event
from .state import (
    DealEndReason,
    Dealing,
    DealResult,
    DealState,
    GameEnd,
    GameEndReason,
    GameState,
    GameStatus,
    Marriage,
    Trick,
    Variant,
)

__all__ = [
    "DECK",
    "EVENT_SCHEMA",
    "Action",
    "Aborted",
    "ActionTaken",
    "ClockMoved",
    "ActionType",
    "Card",
    "DealEndReason",
    "Dealing",
    "DealResult",
    "DealStarted",
    "Decision",
    "DealState",
    "EngineError",
    "ErrorCode",
    "Event",
    "GameCreated",
    "GameEnd",
    "GameEndReason",
    "GameStatus",
    "GameEnded",
    "GameState",
    "IllegalActionError",
    "InvalidDeckError",
    "InvalidEventError",
    "Marriage",
    "Rank",
    "Resigned",
    "SeatTaken",
    "Suit",
    "TimeoutClaimed",
    "Trick",
    "Variant",
    "apply",
    "apply_event",
    "decide",
    "record",
    "event_from_dict",
    "event_to_dict",
    "legal_actions",
    "new_game",
    "observe",
    "observe_event",
    "replay",
    "start_deal",
    "take_seat",
]
