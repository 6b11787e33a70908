"""The shared components of openapi.yaml: Card, Suit, Seat, BotLevel and Action.

Why a module of its own: a client generator makes one type per schema it
meets, so a card list written inline in 18 places became 24 enum classes.
Here each shared type is written once, as a JSON Schema of the engine's
own names, and the marshmallow fields below (``CardField``, ...) validate as
before while the spec converter (``service.web.spec``) documents them as a
``$ref`` to their component. A marshmallow schema documented by a
hand-written component names it in ``openapi_ref`` (the action bodies).
"""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields, validate

from service.engine import Dealing, Variant
from service.engine.actions import ActionType
from service.engine.cards import Card, Suit
from service.game.bot_levels import LEVELS
from service.game.notices import NoticeKind
from service.game.pools import BLITZ_SECONDS, POOL_NAMES, RAPID_SECONDS, Speed

CARD_CODES = [card.value for card in Card]
SUIT_CODES = [suit.value for suit in Suit]
ACTION_TYPES = [kind.value for kind in ActionType]
VARIANTS = [variant.value for variant in Variant]
DEALINGS = [dealing.value for dealing in Dealing]
NOTICE_KINDS = [kind.value for kind in NoticeKind]
GAME_STATUSES = ["waiting", "active", "finished"]
SPEEDS = [speed.value for speed in Speed]
JOB_STATUSES = ["queued", "started", "deferred", "scheduled", "finished", "failed", "stopped",
                "canceled"]  # fmt: skip
#: No game comes near this many events; larger versions are refused, not sent to Redis.
MAX_VERSION = 10**9

#: Per action type, the component of its body and the fields it needs beside ``type``.
ACTION_VARIANTS: dict[str, tuple[str, dict[str, str]]] = {
    "play": ("PlayAction", {"card": "Card"}),
    "exchange_trump_jack": ("ExchangeTrumpJackAction", {}),
    "close_talon": ("CloseTalonAction", {}),
    "declare_marriage": ("DeclareMarriageAction", {"suit": "Suit"}),
    "claim": ("ClaimAction", {}),
    "accept_last_trick": ("AcceptLastTrickAction", {}),
}
assert set(ACTION_VARIANTS) == set(ACTION_TYPES), "every action type has its body schema"

_DESCRIPTIONS = {
    "play": "Play a card from the hand",
    "exchange_trump_jack": "Exchange the trump jack for the face-up trump card",
    "close_talon": "Close the talon",
    "declare_marriage": "Declare the marriage of this suit, then lead its king or queen",
    "claim": "Claim to have reached 66 (head variant)",
    "accept_last_trick": "Let the last trick decide (head variant)",
}


def component_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _action_variant(kind: str) -> dict[str, Any]:
    _, needs = ACTION_VARIANTS[kind]
    properties: dict[str, Any] = {"type": {"type": "string", "enum": [kind]}}
    properties.update({name: component_ref(target) for name, target in needs.items()})
    properties["expected_version"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_VERSION,
        "description": "Only in a request: refuse (409) unless the game is at this "
        "version; or send If-Match. Never in a listed legal action",
    }
    return {
        "type": "object",
        "description": _DESCRIPTIONS[kind],
        "properties": properties,
        "required": ["type", *needs],
        "additionalProperties": False,
    }


