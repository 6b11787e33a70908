"""Requests and answers of tournaments (docs/api.md, "Tournaments")."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from schemas.components import ChoiceField, SeatField, WholeNumber
from schemas.games import ClockSchema, answer

#: Most rounds a Swiss may have.
MAX_ROUNDS = 20
#: An arena's shortest and longest time (s): half a minute to a day.
MIN_DURATION = 30
MAX_DURATION = 24 * 3600
#: How far ahead a tournament may start (s): a year.
MAX_LEAD_SECONDS = 366 * 24 * 3600


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class CreateTournamentSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata=_doc("What your players see the tournament called"),
    )
    kind = fields.String(
        load_default="swiss",
        validate=validate.OneOf(["swiss", "arena"]),
        metadata=_doc(
            "swiss: a fixed number of rounds, each paired by score groups; arena: a fixed "
            "time, each player paired again as soon as their game ends"
        ),
    )
    variant = ChoiceField("Variant", load_default="head")
    clock = fields.Nested(ClockSchema, metadata=_doc("Every game's time control; absent: none"))
    rounds = WholeNumber(
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        metadata=_doc(f"How many rounds (1-{MAX_ROUNDS}): a Swiss's, required; an arena has none"),
    )
    duration = WholeNumber(
        validate=validate.Range(min=MIN_DURATION, max=MAX_DURATION),
        metadata=_doc(
            f"An arena's time from its start, in seconds ({MIN_DURATION}-{MAX_DURATION}): "
            "required for an arena; a Swiss has none"
        ),
    )
    starts_in = WholeNumber(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_LEAD_SECONDS),
        metadata=_doc(
            f"Seconds from now until the first round is paired (0, the default: at once; at "
            f"most {MAX_LEAD_SECONDS}, a year). Relative, so that the document states the "
            f"whole rule and a client's clock does not matter"
        ),
    )
    #: What ``_kind_needs_its_length`` checks, in the document (``service.web.spec``). A
    #: length that must be absent is ``not: {required: [...]}``, not a ``properties``
    #: entry: linters that close every subschema with ``properties`` (Redocly's example
    #: check) would otherwise read the branch as refusing every other field.
    openapi_extra: ClassVar[dict[str, Any]] = {
        "if": {"properties": {"kind": {"const": "arena"}}, "required": ["kind"]},
        "then": {"required": ["duration"], "not": {"required": ["rounds"]}},
        "else": {"required": ["rounds"], "not": {"required": ["duration"]}},
    }

    @validates_schema
    def _kind_needs_its_length(self, data, **kwargs):
        if data.get("kind") == "arena":
            if "rounds" in data:
                raise ValidationError("an arena has a duration, not rounds", "rounds")
            if "duration" not in data:
                raise ValidationError("an arena needs a 'duration' (seconds)", "duration")
        else:
            if "duration" in data:
                raise ValidationError("a Swiss has rounds, not a duration", "duration")
            if "rounds" not in data:
                raise ValidationError("a Swiss needs 'rounds'", "rounds")


@answer()
class TournamentSchema(Schema):
    tournament_id = fields.String()
    name = fields.String()
    kind = fields.String(
        validate=validate.OneOf(["swiss", "arena"]), metadata=_doc("swiss or arena")
    )
    variant = ChoiceField("Variant")
    clock = fields.Nested(
        ClockSchema, allow_none=True, metadata=_doc("Every game's time control; null: none")
    )
    rounds = fields.Integer(metadata=_doc("How many rounds it has; 0 in an arena"))
    round = fields.Integer(
        metadata=_doc(
            "The latest round paired; 0 before the first (in an arena each pairing of the "
            "players waiting is a round)"
        )
    )
    duration = fields.Integer(
        allow_none=True, metadata=_doc("An arena's time in seconds; null in a Swiss")
    )
    ends_at = fields.Float(
        allow_none=True,
        metadata=_doc(
            "When an arena stops pairing (s since the epoch); games started before it are "
            "played out and count. null in a Swiss"
        ),
    )
    status = fields.String(
        validate=validate.OneOf(["created", "started", "finished"]),
        metadata=_doc("created: taking entries before its first round or start; started; finished"),
    )
    starts_at = fields.Float(
        metadata=_doc("When the first round is paired, or an arena starts (s since the epoch)")
    )
    created = fields.Float(metadata=_doc("When it was created (s since the epoch)"))
    players = fields.Integer(metadata=_doc("Players entered and not withdrawn (not paused)"))


@answer()
class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), metadata=_doc("Newest first"))


@answer()
class EntrySchema(Schema):
    tournament_id = fields.String()
    player_id = fields.String()
    status = fields.String(
        validate=validate.OneOf(["entered", "withdrawn", "paused"]),
        metadata=_doc(
            "entered: paired from the next round (an arena: as soon as a partner is free); "
            "withdrawn: paired no more; paused: an arena's player paired no more until they "
            "enter again"
        ),
    )


@answer()
class StandingSchema(Schema):
    rank = fields.Integer(metadata=_doc("Place, 1 first"))
    player_id = fields.String()
    points = fields.Integer(
        metadata=_doc(
            "Swiss: 1 a win, 1 a bye, 0 a loss. Arena: 2 a win, 4 a win on a streak (after "
            "two wins in a row, until the next loss), 0 a loss"
        )
    )
    buchholz = fields.Integer(
        metadata=_doc("Sum of the final scores of every opponent met; 0 in an arena")
    )
    sonneborn_berger = fields.Integer(
        metadata=_doc("Sum of the final scores of opponents beaten; 0 in an arena")
    )
    wins = fields.Integer()
    games = fields.Integer()
    byes = fields.Integer(metadata=_doc("Rounds sat out; 0 in an arena"))


@answer()
class StandingsSchema(Schema):
    tournament_id = fields.String()
    total = fields.Integer(metadata=_doc("Lines of the whole table"))
    standings = fields.List(fields.Nested(StandingSchema), metadata=_doc("Best first"))


class StandingsQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


@answer("seat", "token")
class BoardSchema(Schema):
    round = fields.Integer()
    board = fields.Integer(metadata=_doc("1 the top board"))
    game_id = fields.String(metadata=_doc("An ordinary game: read it, watch it, play it"))
    dealer = fields.String(metadata=_doc("The player who deals the first deal (seat 0)"))
    forehand = fields.String(metadata=_doc("The player who leads the first trick (seat 1)"))
    winner = fields.String(allow_none=True, metadata=_doc("null while the game is played"))
    seat = SeatField(metadata=_doc("Your seat, on your own board only"))
    token = fields.String(metadata=_doc("Your seat's token, on your own board only"))


@answer()
class BoardsSchema(Schema):
    tournament_id = fields.String()
    round = fields.Integer(
        metadata=_doc(
            "The round shown: the latest paired; 0 before the first (an arena: its latest pairing)"
        )
    )
    bye = fields.String(allow_none=True, metadata=_doc("Who sits the round out (odd field)"))
    boards = fields.List(
        fields.Nested(BoardSchema),
        metadata=_doc("A Swiss: the round's boards. An arena: every board being played"),
    )


@answer()
class NoticeBoardSchema(Schema):
    board = fields.Integer(metadata=_doc("1 the top board"))
    game_id = fields.String()
    dealer = fields.String(
        allow_none=True, metadata=_doc("The player at seat 0, who deals first; null once erased")
    )
    forehand = fields.String(
        allow_none=True, metadata=_doc("The player at seat 1, who leads first; null once erased")
    )


@answer()
class TournamentNoticeDataSchema(Schema):
    """What a tournament's notice is about: the tournament at a round; players by their ids
    only, games by theirs (no token, no card)."""

    tournament_id = fields.String()
    round = fields.Integer(
        metadata=_doc(
            "The round paired (an arena: its pairing); the last round when finished; an "
            "arena's start: 0"
        )
    )
    status = fields.String(validate=validate.OneOf(["started", "finished"]))
    bye = fields.String(allow_none=True, metadata=_doc("Who sits the round out; null: nobody"))
    boards = fields.List(
        fields.Nested(NoticeBoardSchema),
        metadata=_doc("The round's games (empty in tournament.finished)"),
    )
