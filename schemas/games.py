"""Request and response bodies of the games API (marshmallow 4).

Names are the HTTP contract's, which openapi.yaml publishes (it is generated
from these schemas); fields are described here so the generated OpenAPI says
what they mean. The game's own words (cards, actions) are those of docs/rules.md.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from schemas.components import (
    ACTION_TYPES,
    CARD_CODES,
    MAX_VERSION,
    SUIT_CODES,
    CardField,
    ChoiceField,
    ComponentField,
    LevelField,
    SeatField,
    SuitField,
    TrueOrFalse,
    WholeNumber,
)
from schemas.paging import cursor_parameter, next_cursor_field
from service.engine.outcomes import DealEndReason
from service.game.clock import (
    DEFAULT_BOT_LEVEL,
    DEFAULT_BOT_MOVES_LIMIT,
    MAX_BOT_MOVES_LIMIT,
    MAX_SECONDS_PER_MOVE,
    MIN_BOT_MOVES_LIMIT,
    MIN_SECONDS_PER_MOVE,
    OnTimeout,
)
from service.ops.settings import DEFAULTS

__all__ = ["ACTION_TYPES", "CARD_CODES", "MAX_VERSION", "SUIT_CODES"]

S = TypeVar("S", bound=type[Schema])
DEAL_END_REASONS = [reason.value for reason in DealEndReason]


def _card(**kwargs: Any) -> CardField:
    return CardField(**kwargs)


def _seat(**kwargs: Any) -> SeatField:
    return SeatField(**kwargs)


def answer(*optional: str):
    """Document every field of a response schema as required but ``optional``.

    Why: openapi.yaml's ``required`` is what makes a generated client's field
    ``T`` rather than ``T | Unset``; an answer names its always-sent fields.
    Only the document changes (``service.web.spec`` reads ``openapi_required``):
    the fields are not made required for loading, so a schema that is also part
    of a request (a position's tricks) refuses what it refused before, as before.
    """

    def mark(cls: S) -> S:
        fields_ = cls._declared_fields
        cls.openapi_required = tuple(  # type: ignore[attr-defined]
            field.data_key or name for name, field in fields_.items() if name not in optional
        )
        return cls

    return mark


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _include() -> fields.String:
    return fields.String(
        validate=validate.OneOf(["view"]),
        metadata=_doc("'view': also send the caller's view at the newest version"),
    )


def _dealing(**kwargs) -> fields.String:
    return ChoiceField(
        "Dealing",
        metadata=_doc(
            "Who chose the decks: 'random' (the server shuffled every deal; nobody knows "
            "them), 'seeded' (every deal follows the creator's seed: the creator can know "
            "every card), 'fixed' (the creator gave the first deal's exact order; later "
            "deals follow its seed if it gave one, else chance)"
        ),
        **kwargs,
    )


# -- requests ---------------------------------------------------------------


class OpponentSchema(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(
        required=True,
        validate=validate.OneOf(["human", "bot"]),
        metadata=_doc("'human' joins with the invite; 'bot' takes seat 1 at once"),
    )
    level = LevelField(metadata=_doc("The bot's level, required for a bot"))
    #: What ``_bot_needs_level`` checks, in the document (``service.web.spec``).
    openapi_extra: ClassVar[dict[str, Any]] = {
        "if": {"properties": {"type": {"const": "bot"}, "level": {}}},
        "then": {"properties": {"type": {}, "level": {}}, "required": ["level"]},
        "else": {"properties": {"type": {}, "level": {"not": {}}}},
    }

    @validates_schema
    def _bot_needs_level(self, data, **kwargs):
        if data["type"] == "bot" and not data.get("level"):
            raise ValidationError("a bot opponent needs a 'level'", "level")
        if data["type"] == "human" and "level" in data:
            raise ValidationError("only a bot has a level", "level")


class ClockSchema(Schema):
    """A time control the server keeps (docs/api.md, Clocks)."""

    class Meta:
        unknown = RAISE

    seconds_per_move = WholeNumber(
        required=True,
        validate=validate.Range(min=MIN_SECONDS_PER_MOVE, max=MAX_SECONDS_PER_MOVE),
        metadata=_doc("A person's time for each move, from the turn's start"),
    )
    on_timeout = fields.String(
        load_default=OnTimeout.BOT.value,
        validate=validate.OneOf([choice.value for choice in OnTimeout]),
        metadata=_doc(
            "'bot': a bot of bot_level plays the move (a clock_moved event); "
            "'lose': the seat loses the game at once (timeout_claimed by the other seat)"
        ),
    )
    bot_level = LevelField(
        load_default=DEFAULT_BOT_LEVEL,
        metadata=_doc(
            "The level of the bot that plays on time; in a rated game always 'random' (RX5)"
        ),
    )
    bot_moves_limit = WholeNumber(
        load_default=DEFAULT_BOT_MOVES_LIMIT,
        validate=validate.Range(min=MIN_BOT_MOVES_LIMIT, max=MAX_BOT_MOVES_LIMIT),
        metadata=_doc(
            "Moves in a row a bot may play for one seat (in a rated game: moves in the "
            "whole game, RX5); its next timeout loses the game"
        ),
    )


class CreateGameSchema(Schema):
    class Meta:
        unknown = RAISE

    variant = ChoiceField(
        "Variant",
        load_default="head",
        metadata=_doc("'head': card points counted in the head, explicit claims (R7d); "
                      "'tracked': points visible, going out is automatic (R7e)"),
    )  # fmt: skip
    opponent = fields.Nested(OpponentSchema, load_default=lambda: {"type": "human"})
    seed = WholeNumber(
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata=_doc("Reproducible shuffles for practice games; also fixes the first dealer"),
    )
    deck = fields.List(
        _card(),
        validate=validate.Length(equal=20),
        metadata={
            "description": "The first deal's exact order: 0-4 non-dealer, 5-9 dealer, "
            "10 trump card, 11-19 talon",
            "uniqueItems": True,
        },
    )
    first_dealer = _seat(metadata=_doc("Seat of the first dealer; random unless given or seeded"))
    rated = TrueOrFalse(
        load_default=False,
        metadata=_doc("Its end changes the players' Glicko-2 ratings: created with a player's "
                      "token; against a person, a player of the same app joins; against a bot, "
                      "the bot stands at its level's fixed rating"),
    )  # fmt: skip
    clock = fields.Nested(
        ClockSchema, metadata=_doc("A time control for every person's move; none unless given")
    )

    @validates_schema
    def _deck_is_a_deck(self, data, **kwargs):
        deck = data.get("deck")
        if deck is not None and len(set(deck)) != len(deck):
            repeated = sorted({code for code in deck if deck.count(code) > 1})
            raise ValidationError(f"each card once; repeated: {', '.join(repeated)}", "deck")


class JoinSchema(Schema):
    class Meta:
        unknown = RAISE

    invite = fields.String(
        required=True, validate=validate.Length(min=1, max=200), metadata=_doc("From the creator")
    )


class ActionSchema(Schema):
    """One player action, as docs/rules.md names it ("Notation").

    Validated as one schema; documented as the union ``Action`` (one body per
    type, schemas.components), which the view's legal actions share.
    """

    openapi_ref = "Action"

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    card = _card(metadata=_doc("For 'play': the card, e.g. 'QH'"))
    suit = SuitField(metadata=_doc("For 'declare_marriage': C, D, H or S"))
    expected_version = WholeNumber(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata=_doc("Refuse (409) unless the game is at this version; or send If-Match"),
    )

    @validates_schema
    def _fields_fit_type(self, data, **kwargs):
        kind = data["type"]
        if kind == "play" and "card" not in data:
            raise ValidationError("a play needs a 'card'", "card")
        if kind == "declare_marriage" and "suit" not in data:
            raise ValidationError("a marriage needs a 'suit'", "suit")
        if kind != "play" and "card" in data:
            raise ValidationError(f"'{kind}' takes no card", "card")
        if kind != "declare_marriage" and "suit" in data:
            raise ValidationError(f"'{kind}' takes no suit", "suit")


class EventsQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata=_doc("Events after this version"),
    )
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=DEFAULTS["LONG_POLL_MAX_SECONDS"]),
        metadata=_doc(
            "Long-poll: wait up to this many seconds for a new event (the server's cap, "
            "SCHNAPSEN_LONG_POLL_MAX_SECONDS)"
        ),
    )
    include = _include()


class StreamQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    after = fields.Integer(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata=_doc("Start after this version; the Last-Event-ID header wins"),
    )
    access_token = fields.String(
        metadata=_doc("The seat's token, for EventSource clients that cannot send headers")
    )
    include = _include()


class ReplayQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    at = fields.Integer(
        validate=validate.Range(min=1, max=MAX_VERSION),
        metadata=_doc("The caller's view at this version"),
    )


class ListGamesQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    client = fields.String(
        required=True,
        validate=validate.OneOf(["me"]),
        metadata=_doc("Always `me`: the games created with the caller's client key"),
    )
    status = fields.String(
        validate=validate.OneOf(["waiting", "active", "finished"]),
        metadata=_doc("Only games with this status"),
    )
    limit = fields.Integer(
        load_default=20,
        validate=validate.Range(min=1, max=100),
        metadata=_doc("Most games on one page"),
    )
    cursor = cursor_parameter("The `next_cursor` of the previous page, as it came")


#: The most games one export of a client's games holds, and how many it holds unless told.
EXPORT_MAX_GAMES = 100_000
EXPORT_DEFAULT_GAMES = 10_000


class GameExportQuerySchema(Schema):
    """Which of a client app's archived games ``GET /v1/games/export`` streams.

    Unknown names are refused, not ignored: an export runs long, and a
    misspelt filter (``varaint=tracked``) would otherwise stream every game.
    """

    class Meta:
        unknown = RAISE

    client = fields.String(
        required=True,
        validate=validate.OneOf(["me"]),
        metadata=_doc("Always `me`: the games created with the caller's client key"),
    )
    since = fields.AwareDateTime(
        format="iso",
        metadata=_doc(
            "Only games created at or after this time (RFC 3339, with `Z` or an offset; "
            "send `+` as `%2B`)"
        ),
    )
    until = fields.AwareDateTime(
        format="iso",
        metadata=_doc(
            "Only games created before this time (RFC 3339); an `until` not later "
            "than `since` matches no game"
        ),
    )
    variant = fields.String(
        validate=validate.OneOf(["head", "tracked"]), metadata=_doc("Only games of this variant")
    )
    status = fields.String(
        validate=validate.OneOf(["finished"]),
        metadata=_doc("Only games with this status: archived games are all finished"),
    )
    max = fields.Integer(
        load_default=EXPORT_DEFAULT_GAMES,
        validate=validate.Range(min=1, max=EXPORT_MAX_GAMES),
        metadata=_doc("Most games in the export, the newest first"),
    )


# -- responses --------------------------------------------------------------


@answer()
class CardAtSeatSchema(Schema):
    seat = _seat()
    card = _card()


class ActionOutSchema(Schema):
    """An action in an answer (an event's, a decision's): documented as ``Action``."""

    openapi_ref = "Action"

    type = fields.String(validate=validate.OneOf(ACTION_TYPES))
    card = _card()
    suit = SuitField()


class LegalActionSchema(ActionOutSchema):
    """A legal action of a view: ``LegalAction``, which is ``Action``, to post as it is."""

    openapi_ref = "LegalAction"


@answer()
class TrickSchema(Schema):
    leader = _seat()
    cards = fields.List(fields.Nested(CardAtSeatSchema))
    winner = _seat()


@answer()
class DealResultSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    winner = _seat()
    game_points = fields.Integer(validate=validate.OneOf([1, 2, 3]))
    reason = fields.String(
        validate=validate.OneOf(DEAL_END_REASONS),
        metadata=_doc("Why the deal ended (R8, R9): went_out, false_claim, last_trick, "
                      "closer_went_out, closer_false_claim, closer_ran_out, "
                      "closer_opponent_went_out"),
    )  # fmt: skip
    card_points = fields.List(fields.Integer())
    tricks_won = fields.List(fields.Integer())
    claimed_by = _seat(allow_none=True)


@answer()
class MarriageSchema(Schema):
    seat = _seat()
    suit = SuitField()
    points = fields.Integer(metadata=_doc("R6c: 20, or 40 in trumps"))


@answer()
class ExchangeSchema(Schema):
    seat = _seat()
    took = _card(metadata=_doc("The trump card the exchanger took"))


@answer()
class DealViewSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    trump_suit = SuitField()
    trump_card = _card(
        allow_none=True, metadata=_doc("The face-up card while it lies under the talon")
    )
    turn_up = _card(
        metadata=_doc(
            "The card turned up at the deal (after an exchange: the trump jack); public, "
            "and still shown once drawn, as a bot-move Position needs it"
        )
    )
    talon_size = fields.Integer(metadata=_doc("Face-down cards left in the talon"))
    closed_by = _seat(allow_none=True)
    hand = fields.List(_card(), metadata=_doc("The caller's own hand; [] for spectators"))
    opponent_hand_size = fields.Integer(metadata=_doc("For spectators: seat 1's hand"))
    hand_sizes = fields.List(fields.Integer())
    revealed_cards = fields.List(
        fields.List(_card()),
        metadata=_doc("Per seat, cards of the hand both players have seen (R11a)"),
    )
    current_trick = fields.List(fields.Nested(CardAtSeatSchema))
    tricks = fields.List(fields.Nested(TrickSchema))
    tricks_won = fields.List(fields.Integer())
    marriages = fields.List(fields.Nested(MarriageSchema))
    marriage_points = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata=_doc("What a marriage in each suit is worth in this deal (R6c)"),
    )
    declared_marriage = SuitField(allow_none=True)
    exchange = fields.Nested(ExchangeSchema, allow_none=True)
    card_points = fields.List(
        fields.Integer(),
        allow_none=True,
        metadata=_doc("null in the head variant while the deal runs"),
    )
    to_move = _seat(allow_none=True)
    legal_actions = fields.List(
        fields.Nested(LegalActionSchema),
        metadata=_doc("The caller's legal actions; [] when not theirs"),
    )
    result = fields.Nested(DealResultSchema, allow_none=True)


@answer("level", "player_id", "erased")
class PlayerSchema(Schema):
    seat = _seat()
    type = fields.String(validate=validate.OneOf(["human", "bot"]))
    level = LevelField(metadata=_doc("A bot's level"))
    joined = fields.Boolean()
    player_id = fields.String(
        metadata=_doc("The player of the game's client app at this seat (GET /v1/players/{id} "
                      "with a credential of that app); absent for an anonymous seat")
    )  # fmt: skip
    erased = fields.Boolean(
        metadata=_doc("true when the app erased the player who sat here (DELETE "
                      "/v1/players/{id}): the seat is an anonymous placeholder; absent otherwise")
    )  # fmt: skip


@answer()
class EndingSchema(Schema):
    """How a finished game ended (docs/rules.md, RX1-RX3)."""

    reason = fields.String(
        validate=validate.OneOf(["played", "resigned", "aborted", "timed_out"]),
        metadata=_doc(
            "played: a seat reached 0 game points; resigned: `seat` gave up (RX1); "
            "aborted: `seat` called it off before the first action, nobody won (RX2); "
            "timed_out: `seat` claimed the game after the opponent's turn timed out (RX3)"
        ),
    )
    seat = _seat(allow_none=True, metadata=_doc("The seat that ended it; null when played"))


@answer()
class GameStateSchema(Schema):
    """A game's state as one viewer may see it (R11), without the game's identity:
    the ``state`` of a json export, whose header names the game and version."""

    status = ChoiceField("GameStatus")
    variant = ChoiceField("Variant")
    dealing = _dealing()
    seat = _seat(allow_none=True, metadata=_doc("The caller's seat; null for spectators"))
    game_points = fields.List(fields.Integer())
    winner = _seat(allow_none=True)
    to_move = _seat(allow_none=True)
    ending = fields.Nested(
        EndingSchema, allow_none=True, metadata=_doc("How the game ended; null while it runs")
    )
    deal = fields.Nested(DealViewSchema, allow_none=True)
    deals = fields.List(fields.Nested(DealResultSchema))


@answer()
class ReplayStateSchema(GameStateSchema):
    """A game as the caller saw it at one version: a view's fields but the invite.

    A replay shows the past, where an invite (a standing offer to join now)
    has no place: only the live view (``GameView``) carries one.
    """

    game_id = fields.String()
    version = fields.Integer()
    players = fields.List(fields.Nested(PlayerSchema))


@answer()
class RematchSchema(Schema):
    """A finished game's rematch offer, as both seats and spectators see it."""

    offered_by = _seat(
        allow_none=True,
        metadata=_doc("The seat that offered; null once the offer's record has expired"),
    )
    status = fields.String(
        validate=validate.OneOf(["offered", "accepted", "declined"]),
        metadata=_doc(
            "offered: the other seat may accept or decline; accepted: the new game is "
            "`game_id`; declined: over, either seat may offer again"
        ),
    )
    game_id = fields.String(
        allow_none=True, metadata=_doc("The new game, once accepted; else null")
    )


@answer()
class ClockViewSchema(Schema):
    """A clocked game's clock now: its time control, the deadline, the bots' moves."""

    seconds_per_move = fields.Integer()
    on_timeout = fields.String(validate=validate.OneOf([choice.value for choice in OnTimeout]))
    bot_level = LevelField()
    bot_moves_limit = fields.Integer()
    deadline = fields.Integer(
        allow_none=True,
        metadata=_doc(
            "When the person to move runs out of time, ms since the epoch (the log's clock); "
            "null when no person is to move"
        ),
    )
    bot_moves = fields.List(
        fields.Integer(),
        metadata=_doc(
            "Per seat, the moves a bot has played for it on time: in a row since its own "
            "last move, or in a rated game every one of the game (RX5)"
        ),
    )


@answer("clock")
class GameViewSchema(ReplayStateSchema):
    """The caller's view of a game now: its state and, for seat 0, the invite."""

    invite = fields.String(
        allow_none=True,
        metadata=_doc("Seat 0 only, until seat 1 joins: the invite to pass on; else null"),
    )
    rematch = fields.Nested(
        RematchSchema,
        allow_none=True,
        metadata=_doc("A finished game's rematch offer; null while none was made"),
    )
    rematch_of = fields.String(
        allow_none=True,
        metadata=_doc("The finished game this game is the rematch of; else null"),
    )
    rated = fields.Boolean(
        metadata=_doc("Its end changes the players' ratings (docs/rules.md, RX4-RX6)")
    )
    pool = ChoiceField(
        "Pool",
        metadata=_doc("The rating pool of its variant and clock: the ratings a rated game "
                      "moves (docs/api.md, Rating pools)"),
    )  # fmt: skip
    clock = fields.Nested(
        ClockViewSchema, metadata=_doc("A clocked game's clock; absent for a game without one")
    )


@answer()
class GameSummarySchema(Schema):
    """A game as its creating client app sees it in a listing: no token, no card."""

    game_id = fields.String()
    created_at = fields.String(metadata=_doc("When it was created, UTC, ISO 8601 (…Z)"))
    version = fields.Integer()
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    variant = ChoiceField("Variant")
    dealing = _dealing()
    rated = fields.Boolean(metadata=_doc("Its end changes the players' ratings"))
    pool = ChoiceField("Pool", metadata=_doc("The rating pool of its variant and clock"))
    game_points = fields.List(fields.Integer())
    winner = _seat(allow_none=True)
    to_move = _seat(allow_none=True)
    players = fields.List(fields.Nested(PlayerSchema))
    ending = fields.Nested(EndingSchema, allow_none=True)


@answer()
class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), metadata=_doc("Newest first"))
    next_cursor = next_cursor_field("Pass as `cursor` for the next page; null on the last")


