"""Request and response bodies of the games API (marshmallow 4).

Names follow ../shared/API-CONTRACT.md exactly; anything beyond the contract
is documented here with a description so the generated OpenAPI says it.
"""

from __future__ import annotations

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from service.engine import Dealing
from service.engine.actions import ActionType
from service.engine.cards import Card, Suit

CARD_CODES = [card.value for card in Card]
SUIT_CODES = [suit.value for suit in Suit]
ACTION_TYPES = [kind.value for kind in ActionType]


def _card(**kwargs) -> fields.String:
    return fields.String(validate=validate.OneOf(CARD_CODES), **kwargs)


#: No game comes near this many events; larger versions are refused, not sent to Redis.
MAX_VERSION = 10**9


def _seat(**kwargs) -> fields.Integer:
    # strict: a JSON 0.5 is an error, not seat 0
    return fields.Integer(strict=True, validate=validate.OneOf([0, 1]), **kwargs)


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _include() -> fields.String:
    return fields.String(
        validate=validate.OneOf(["view"]),
        metadata=_doc("'view': also send the caller's view at the newest version"),
    )


def _dealing(**kwargs) -> fields.String:
    return fields.String(
        validate=validate.OneOf([dealing.value for dealing in Dealing]),
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
    level = fields.String(metadata=_doc("The bot's level, required for a bot"))

    @validates_schema
    def _bot_needs_level(self, data, **kwargs):
        if data["type"] == "bot" and not data.get("level"):
            raise ValidationError("a bot opponent needs a 'level'", "level")
        if data["type"] == "human" and data.get("level"):
            raise ValidationError("only a bot has a level", "level")


class CreateGameSchema(Schema):
    class Meta:
        unknown = RAISE

    variant = fields.String(
        load_default="head",
        validate=validate.OneOf(["head", "tracked"]),
        metadata=_doc("'head': card points counted in the head, explicit claims (R7d); "
                      "'tracked': points visible, going out is automatic (R7e)"),
    )  # fmt: skip
    opponent = fields.Nested(OpponentSchema, load_default=lambda: {"type": "human"})
    seed = fields.Integer(
        strict=True,
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
    """One player action, as RULES.md names it."""

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES))
    card = _card(metadata=_doc("For 'play': the card, e.g. 'QH'"))
    suit = fields.String(
        validate=validate.OneOf(SUIT_CODES), metadata=_doc("For 'declare_marriage': C, D, H or S")
    )
    expected_version = fields.Integer(
        strict=True,
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
        validate=validate.Range(min=0, max=60),
        metadata=_doc("Long-poll: wait up to this many seconds for a new event (capped)"),
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


# -- responses --------------------------------------------------------------


class CardAtSeatSchema(Schema):
    seat = _seat()
    card = _card()


class ActionOutSchema(Schema):
    type = fields.String(validate=validate.OneOf(ACTION_TYPES))
    card = _card()
    suit = fields.String()


class TrickSchema(Schema):
    leader = _seat()
    cards = fields.List(fields.Nested(CardAtSeatSchema))
    winner = _seat()


class DealResultSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    winner = _seat()
    game_points = fields.Integer(validate=validate.OneOf([1, 2, 3]))
    reason = fields.String(
        metadata=_doc("went_out, false_claim, last_trick, closer_went_out, closer_false_claim, "
                      "closer_ran_out, closer_opponent_went_out")
    )  # fmt: skip
    card_points = fields.List(fields.Integer())
    tricks_won = fields.List(fields.Integer())
    claimed_by = _seat(allow_none=True)


class MarriageSchema(Schema):
    seat = _seat()
    suit = fields.String()
    points = fields.Integer(metadata=_doc("R6c: 20, or 40 in trumps"))


class ExchangeSchema(Schema):
    seat = _seat()
    took = _card(metadata=_doc("The trump card the exchanger took"))


class DealViewSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    trump_suit = fields.String()
    trump_card = _card(
        allow_none=True, metadata=_doc("The face-up card while it lies under the talon")
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
    declared_marriage = fields.String(allow_none=True)
    exchange = fields.Nested(ExchangeSchema, allow_none=True)
    card_points = fields.List(
        fields.Integer(),
        allow_none=True,
        metadata=_doc("null in the head variant while the deal runs"),
    )
    to_move = _seat(allow_none=True)
    legal_actions = fields.List(
        fields.Nested(ActionOutSchema),
        metadata=_doc("The caller's legal actions; [] when not theirs"),
    )
    result = fields.Nested(DealResultSchema, allow_none=True)


class PlayerSchema(Schema):
    seat = _seat()
    type = fields.String(validate=validate.OneOf(["human", "bot"]))
    level = fields.String()
    joined = fields.Boolean()


class GameViewSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    variant = fields.String(validate=validate.OneOf(["head", "tracked"]))
    dealing = _dealing()
    seat = _seat(allow_none=True, metadata=_doc("The caller's seat; null for spectators"))
    game_points = fields.List(fields.Integer())
    winner = _seat(allow_none=True)
    to_move = _seat(allow_none=True)
    players = fields.List(fields.Nested(PlayerSchema))
    deal = fields.Nested(DealViewSchema, allow_none=True)
    deals = fields.List(fields.Nested(DealResultSchema))


class SeatedSchema(Schema):
    game_id = fields.String()
    seat = _seat()
    token = fields.String(metadata=_doc("Send as 'Authorization: Bearer <token>'"))
    invite = fields.String(allow_none=True, metadata=_doc("For the human opponent's join"))
    version = fields.Integer()
    dealing = _dealing()
    game = fields.Nested(GameViewSchema, metadata=_doc("The caller's view of the new game"))


class EventSchema(Schema):
    """One event of the log as the caller may see it; fields depend on ``type``."""

    version = fields.Integer(required=True)
    type = fields.String(
        required=True,
        validate=validate.OneOf(["game_created", "seat_taken", "deal_started", "action_taken"]),
    )
    variant = fields.String()
    first_dealer = _seat()
    dealing = _dealing()
    seat = _seat()
    player = fields.String()
    level = fields.String()
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
    game_winner = _seat()
    to_move = _seat(allow_none=True, metadata=_doc("The seat to move after this event"))


class EventsSchema(Schema):
    game_id = fields.String()
    version = fields.Integer(metadata=_doc("The game's version now"))
    events = fields.List(fields.Nested(EventSchema))
    view = fields.Nested(
        "GameViewSchema", metadata=_doc("With include=view: the caller's view at `version`")
    )


class ReplayDealSchema(Schema):
    number = fields.Integer()
    dealer = _seat()
    commitment = fields.String(
        allow_none=True, metadata=_doc("SHA-256(nonce || deck), published when the deal started")
    )
    nonce = fields.String(allow_none=True, metadata=_doc("Revealed once the game is over"))
    deck = fields.List(_card(), allow_none=True, metadata=_doc("Revealed once the game is over"))
    result = fields.Nested(DealResultSchema, allow_none=True)


class ReplaySchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    dealing = _dealing()
    complete = fields.Boolean(metadata=_doc("The game is over: every deck is shown"))
    events = fields.List(fields.Nested(EventSchema))
    deals = fields.List(fields.Nested(ReplayDealSchema))
    steps = fields.List(
        fields.Dict(),
        metadata=_doc(
            "The replay's frames as the caller may see them (service/engine/frames.py): "
            "each deal's start, each trick before the draw, each deal's end, now, the game's end"
        ),
    )
    state = fields.Nested(GameViewSchema)
