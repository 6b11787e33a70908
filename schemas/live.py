"""Requests and answers of the live games: an app's games in play and its featured game."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.components import ChoiceField, SeatField
from schemas.games import PlayerSchema, answer
from schemas.paging import cursor_parameter, next_cursor_field

#: What a tournament's id may look like in a query: any other text is 422, never looked up.
TOURNAMENT_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: The highest rating a filter may name: far above any Glicko-2 rating a game reaches.
MAX_RATING = 10_000


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class LiveGamesQuerySchema(Schema):
    """A page of an app's games in play. Unknown parameters are refused (422), so a
    misspelt filter is never read as no filter."""

    class Meta:
        unknown = RAISE

    pool = ChoiceField("Pool", metadata=_doc("Only games of this rating pool"))
    min_rating = fields.Integer(
        validate=validate.Range(min=1, max=MAX_RATING),
        metadata=_doc("Only games whose rating (the mean of their seats' ratings in their "
                      "pool when they began) is at least this; games with no rated seat "
                      "are left out"),
    )  # fmt: skip
    tournament = fields.String(
        validate=[validate.Length(min=1, max=64), validate.Regexp(TOURNAMENT_ID_PATTERN)],
        metadata={
            **_doc("Only the boards of this tournament of the app (`tournament_id`); "
                   "another app's tournament, or an unknown id: 404"),
            "pattern": TOURNAMENT_ID_PATTERN,
        },
    )  # fmt: skip
    limit = fields.Integer(
        load_default=20,
        validate=validate.Range(min=1, max=50),
        metadata=_doc("Most games on one page"),
    )
    cursor = cursor_parameter(
        "The `next_cursor` of the previous page of the same filters, as it came"
    )


@answer("level", "player_id", "erased")
class LivePlayerSchema(PlayerSchema):
    name = fields.String(
        allow_none=True,
        metadata=_doc("The display name of the player at this seat; null for a bot, an "
                      "anonymous or an erased seat"),
    )  # fmt: skip
    rating = fields.Integer(
        allow_none=True,
        metadata=_doc("The seat's rating in the game's pool now, rounded (a bot: the fixed "
                      "rating it stands at); null for an anonymous or erased seat"),
    )  # fmt: skip


@answer()
class LiveLinksSchema(Schema):
    view = fields.String(metadata=_doc("A spectator's view: GET, no token"))
    stream = fields.String(metadata=_doc("The spectator's event stream (Server-Sent Events)"))
    board = fields.String(metadata=_doc("The live board page, which follows the stream"))


@answer()
class LiveGameSchema(Schema):
    """A game in play as any spectator may read it: no token, no invite, no card."""

    game_id = fields.String()
    pool = ChoiceField("Pool", metadata=_doc("The rating pool of its variant and clock"))
    rated = fields.Boolean(metadata=_doc("Its end changes the players' ratings"))
    variant = ChoiceField("Variant")
    rating = fields.Integer(
        allow_none=True,
        metadata=_doc("The game's rating, which orders the listing: the mean of its seats' "
                      "ratings in its pool when it began, rounded; null when no seat is rated"),
    )  # fmt: skip
    tournament = fields.String(
        allow_none=True,
        metadata=_doc("The tournament whose round this game is a board of "
                      "(`tournament_id`); null for any other game"),
    )  # fmt: skip
    version = fields.Integer(metadata=_doc("The game's version: the number of its events"))
    game_points = fields.List(fields.Integer())
    to_move = SeatField(allow_none=True)
    players = fields.List(fields.Nested(LivePlayerSchema))
    links = fields.Nested(LiveLinksSchema)


@answer()
class LiveGameListSchema(Schema):
    games = fields.List(
        fields.Nested(LiveGameSchema),
        metadata=_doc("Highest rating first; of one rating, by id (descending)"),
    )
    next_cursor = next_cursor_field("Pass as `cursor` for the next page; null on the last")


__all__ = [
    "LiveGameListSchema",
    "LiveGameSchema",
    "LiveGamesQuerySchema",
    "LiveLinksSchema",
    "LivePlayerSchema",
    "MAX_RATING",
    "TOURNAMENT_ID_PATTERN",
]