@answer()
class SeatedSchema(Schema):
    game_id = fields.String()
    seat = _seat()
    token = fields.String(metadata=_doc("Send as 'Authorization: Bearer <token>'"))
    invite = fields.String(allow_none=True, metadata=_doc("For the human opponent's join"))
    version = fields.Integer()
    dealing = _dealing()
    game = fields.Nested(GameViewSchema, metadata=_doc("The caller's view of the new game"))


@answer()
class RematchSeatedSchema(SeatedSchema):
    """An accepted rematch: the new game, with the caller's seat (the same as in the old
    game) and its token for it, and the offer that made it."""

    rematch = fields.Nested(RematchSchema, metadata=_doc("The old game's offer, accepted"))


@answer()
class RematchLookSchema(Schema):
    """A seat's look at its game's rematch: the offer, and once accepted the new game with
    the caller's token for it (the seat is the same in both games)."""

    seat = _seat(metadata=_doc("The caller's seat, in the old game and the new"))
    offered_by = _seat(allow_none=True, metadata=_doc("The seat that offered; else null"))
    status = fields.String(
        validate=validate.OneOf(["none", "offered", "accepted", "declined"]),
        metadata=_doc("none: no offer yet; else as in the game's view, member `rematch`"),
    )
    game_id = fields.String(
        allow_none=True, metadata=_doc("The new game, once accepted; else null")
    )
    token = fields.String(
        allow_none=True,
        metadata=_doc("Once accepted: the caller's token for the new game; else null"),
    )


class RematchQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=DEFAULTS["LONG_POLL_MAX_SECONDS"]),
        metadata=_doc(
            "Long-poll: while the status is `none` or `offered`, wait up to this many "
            "seconds for it to change (the server's cap, SCHNAPSEN_LONG_POLL_MAX_SECONDS)"
        ),
    )


class EventSchema(Schema):
    """One event of the log as the caller may see it; fields depend on ``type``.

    Dumps every event type; documented as the union ``Event`` (one schema per
    type, schemas.events).
    """

    openapi_ref = "Event"

    version = fields.Integer(required=True)
    type = fields.String(
        required=True,
        validate=validate.OneOf(
            [
                "game_created",
                "seat_taken",
                "deal_started",
                "action_taken",
                "clock_moved",
                "resigned",
                "aborted",
                "timeout_claimed",
            ]
        ),
    )
    variant = ChoiceField("Variant")
    first_dealer = _seat()
    dealing = _dealing()
    seat = _seat()
    player = fields.String()
    level = LevelField(metadata=_doc("seat_taken: a bot's level; clock_moved: the bot's"))
    number = fields.Integer()
    dealer = _seat()
    trump_card = _card()
    hand = fields.List(_card(), metadata=_doc("deal_started: the caller's own hand"))
    deck = fields.List(_card(), metadata=_doc("deal_started: only once the game is over"))
    commitment = fields.String(
        metadata=_doc("deal_started: SHA-256 of nonce || deck, published when the deal starts")
    )
    nonce = fields.String(
        metadata=_doc("deal_started: the commitment's nonce, once the game is over")
    )
    action = fields.Nested(ActionOutSchema)
    took = _card()
    marriage_points = fields.Integer(metadata=_doc("declare_marriage: what it is worth (R6c)"))
    trick = fields.Nested(TrickSchema)
    turn_up_drawn = fields.Nested(CardAtSeatSchema)
    drew = fields.List(_card(), metadata=_doc("The caller's own drawn card"))
    deal_result = fields.Nested(DealResultSchema)
    game_winner = _seat(allow_none=True)
    waited_ms = fields.Integer(
        metadata=_doc("timeout_claimed: how long the turn had waited when claimed")
    )
    to_move = _seat(
        required=True, allow_none=True, metadata=_doc("The seat to move after this event")
    )


