"""The events of a game's log as openapi.yaml documents them: one schema per ``type``.

Why: an event carries different fields per type (a deal's hand, an action's
trick, a resignation's winner). Documented as one object with every field
optional, a generated client gave 23 optional attributes and no way to tell
which belong together. Here each type is its own schema with the fields it
always carries required, and ``Event`` is their union keyed on ``type``
(``service.web.spec`` builds the union). ``StreamEvent`` is the same union
for the SSE stream, each member with the optional ``view`` of the burst's
last event.

These schemas only document: the answers are built by the engine
(``service.engine.observation.observe_event``) and dumped as they are.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.components import ChoiceField, LevelField
from schemas.games import (
    ActionOutSchema,
    CardAtSeatSchema,
    DealResultSchema,
    TrickSchema,
    _card,
    _dealing,
    _doc,
    _seat,
    answer,
)


def _type(name: str) -> fields.String:
    return fields.String(validate=validate.OneOf([name]))


def _to_move() -> fields.Integer:
    return _seat(allow_none=True, metadata=_doc("The seat to move after this event"))


@answer()
class GameCreatedEventSchema(Schema):
    """The game was created (always version 1)."""

    version = fields.Integer()
    type = _type("game_created")
    variant = ChoiceField("Variant")
    first_dealer = _seat()
    dealing = _dealing()
    to_move = _to_move()


@answer("level")
class SeatTakenEventSchema(Schema):
    """A player took a seat: the creator, the joining human, or the bot."""

    version = fields.Integer()
    type = _type("seat_taken")
    seat = _seat()
    player = fields.String(validate=validate.OneOf(["human", "bot"]))
    level = LevelField(metadata=_doc("A bot's level"))
    to_move = _to_move()


@answer("commitment", "deck", "nonce")
class DealStartedEventSchema(Schema):
    """A deal was dealt: the trump card, and the caller's own hand (R11)."""

    version = fields.Integer()
    type = _type("deal_started")
    number = fields.Integer()
    dealer = _seat()
    trump_card = _card(metadata=_doc("The card turned up"))
    hand = fields.List(_card(), metadata=_doc("The caller's own hand; [] for spectators"))
    commitment = fields.String(
        metadata=_doc("SHA-256 of nonce || deck, published when the deal starts")
    )
    deck = fields.List(_card(), metadata=_doc("The whole deck, only once the game is over"))
    nonce = fields.String(metadata=_doc("The commitment's nonce, once the game is over"))
    to_move = _to_move()


@answer("marriage_points", "took", "trick", "turn_up_drawn", "drew", "deal_result", "game_winner")
class ActionTakenEventSchema(Schema):
    """A seat took an action, with the public facts it caused."""

    version = fields.Integer()
    type = _type("action_taken")
    seat = _seat()
    action = fields.Nested(ActionOutSchema)
    marriage_points = fields.Integer(metadata=_doc("declare_marriage: what it is worth (R6c)"))
    took = _card(metadata=_doc("exchange_trump_jack: the trump card the exchanger took"))
    trick = fields.Nested(TrickSchema, metadata=_doc("The trick this action completed"))
    turn_up_drawn = fields.Nested(
        CardAtSeatSchema, metadata=_doc("The turned-up card, when this trick's draw took it")
    )
    drew = fields.List(_card(), metadata=_doc("The caller's own drawn card (a seat only)"))
    deal_result = fields.Nested(DealResultSchema, metadata=_doc("The deal this action ended"))
    game_winner = _seat(metadata=_doc("The game this action ended: its winner"))
    to_move = _to_move()


@answer("marriage_points", "took", "trick", "turn_up_drawn", "drew", "deal_result", "game_winner")
class ClockMovedEventSchema(ActionTakenEventSchema):
    """A seat's clock ran out and a bot played its action: counted as the seat's action."""

    type = _type("clock_moved")
    level = LevelField(metadata=_doc("The level of the bot that played on time"))


def _ending(name: str, what: str) -> type[Schema]:
    """The schema of an event by which a seat ended the game (RX1-RX3)."""
    body = {
        "__doc__": what,
        "version": fields.Integer(),
        "type": _type(name),
        "seat": _seat(metadata=_doc("The seat that ended the game")),
        "game_winner": _seat(allow_none=True, metadata=_doc("null: nobody won (aborted)")),
        "to_move": _to_move(),
    }
    if name == "timeout_claimed":
        body["waited_ms"] = fields.Integer(metadata=_doc("How long the turn had waited"))
    title = "".join(part.capitalize() for part in name.split("_"))
    return answer()(type(f"{title}EventSchema", (Schema,), body))


ResignedEventSchema = _ending("resigned", "A seat resigned; its opponent won (RX1).")
AbortedEventSchema = _ending("aborted", "A seat called the game off before its first action (RX2).")
TimeoutClaimedEventSchema = _ending(
    "timeout_claimed", "A seat claimed the game after the opponent's turn timed out (RX3)."
)

#: Per event type, its schema: the members of the union ``Event``.
EVENT_TYPES: dict[str, type[Schema]] = {
    "game_created": GameCreatedEventSchema,
    "seat_taken": SeatTakenEventSchema,
    "deal_started": DealStartedEventSchema,
    "action_taken": ActionTakenEventSchema,
    "clock_moved": ClockMovedEventSchema,
    "resigned": ResignedEventSchema,
    "aborted": AbortedEventSchema,
    "timeout_claimed": TimeoutClaimedEventSchema,
}


def _streamed(name: str, event: type[Schema]) -> type[Schema]:
    view = fields.Nested(
        "GameViewSchema", metadata=_doc("With include=view, on the last event of a burst")
    )
    streamed = type(f"Stream{name}", (event,), {"__doc__": event.__doc__, "view": view})
    streamed.openapi_required = event.openapi_required  # type: ignore[attr-defined]
    return streamed


#: Per event type, the component name of its Event member and of its StreamEvent member.
EVENT_COMPONENTS: dict[str, tuple[str, str]] = {
    kind: (
        schema.__name__.removesuffix("Schema"),
        f"Stream{schema.__name__.removesuffix('Schema')}",
    )
    for kind, schema in EVENT_TYPES.items()
}
STREAM_EVENT_TYPES: dict[str, type[Schema]] = {
    kind: _streamed(EVENT_COMPONENTS[kind][1], schema) for kind, schema in EVENT_TYPES.items()
}
