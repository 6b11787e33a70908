"""A game's seats record: who sits where, the hashes of their tokens, the nonces their
secrets are derived from, the invite, the seed of a seeded game, its time control, and
the game a rematch was made from.

The log keeps it as one flat hash of strings beside the events (``GameLog``:
``seats`` of ``load`` and ``append``). This module is its only reader and
writer, so the field names and their forms live here once, and the commands
ask typed questions (is seat 1 a bot? has it joined?) instead of string keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from service.game.clock import TimeControl

#: How the record names a bot seat's player: ``bot:<level>``.
_BOT_PREFIX = "bot:"
#: The field that marks a seat whose player was erased: ``erased:<seat>`` = ``1``.
ERASED_FIELD = "erased:"
#: The field that names a seat's player: ``pid:<seat>`` = ``pl_...``.
PLAYER_FIELD = "pid:"


class PlayerKind(StrEnum):
    """Who plays a seat: a person with a token, or a bot moved by the service's workers."""

    HUMAN = "human"
    BOT = "bot"


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: a person (whose token's hash is here once the seat is taken) or a bot."""

    kind: PlayerKind = PlayerKind.HUMAN
    #: A bot's level; None for a person.
    level: str | None = None
    #: The SHA-256 of the seat's token; the token itself is never stored.
    token_hash: str | None = None
    #: What the token is derived from, so a replayed answer can give it again.
    nonce: str | None = None
    #: The player of the owner's client app who sits here (``pl_...``); None: anonymous.
    player: str | None = None
    #: The player who sat here was erased by its app (``service.store.player_erasure``):
    #: the seat shows as an anonymous placeholder, and no player is named.
    erased: bool = False

    @property
    def bot(self) -> bool:
        return self.kind is PlayerKind.BOT

    @property
    def joined(self) -> bool:
        """A bot sits from the start; a person once its token exists."""
        return self.bot or self.token_hash is not None


@dataclass(frozen=True, slots=True)
class Seats:
    """The seats record of one game (see the module's docstring)."""

    seats: tuple[Seat, Seat] = field(default_factory=lambda: (Seat(), Seat()))
    #: The SHA-256 of the invite to seat 1, and what it is derived from (people only).
    invite_hash: str | None = None
    invite_nonce: str | None = None
    #: The creator's seed: every later deck of the game follows it.
    seed: int | None = None
    #: The client app whose key created the game (None: an anonymous caller). Its
    #: listing and its export show the game, from Redis or from the archive.
    owner: str | None = None
    #: Whether the game's end changes its players' ratings (``service.game.ratings``).
    rated: bool = False
    #: The finished game this one is the rematch of (None: a game of its own). The old
    #: game finds its rematch by the id derived from its own (``service.game.rematch``).
    rematch_of: str | None = None
    #: How the game was made when not by a create: "seek" (a pairing) or "challenge".
    via: str | None = None
    #: The game's time control (None: no clock, as every game before clocks).
    clock: TimeControl | None = None
    #: The tournament whose pairing made the game (None: no tournament's). The live
    #: listing finds a tournament's games in play by it.
    tournament: str | None = None

    def __getitem__(self, seat: int) -> Seat:
        return self.seats[seat]

    def with_seat(self, seat: int, taken: Seat) -> Seats:
        """The record with ``seat`` as ``taken``."""
        seats = (taken, self.seats[1]) if seat == 0 else (self.seats[0], taken)
        return replace(self, seats=seats)

    def for_rematch(self, of: str) -> Seats:
        """The record of the rematch of game ``of``: everything this one says of its
        seats and settings, but its secrets (tokens, nonces, the invite) and its seed.

        Copied by ``replace``, so a field added to the record later is carried over
        too; the secrets belong to one game (a rematch draws its own), and a seed
        would deal the rematch the decks its creator already knows.
        """
        seats = (
            replace(self.seats[0], token_hash=None, nonce=None),
            replace(self.seats[1], token_hash=None, nonce=None),
        )
        return replace(
            self,
            seats=seats,
            invite_hash=None,
            invite_nonce=None,
            seed=None,
            rematch_of=of,
            via=None,  # a rematch is made by its offer, not by a pairing or a challenge
            tournament=None,  # nor is it a board of the tournament its game was
        )

    @property
    def player_ids(self) -> tuple[str | None, str | None]:
        """The players of the owner's app at seats 0 and 1 (None: anonymous, or a bot)."""
        return (self.seats[0].player, self.seats[1].player)

    @property
    def against_bot(self) -> bool:
        return any(seat.bot for seat in self.seats)

    def bot_level(self, seat: int | None) -> str | None:
        """The level of the bot at ``seat``; None for a person's seat (or no seat)."""
        if seat is None or not self.seats[seat].bot:
            return None
        return self.seats[seat].level

    @property
    def players(self) -> list[dict[str, Any]]:
        """Who sits where, as a game's view shows it: a person or a bot of some level."""
        players: list[dict[str, Any]] = []
        for number, seat in enumerate(self.seats):
            if seat.bot:
                players.append({"seat": number, "type": "bot", "level": seat.level, "joined": True})
            else:
                player: dict[str, Any] = {"seat": number, "type": "human", "joined": seat.joined}
                if seat.player is not None:
                    player["player_id"] = seat.player
                if seat.erased:
                    player["erased"] = True
                players.append(player)
        return players

    def encode(self) -> dict[str, str]:
        """The record as the log's hash of strings."""
        fields: dict[str, str] = {}
        for number, seat in enumerate(self.seats):
            fields[f"player:{number}"] = (
                f"{_BOT_PREFIX}{seat.level}" if seat.bot else PlayerKind.HUMAN.value
            )
            if seat.token_hash is not None:
                fields[f"token:{number}"] = seat.token_hash
            if seat.nonce is not None:
                fields[f"nonce:{number}"] = seat.nonce
            if seat.player is not None:
                fields[f"pid:{number}"] = seat.player
            if seat.erased:
                fields[f"{ERASED_FIELD}{number}"] = "1"
        if self.invite_hash is not None:
            fields["invite"] = self.invite_hash
        if self.invite_nonce is not None:
            fields["invite_nonce"] = self.invite_nonce
        if self.seed is not None:
            fields["seed"] = str(self.seed)
        if self.owner is not None:
            fields["owner"] = self.owner
        if self.rated:
            fields["rated"] = "1"
        if self.rematch_of is not None:
            fields["rematch_of"] = self.rematch_of
        if self.via is not None:
            fields["via"] = self.via
        if self.clock is not None:
            fields["clock"] = self.clock.encode()
        if self.tournament is not None:
            fields["tournament"] = self.tournament
        return fields

    @classmethod
    def decode(cls, fields: Mapping[str, str]) -> Seats:
        """The record from the log's hash (an empty hash: two empty seats of people)."""

        def seat(number: int) -> Seat:
            player = fields.get(f"player:{number}", PlayerKind.HUMAN.value)
            token_hash = fields.get(f"token:{number}")
            nonce = fields.get(f"nonce:{number}")
            if player.startswith(_BOT_PREFIX):
                level = player.removeprefix(_BOT_PREFIX)
                return Seat(PlayerKind.BOT, level, token_hash, nonce)
            return Seat(
                PlayerKind.HUMAN,
                None,
                token_hash,
                nonce,
                fields.get(f"pid:{number}"),
                erased=fields.get(f"{ERASED_FIELD}{number}") == "1",
            )

        seed = fields.get("seed")
        clock = fields.get("clock")
        return cls(
            (seat(0), seat(1)),
            invite_hash=fields.get("invite"),
            invite_nonce=fields.get("invite_nonce"),
            seed=None if seed is None else int(seed),
            owner=fields.get("owner"),
            rated=fields.get("rated") == "1",
            rematch_of=fields.get("rematch_of"),
            clock=None if clock is None else TimeControl.decode(clock),
            via=fields.get("via"),
            tournament=fields.get("tournament"),
        )