@answer("view")
class EventFeedSchema(Schema):
    """The answer of GET /v1/games/{game_id}/events.

    Named EventFeed, not Events: a model `Events` with a field `events` breaks
    openapi-python-client's generated `from_dict` (one local name for both).
    """

    game_id = fields.String()
    version = fields.Integer(metadata=_doc("The game's version now"))
    events = fields.List(fields.Nested(EventSchema))
    view = fields.Nested(
        "GameViewSchema", metadata=_doc("With include=view: the caller's view at `version`")
    )


class StepField(fields.Dict, ComponentField):
    """A replay's frame, as the engine builds it; documented as the union ``ReplayStep``."""

    component = "ReplayStep"


@answer()
class ReplayDealSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    commitment = fields.String(
        allow_none=True, metadata=_doc("SHA-256(nonce || deck), published when the deal started")
    )
    nonce = fields.String(allow_none=True, metadata=_doc("Revealed once the game is over"))
    deck = fields.List(_card(), allow_none=True, metadata=_doc("Revealed once the game is over"))
    result = fields.Nested(DealResultSchema, allow_none=True)


@answer()
class ReplaySchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    dealing = _dealing()
    complete = fields.Boolean(metadata=_doc("The game is over: every deck is shown"))
    events = fields.List(fields.Nested(EventSchema))
    deals = fields.List(fields.Nested(ReplayDealSchema))
    steps = fields.List(
        StepField(),
        metadata=_doc(
            "The replay's frames as the caller may see them (service/engine/frames.py): "
            "each deal's start, each trick before the draw, each deal's end, now, the game's end"
        ),
    )
    state = fields.Nested(
        ReplayStateSchema, metadata=_doc("The caller's view at `version` (no invite)")
    )


