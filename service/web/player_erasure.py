"""Erasing a player of a client app: its name and ids leave every store, its games stay.

An app erases one of its players (``DELETE /v1/players/{id}``, docs/api.md,
"Erasing a player"). What the service held of the player, and what becomes of it:

- its record (name, the app's id for it, its token's hash, its rating), its rating
  history and its games list: deleted, last, so that an erasure cut short is
  finished by asking again (the player is still there to be found);
- its token: revoked first, so it opens nothing while the rest is done;
- the kept answers of its keyed registrations (name, ids, token), each listed with
  the player when kept (``service.store.answers``): deleted, so a retry of one is a
  new registration, answered with a new player id and token;
- its seat in each of its games (Redis and the archive): the player's id goes and
  the seat is marked ``erased`` (an anonymous placeholder); the game itself, its
  events and result, stays readable and replayable. A game still in play goes on:
  its seats' tokens are untouched, and a rated one rates nobody at its end (the
  erased seat has no rating; the opponent's stays as it was). A game being archived
  while this runs: the archiving job, after writing its row, reads the seats again and
  rewrites the row with them if they changed (``service.store.archiving``), so a row
  written from seats read before the erasure does not keep the player;
- its opponents' rating histories: each entry keeps its numbers, its ``opponent``
  becomes ``erased``; the pair marks of recent rated games (RX8) stop naming it;
- webhook deliveries kept for the app: their bodies' ``player_id`` becomes null; an
  attempt in flight records its outcome with the body the delivery holds then
  (``service.store.webhooks``), so it does not write the old body back;
- built replay exports of its games at their current version: deleted (built again
  on request, anonymised); a waiting seek ends; its challenges are deleted.

Each step is safe to repeat. Nothing here is held in memory beyond one page of
the player's games.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.game.commands import GameService
from service.game.problems import GameNotFound
from service.game.replay_export import EXTENSIONS
from service.game.seats import ERASED_FIELD, PLAYER_FIELD, Seats
from service.jobs.queues import export_id_for
from service.store import archive_codec
from service.store.answers import StoredAnswers, player_owner
from service.store.archive import Archive, ArchiveRecord
from service.store.archived_log import ArchivedLog
from service.store.challenges import Challenges
from service.store.events import keys
from service.store.exports import ExportStore
from service.store.player_records import Players
from service.store.players import UnknownPlayer
from service.store.redis_clients import AnyRedis
from service.store.scripts import Script, lua_script
from service.store.seeks import SeekPool
from service.store.webhooks import WebhookStore

#: The player's games anonymised per page (one page of ids held at a time).
PAGE = 200


@dataclass(frozen=True)
class PlayerErasure:
    """Erases players of client apps from every store (see the module's docstring)."""

    players: Players
    games: GameService
    redis: AnyRedis
    archive: Archive | None
    log: ArchivedLog | None
    webhooks: WebhookStore
    exports: ExportStore
    seeks: SeekPool
    challenges: Challenges
    secret: bytes
    answers: StoredAnswers

    def erase(self, app: str, player_id: str) -> bool:
        """Erase the app's player; False when the app has no such player (any more)."""
        try:
            self.players.get(app, player_id)
        except UnknownPlayer:
            return False
        self.players.revoke(app, player_id)
        self.answers.forget_owner(player_owner(app, player_id))
        self.seeks.forget_player(app, player_id)
        self.challenges.forget_player(app, player_id)
        after = None
        while True:
            page = self.players.games_page(app, player_id, after, PAGE)
            opponents = [(game.game_id, self._anonymise(game.game_id, player_id)) for game in page]
            self.players.anonymise_ratings(app, player_id, opponents)
            if len(page) < PAGE:
                break
            after = page[-1]
        self.webhooks.anonymise(app, player_id)
        return self.players.forget(app, player_id)

    def _anonymise(self, game_id: str, player_id: str) -> str | None:
        """Anonymise the player's seat in one game, wherever the game is kept: the
        opponent's player id there (None: a bot, an anonymous seat, or no game)."""
        try:
            current = self.games.current(game_id)
        except GameNotFound:
            return None
        seats = current.seats
        opponent = None
        for number in (0, 1):
            seat = seats[number]
            if seat.player == player_id or seat.erased:
                other = seats[1 - number]
                opponent = other.player if other.player != player_id else None
        Script(self.redis, lua_script("seat_anonymise"))(
            keys=[keys(game_id)["seats"]], args=[player_id]
        )  # a game Redis no longer holds gets no key: the script finds no seat
        if self.archive is not None:
            self._rewrite_archived(game_id, player_id)
        self.exports.delete(
            [
                export_id_for(game_id, current.version, viewer, export_format, self.secret)
                for viewer in (None, 0, 1)
                for export_format in EXTENSIONS
            ]
        )
        return opponent

    def _rewrite_archived(self, game_id: str, player_id: str) -> None:
        """The archived game's seats without the player (nothing when not archived, or
        anonymised already)."""
        assert self.archive is not None
        record = self.archive.get(game_id)
        if record is None:
            return
        game = archive_codec.decode(record.data)
        fields = game.seat_fields
        changed = False
        for number in (0, 1):
            if fields.get(f"{PLAYER_FIELD}{number}") == player_id:
                del fields[f"{PLAYER_FIELD}{number}"]
                fields[f"{ERASED_FIELD}{number}"] = "1"
                changed = True
        if changed:
            Seats.decode(fields)  # still a record the game reads
            anonymous = archive_codec.ArchivedGame.of(game_id, game.events, game.times, fields)
            self.archive.rewrite(
                ArchiveRecord(
                    game_id=record.game_id,
                    client_id=record.client_id,
                    variant=record.variant,
                    status=record.status,
                    created_ms=record.created_ms,
                    ended_ms=record.ended_ms,
                    data=archive_codec.encode(anonymous),
                    digest=archive_codec.digest(anonymous),
                )
            )
        if self.log is not None:
            self.log.forget(game_id)
