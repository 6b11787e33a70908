"""Requests and answers of players, ratings, leaderboards and seeks."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.components import ChoiceField, SeatField, TrueOrFalse
from schemas.games import ClockSchema, answer
from schemas.name_characters import NAME_PATTERN
from schemas.paging import cursor_parameter, next_cursor_field
from schemas.webhooks import DeliverySchema
from service.game.players import APP_PLAYER_ID, NAME_MAX, NAME_MIN
from service.game.pools import DEFAULT_POOL


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class RegisterPlayerSchema(Schema):
    class Meta:
        unknown = RAISE

    app_player_id = fields.String(
        required=True,
        validate=validate.Regexp(f"^{APP_PLAYER_ID.pattern}$"),
        metadata=_doc("Your backend's own id for the player: registering it again renames the "
                      "player and replaces its token"),
    )  # fmt: skip
    name = fields.String(
        required=True,
        validate=validate.Length(min=NAME_MIN, max=NAME_MAX),
        metadata={
            "description": "The display name: 1-32 characters, single spaces between words, "
            "no control or format characters, no markup, starting with a character that shows "
            "(not a combining mark); spaces around it are dropped, and a character newer than "
            "the server's Unicode is kept (the only personal data kept)",
            "pattern": NAME_PATTERN,
        },
    )


@answer()
class RatingSchema(Schema):
    rating = fields.Float(metadata=_doc("Glicko-2 rating, on the Glicko scale (1500 at first)"))
    deviation = fields.Float(metadata=_doc("Rating deviation (350 at first)"))
    volatility = fields.Float()
    games = fields.Integer(metadata=_doc("Rated games played"))
    provisional = fields.Boolean(
        metadata=_doc("True while the deviation is above 110: the pool's leaderboard leaves "
                      "the player out")
    )  # fmt: skip


@answer()
class PoolRatingSchema(RatingSchema):
    pool = ChoiceField("Pool")
    variant = ChoiceField("Variant")
    speed = ChoiceField("Speed")


@answer()
class PlayerViewSchema(Schema):
    player_id = fields.String()
    name = fields.String()
    rating = fields.Nested(
        RatingSchema, metadata=_doc("The rating in the default pool, head-untimed")
    )
    ratings = fields.List(
        fields.Nested(PoolRatingSchema),
        metadata=_doc("The rating in every pool (1500, deviation 350, 0 games where the "
                      "player has played no rated game), in the order of GET /v1/pools"),
    )  # fmt: skip


@answer()
class OwnPlayerSchema(PlayerViewSchema):
    app_player_id = fields.String(metadata=_doc("Your backend's own id for the player"))
    created = fields.Float(metadata=_doc("When the player was registered (s since the epoch)"))


@answer()
class RegisteredPlayerSchema(Schema):
    player = fields.Nested(OwnPlayerSchema)
    token = fields.String(
        metadata=_doc("The player's token (`spt_...`): hand it to the player's devices; shown "
                      "once, never stored")
    )  # fmt: skip


class PageQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=100_000))


class LeaderboardQuerySchema(PageQuerySchema):
    pool = ChoiceField(
        "Pool",
        load_default=DEFAULT_POOL.name,
        metadata=_doc("The pool whose leaderboard to read (default: head-untimed)"),
    )


def _cursor() -> fields.String:
    return cursor_parameter(
        "`next_cursor` of the page before, as it came: the next page starts after its last"
    )


class HistoryQuerySchema(Schema):
    """A page of rating changes: it starts at the newest change or after a cursor's, and
    ``offset`` skips that many from there. Every combination the parameters allow reads
    a page: OpenAPI describes parameters one by one, so none may exclude another."""

    class Meta:
        unknown = RAISE

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    offset = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=100_000),
        metadata=_doc("Changes to skip from where the page starts (the newest, or with "
                      "`cursor` the one after the cursor's); reads all it skips: follow "
                      "`next_cursor` instead"),
    )  # fmt: skip
    cursor = _cursor()
    pool = ChoiceField(
        "Pool", metadata=_doc("Only the changes of this pool (default: every pool's)")
    )


class GamesQuerySchema(Schema):
    """A page of a player's games, newest first: after a cursor's game, started before
    ``before``, or both (the page holds the games both admit; as ``HistoryQuerySchema``,
    no parameter excludes another)."""

    class Meta:
        unknown = RAISE

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    before = fields.Integer(
        validate=validate.Range(min=0),
        metadata=_doc("Only games started before this (ms since the epoch): `next_before` of "
                      "the page before (a game started in the same ms as the page's last may "
                      "be skipped: follow `next_cursor` instead); with `cursor`, the page "
                      "starts after whichever of the two comes later in the list"),
    )  # fmt: skip
    cursor = _cursor()


@answer()
class LeaderboardRowSchema(Schema):
    rank = fields.Integer()
    player = fields.Nested(PlayerViewSchema)


@answer()
class LeaderboardSchema(Schema):
    pool = ChoiceField("Pool")
    players = fields.List(
        fields.Nested(LeaderboardRowSchema),
        metadata=_doc("By the rating in the pool, best first; each player's `rating` is its "
                      "rating in this pool"),
    )  # fmt: skip


@answer()
class RatingPoolSchema(Schema):
    pool = ChoiceField("Pool")
    variant = ChoiceField("Variant")
    speed = ChoiceField("Speed")
    description = fields.String(metadata=_doc("Which games are in the pool"))


@answer()
class PoolListSchema(Schema):
    pools = fields.List(fields.Nested(RatingPoolSchema))
    default = ChoiceField("Pool", metadata=_doc("The pool of a call that names none"))
    provisional_deviation = fields.Float(
        metadata=_doc("A rating whose deviation is above this is provisional")
    )


@answer()
class RatingChangeSchema(Schema):
    game_id = fields.String()
    pool = ChoiceField("Pool", metadata=_doc("The pool whose rating changed"))
    at = fields.Integer(metadata=_doc("When the rating changed (ms since the epoch)"))
    opponent = fields.String(
        metadata=_doc("The opponent's player id, or `bot:<level>`; `erased` once the app "
                      "erased that player (DELETE /v1/players/{id})")
    )  # fmt: skip
    score = fields.Float(metadata=_doc("1 won, 0 lost"))
    rating_before = fields.Float()
    rating = fields.Float()
    deviation = fields.Float()
    volatility = fields.Float()


@answer()
class RatingHistorySchema(Schema):
    changes = fields.List(fields.Nested(RatingChangeSchema), metadata=_doc("Newest first"))
    next_cursor = next_cursor_field("Where the next page starts; null: this is the last")


@answer()
class PlayerGameSchema(Schema):
    game_id = fields.String()
    started = fields.Integer(metadata=_doc("ms since the epoch"))
    rated = fields.Boolean(
        allow_none=True,
        metadata=_doc("Whether the game is rated (docs/rules.md, rated games); null when the "
                      "game can no longer be read"),
    )  # fmt: skip
    pool = ChoiceField(
        "Pool",
        allow_none=True,
        metadata=_doc("The game's rating pool; null when the game can no longer be read"),
    )


@answer("next_before")
class PlayerGamesSchema(Schema):
    games = fields.List(fields.Nested(PlayerGameSchema), metadata=_doc("Newest first"))
    next_before = fields.Integer(allow_none=True)
    next_cursor = next_cursor_field("Where the next page starts; null: this is the last")


@answer()
class ExportedGameSchema(Schema):
    game_id = fields.String()
    started = fields.Integer(metadata=_doc("ms since the epoch"))


@answer()
class PlayerExportSchema(Schema):
    """Everything the service holds about one player of the app (GET
    /v1/players/{id}/export), before the app erases it."""

    player = fields.Nested(OwnPlayerSchema, metadata=_doc("Its record and rating"))
    ratings = fields.List(
        fields.Nested(RatingChangeSchema), metadata=_doc("Its whole rating history, newest first")
    )
    games = fields.List(
        fields.Nested(ExportedGameSchema), metadata=_doc("Every game it played, newest first")
    )
    webhook_deliveries = fields.List(
        fields.Nested(DeliverySchema),
        metadata=_doc("The webhook deliveries kept for the app whose body names the player"),
    )
    exported = fields.Float(metadata=_doc("When the export was made (s since the epoch)"))


class SeekRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    variant = ChoiceField("Variant", load_default="head")
    rated = TrueOrFalse(load_default=False)
    min_rating = fields.Float(
        validate=validate.Range(min=0, max=4000),
        metadata=_doc("The lowest opponent rating accepted (never widened)"),
    )
    max_rating = fields.Float(
        validate=validate.Range(min=0, max=4000),
        metadata=_doc("The highest opponent rating accepted (never widened)"),
    )
    clock = fields.Nested(
        ClockSchema, metadata=_doc("A time control: paired only with seeks of the same one")
    )


class SeekWaitQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=30),
        metadata=_doc("Seconds to wait for a pairing (at most 30); each wait keeps the seek "
                      "alive"),
    )  # fmt: skip


@answer()
class SeekSchema(Schema):
    seek_id = fields.String()
    status = fields.String(
        validate=validate.OneOf(["waiting", "paired", "cancelled", "expired"]),
        metadata=_doc("waiting; paired (game_id, seat and token say where to play); cancelled; "
                      "expired: nobody waited on it for SCHNAPSEN_SEEK_ALIVE_SECONDS"),
    )  # fmt: skip
    variant = ChoiceField("Variant")
    rated = fields.Boolean()
    clock = fields.Nested(
        ClockSchema, allow_none=True, metadata=_doc("The game's time control; null: none")
    )
    game_id = fields.String(allow_none=True, metadata=_doc("The game made; null until then"))
    seat = SeatField(allow_none=True, metadata=_doc("Your seat in the game; null until then"))
    token = fields.String(
        allow_none=True, metadata=_doc("Your seat's token in the game; null until then")
    )


class ChallengeRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    player_id = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata=_doc("The player of your app you challenge"),
    )
    variant = ChoiceField("Variant", load_default="head")
    rated = TrueOrFalse(load_default=False)
    clock = fields.Nested(ClockSchema, metadata=_doc("A time control for the game"))


@answer()
class ChallengeSchema(Schema):
    challenge_id = fields.String()
    challenger = fields.String(metadata=_doc("The player who challenged"))
    challenged = fields.String(metadata=_doc("The player challenged"))
    variant = ChoiceField("Variant")
    rated = fields.Boolean()
    clock = fields.Nested(
        ClockSchema, allow_none=True, metadata=_doc("The game's time control; null: none")
    )
    status = fields.String(
        validate=validate.OneOf(["offered", "accepted", "declined", "cancelled", "expired"]),
        metadata=_doc("offered (for SCHNAPSEN_CHALLENGE_SECONDS); accepted: game_id, seat and "
                      "token say where you play; declined; cancelled; expired"),
    )  # fmt: skip
    game_id = fields.String(allow_none=True, metadata=_doc("The game made; null until then"))
    seat = SeatField(allow_none=True, metadata=_doc("Your seat in the game; null until then"))
    token = fields.String(
        allow_none=True, metadata=_doc("Your seat's token in the game; null until then")
    )


@answer()
class ChallengeListSchema(Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), metadata=_doc("Newest first"))