@answer()
class GameExportLineSchema(Schema):
    """One line of ``GET /v1/games/export``: an archived game and its whole replay."""

    game_id = fields.String()
    created_at = fields.String(metadata=_doc("When it was created, UTC, ISO 8601 (…Z)"))
    ended_at = fields.String(metadata=_doc("When it ended, UTC, ISO 8601 (…Z)"))
    variant = ChoiceField("Variant")
    status = fields.String(validate=validate.OneOf(["finished"]))
    replay = fields.Nested(
        ReplaySchema,
        metadata=_doc("Exactly what GET /v1/games/{game_id}/replay answers a spectator"),
    )


class StreamEventSchema(EventSchema):
    """The data of one event of GET /v1/games/{game_id}/stream (the SSE `event` is its
    `type`, the `id` its version); with include=view the last of a burst has `view`.
    Documented as the union ``StreamEvent`` (schemas.events)."""

    openapi_ref = "StreamEvent"

    view = fields.Nested(
        "GameViewSchema", metadata=_doc("With include=view, on the last event of a burst")
    )


@answer()
class StreamEndSchema(Schema):
    """The data of the stream's final `end` event (no `id`): how the game ended."""

    version = fields.Integer()
    status = fields.String(validate=validate.OneOf(["finished"]))
    winner = _seat(allow_none=True)
    game_points = fields.List(fields.Integer())


#: The name the feed's schema had before it was documented as EventFeed.
EventsSchema = EventFeedSchema
