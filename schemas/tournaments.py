"""Requests and answers of tournaments (docs/api.md, "Tournaments")."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.components import ChoiceField, SeatField, WholeNumber
from schemas.games import ClockSchema, answer

#: Most rounds a Swiss may have.
MAX_ROUNDS = 20
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
        validate=validate.OneOf(["swiss"]),
        metadata=_doc("swiss: a fixed number of rounds, each paired by score groups"),
    )
    variant = ChoiceField("Variant", load_default="head")
    clock = fields.Nested(ClockSchema, metadata=_doc("Every game's time control; absent: none"))
    rounds = WholeNumber(
        required=True,
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        metadata=_doc(f"How many rounds (1-{MAX_ROUNDS})"),
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


@answer()
class TournamentSchema(Schema):
    tournament_id = fields.String()
    name = fields.String()
    kind = fields.String(metadata=_doc("swiss"))
    variant = ChoiceField("Variant")
    clock = fields.Nested(
        ClockSchema, allow_none=True, metadata=_doc("Every game's time control; null: none")
    )
    rounds = fields.Integer(metadata=_doc("How many rounds it has"))
    round = fields.Integer(metadata=_doc("The latest round paired; 0 before the first"))
    status = fields.String(
        validate=validate.OneOf(["created", "started", "finished"]),
        metadata=_doc("created: taking entries before its first round; started; finished"),
    )
    starts_at = fields.Float(metadata=_doc("When the first round is paired (s since the epoch)"))
    created = fields.Float(metadata=_doc("When it was created (s since the epoch)"))
    players = fields.Integer(metadata=_doc("Players entered and not withdrawn"))


@answer()
class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), metadata=_doc("Newest first"))


@answer()
class EntrySchema(Schema):
    tournament_id = fields.String()
    player_id = fields.String()
    status = fields.String(
        validate=validate.OneOf(["entered", "withdrawn"]),
        metadata=_doc("entered: paired from the next round; withdrawn: paired no more"),
    )


@answer()
class StandingSchema(Schema):
    rank = fields.Integer(metadata=_doc("Place, 1 first"))
    player_id = fields.String()
    points = fields.Integer(metadata=_doc("1 a win, 1 a bye, 0 a loss"))
    buchholz = fields.Integer(metadata=_doc("Sum of the final scores of every opponent met"))
    sonneborn_berger = fields.Integer(metadata=_doc("Sum of the final scores of opponents beaten"))
    wins = fields.Integer()
    games = fields.Integer()
    byes = fields.Integer()


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
    round = fields.Integer(metadata=_doc("The round shown: the latest paired; 0 before the first"))
    bye = fields.String(allow_none=True, metadata=_doc("Who sits the round out (odd field)"))
    boards = fields.List(fields.Nested(BoardSchema))


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
    round = fields.Integer(metadata=_doc("The round paired; the last round when finished"))
    status = fields.String(validate=validate.OneOf(["started", "finished"]))
    bye = fields.String(allow_none=True, metadata=_doc("Who sits the round out; null: nobody"))
    boards = fields.List(
        fields.Nested(NoticeBoardSchema),
        metadata=_doc("The round's games (empty in tournament.finished)"),
    )