def shared_components() -> dict[str, dict[str, Any]]:
    """Every hand-written component, by name, in the order the document lists them."""
    components: dict[str, dict[str, Any]] = {
        "Card": {
            "type": "string",
            "enum": CARD_CODES,
            "description": "A card as docs/rules.md writes it: rank (A, T, K, Q, J) then suit",
        },
        "Suit": {
            "type": "string",
            "enum": SUIT_CODES,
            "description": "C (clubs), D (diamonds), H (hearts), S (spades)",
        },
        "Seat": {"type": "integer", "enum": [0, 1], "description": "A seat: 0 or 1"},
        "Variant": {
            "type": "string",
            "enum": VARIANTS,
            "description": "'head': card points counted in the head, explicit claims; "
            "'tracked': points shown, going out is automatic",
        },
        "Dealing": {
            "type": "string",
            "enum": DEALINGS,
            "description": "Who chose the decks: 'random' (the server shuffled every deal), "
            "'seeded' (the creator's seed), 'fixed' (the creator's first deck)",
        },
        "GameStatus": {"type": "string", "enum": GAME_STATUSES},
        "JobStatus": {"type": "string", "enum": JOB_STATUSES},
        "BotLevel": {
            "type": "string",
            "enum": list(LEVELS),
            "description": "A bot's level, weakest first",
        },
        "NoticeKind": {
            "type": "string",
            "enum": NOTICE_KINDS,
            "description": "A kind of webhook notice (docs/webhooks.md): the `type` of its body",
        },
        "Pool": {
            "type": "string",
            "enum": list(POOL_NAMES),
            "description": "A rating pool, `<variant>-<speed>` (docs/api.md, Rating pools): a "
            "rated game moves its players' ratings in its pool alone",
        },
        "Speed": {
            "type": "string",
            "enum": SPEEDS,
            "description": f"A game's speed by its clock's seconds_per_move: 'blitz' at most "
            f"{BLITZ_SECONDS}, 'rapid' at most {RAPID_SECONDS}, 'classical' longer, "
            "'untimed' no clock",
        },
    }
    for kind, (name, _) in ACTION_VARIANTS.items():
        components[name] = _action_variant(kind)
    components["Action"] = {
        "description": "One player action, keyed on `type`: exactly the fields its type needs",
        "oneOf": [component_ref(name) for name, _ in ACTION_VARIANTS.values()],
        "discriminator": {
            "propertyName": "type",
            "mapping": {
                kind: component_ref(name)["$ref"] for kind, (name, _) in ACTION_VARIANTS.items()
            },
        },
    }
    # What a view lists is what a client posts: the same type, no cast.
    components["LegalAction"] = component_ref("Action")
    return components


class WholeNumber(fields.Integer):
    """A JSON integer of a request body: `2` and `2.0` (the same number in JSON, and an
    ``integer`` to JSON Schema, so a client library may well write either), never 0.5,
    "2" or true.

    Why: marshmallow's strict Integer refused 2.0, which openapi.yaml's
    ``type: integer`` allows; a non-strict one takes "2" and truncates 0.5.
    """

    def __init__(self, **kwargs: Any):
        kwargs.pop("strict", None)
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._validated(value)


class TrueOrFalse(fields.Boolean):
    """A JSON boolean of a request body: true or false, never 1, 0 or "yes".

    Why: marshmallow's Boolean takes 0, 1 and words as booleans, which openapi.yaml's
    ``type: boolean`` refuses; a client that sends them is told so.
    """

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if value is True or value is False:
            return value
        raise self.make_error("invalid", input=value)


class ComponentField:
    """A field documented as a ``$ref`` to the shared component ``component``."""

    component: str


class ChoiceField(fields.String, ComponentField):
    """A string of a shared enum component (Variant, Dealing, GameStatus, JobStatus,
    NoticeKind, Pool, Speed)."""

    _CHOICES: ClassVar[dict[str, list[str]]] = {
        "Variant": VARIANTS,
        "Dealing": DEALINGS,
        "GameStatus": GAME_STATUSES,
        "JobStatus": JOB_STATUSES,
        "NoticeKind": NOTICE_KINDS,
        "Pool": list(POOL_NAMES),
        "Speed": SPEEDS,
    }

    def __init__(self, component: str, **kwargs: Any):
        self.component = component
        super().__init__(validate=validate.OneOf(self._CHOICES[component]), **kwargs)


class CardField(fields.String, ComponentField):
    component = "Card"

    def __init__(self, **kwargs: Any):
        super().__init__(validate=validate.OneOf(CARD_CODES), **kwargs)


class SuitField(fields.String, ComponentField):
    component = "Suit"

    def __init__(self, **kwargs: Any):
        super().__init__(validate=validate.OneOf(SUIT_CODES), **kwargs)


class SeatField(WholeNumber, ComponentField):
    component = "Seat"

    def __init__(self, **kwargs: Any):
        # a whole number: a JSON 0.5 is an error, not seat 0
        super().__init__(validate=validate.OneOf([0, 1]), **kwargs)


class LevelField(fields.String, ComponentField):
    """A bot level. Documented as the enum; not validated here, so that an unknown
    level keeps its own answer (``unknown_bot_level``, or the schema's OneOf)."""

    component = "BotLevel"
