"""A studio's backend written against the client openapi-python-client generates from
openapi.yaml (package ``schnapsen_client``): every call is a generated
``sync_detailed`` and every answer read as the model its operation names.

Two players of one client app register, seek and are paired, play the game out
seat by seat, offer and accept a rematch, challenge each other to a game on a
clock; the app registers a webhook on its own receiver on 127.0.0.1 and reads
each notice as the model of its kind (chosen by ``type``), reads its
deliveries, and takes its bulk export, each NDJSON line read as a
``GameExportLine``. tests/contract/test_studio_flow.py checks this file with
``mypy --strict`` and runs it against a live server:
``python python_flow.py <base_url> <client_key> <out.json>``; ``out.json`` gets
every answer and notice (the test validates them against the spec) and what
the models did not read back as sent.
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
import threading
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Protocol, TypeVar

from schnapsen_client import AuthenticatedClient
from schnapsen_client.api.challenges import accept_challenge, create_challenge, list_challenges
from schnapsen_client.api.exports import export_games
from schnapsen_client.api.games import get_game, list_events, resign_game, take_action
from schnapsen_client.api.players import (
    erase_player,
    export_player,
    get_own_player,
    get_rating_history,
    list_own_games,
    register_player,
)
from schnapsen_client.api.rematch import accept_rematch, offer_rematch
from schnapsen_client.api.seeks import create_seek, get_seek
from schnapsen_client.api.tournaments import (
    create_tournament,
    get_tournament,
    get_tournament_boards,
    join_tournament,
)
from schnapsen_client.api.webhooks import (
    create_webhook,
    get_webhook,
    list_deliveries,
    list_webhooks,
)
from schnapsen_client.models import (
    Boards,
    Challenge,
    ChallengeAcceptedNotice,
    ChallengeList,
    ChallengeRequest,
    Clock,
    ClockOnTimeout,
    ClockView,
    CreateTournament,
    DeliveryList,
    Entry,
    EventFeed,
    ExportGamesClient,
    GameExportLine,
    GameFinishedNotice,
    GameStartedNotice,
    GameStatus,
    GameTurnNotice,
    GameView,
    ListEventsInclude,
    NoticeKind,
    OwnPlayer,
    PlayerExport,
    PlayerGames,
    RatingHistory,
    RegisteredPlayer,
    RegisterPlayer,
    Rematch,
    RematchOfferedNotice,
    RematchSeated,
    Seat,
    Seek,
    SeekPairedNotice,
    SeekRequest,
    SeekStatus,
    Tournament,
    TournamentFinishedNotice,
    TournamentNoticeDataStatus,
    TournamentRoundPairedNotice,
    TournamentStartedNotice,
    TournamentStatus,
    Variant,
    Webhook,
    WebhookList,
    WebhookRequest,
)

M = TypeVar("M")
GAME = "/v1/games/{game_id}"

Notice = (
    GameStartedNotice
    | GameTurnNotice
    | GameFinishedNotice
    | SeekPairedNotice
    | ChallengeAcceptedNotice
    | RematchOfferedNotice
    | TournamentStartedNotice
    | TournamentRoundPairedNotice
    | TournamentFinishedNotice
)
NOTICES: dict[NoticeKind, type[Notice]] = {
    NoticeKind.GAME_STARTED: GameStartedNotice,
    NoticeKind.GAME_TURN: GameTurnNotice,
    NoticeKind.GAME_FINISHED: GameFinishedNotice,
    NoticeKind.SEEK_PAIRED: SeekPairedNotice,
    NoticeKind.CHALLENGE_ACCEPTED: ChallengeAcceptedNotice,
    NoticeKind.REMATCH_OFFERED: RematchOfferedNotice,
    NoticeKind.TOURNAMENT_STARTED: TournamentStartedNotice,
    NoticeKind.TOURNAMENT_ROUND_PAIRED: TournamentRoundPairedNotice,
    NoticeKind.TOURNAMENT_FINISHED: TournamentFinishedNotice,
}


class ContractError(RuntimeError):
    """An answer the contract does not lead a client to expect."""


class Answer(Protocol):
    """What a generated ``sync_detailed`` returns (a ``Response``), read only."""

    @property
    def status_code(self) -> HTTPStatus: ...
    @property
    def content(self) -> bytes: ...
    @property
    def headers(self) -> MutableMapping[str, str]: ...
    @property
    def parsed(self) -> object: ...


@dataclass
class Recorder:
    """Every answer with the operation (the spec's path template) it answers, and what
    the generated models did not read back exactly as it was sent."""

    answers: list[dict[str, object]] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    def take(self, method: str, template: str, response: Answer) -> object:
        self.answers.append(
            {
                "method": method,
                "path": template,
                "status": int(response.status_code),
                "content_type": response.headers.get("content-type", ""),
                "body": base64.b64encode(response.content).decode(),
            }
        )
        return response.parsed


def expect(answer: object, model: type[M], what: str) -> M:
    """``answer`` as ``model``, or the contract is broken."""
    if not isinstance(answer, model):
        raise ContractError(f"{what}: {answer!r}")
    return answer


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``condition`` until it holds; the bound only ends a hang."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise ContractError(f"no {what} within {seconds} s")
        time.sleep(0.2)


class Inbox:
    """A webhook endpoint on 127.0.0.1: keeps each delivery's body and headers."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str]]] = []
        self.lock = threading.Lock()
        inbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {name.lower(): value for name, value in self.headers.items()}
                with inbox.lock:
                    inbox.received.append((body.decode(), headers))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                """Quiet: the flow prints its own summary."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def notices(self) -> list[tuple[str, dict[str, str]]]:
        with self.lock:
            return list(self.received)


def read_notice(recorder: Recorder, body: str) -> Notice | None:
    """The typed notice of a delivery's JSON body, chosen by its ``type``."""
    sent: dict[str, object] = json.loads(body)
    kind = NoticeKind(str(sent["type"]))
    notice = NOTICES[kind].from_dict(sent)
    if notice.to_dict() != sent:
        recorder.mismatches.append(f"notice {kind.value} reads back as {notice.to_dict()}")
        return None
    if isinstance(notice, GameTurnNotice) and notice.data.game.to_move != notice.data.seat:
        recorder.mismatches.append("a game.turn notice for a seat not to move")
    if isinstance(notice, GameFinishedNotice) and notice.data.game.status != GameStatus.FINISHED:
        recorder.mismatches.append(f"a game.finished notice of a {notice.data.game.status} game")
    if isinstance(notice, TournamentRoundPairedNotice) and not notice.data.boards:
        recorder.mismatches.append("a tournament.round_paired notice of no board")
    if isinstance(notice, TournamentFinishedNotice) and (
        notice.data.status != TournamentNoticeDataStatus.FINISHED
    ):
        recorder.mismatches.append(f"a tournament.finished notice of a {notice.data.status} one")
    return notice


def read_export(recorder: Recorder, text: str) -> list[GameExportLine]:
    """Each NDJSON line of the bulk export as a GameExportLine."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        sent: dict[str, object] = json.loads(line)
        read = GameExportLine.from_dict(sent)
        if read.to_dict() != sent:
            recorder.mismatches.append(f"export line {number} reads back differently")
        lines.append(read)
    return lines


@dataclass
class Studio:
    """The studio's backend: its client app's key and what it received."""

    base_url: str
    key: str
    recorder: Recorder

    @property
    def app(self) -> AuthenticatedClient:
        return AuthenticatedClient(
            base_url=self.base_url, token=self.key, prefix="", auth_header_name="X-Client-Key"
        )

    def as_(self, token: str) -> AuthenticatedClient:
        """A player's or a seat's token, sent with the app's key."""
        return AuthenticatedClient(
            base_url=self.base_url, token=token, headers={"X-Client-Key": self.key}
        )

    def register(self, name: str) -> RegisteredPlayer:
        body = RegisterPlayer(app_player_id=f"{name.lower()}-{secrets.token_hex(4)}", name=name)
        answer = register_player.sync_detailed(client=self.app, body=body)
        return expect(self.recorder.take("post", "/v1/players", answer), RegisteredPlayer, name)

    def view(self, seat: AuthenticatedClient, game_id: str) -> GameView:
        answer = get_game.sync_detailed(game_id, client=seat)
        return expect(self.recorder.take("get", GAME, answer), GameView, "view")

    def play_out(self, seats: dict[Seat, AuthenticatedClient], game_id: str) -> GameView:
        """Both seats take their first legal action on their turns until the game is over."""
        view = self.view(seats[Seat.VALUE_0], game_id)
        while view.status != GameStatus.FINISHED:
            if view.to_move is None:
                feed = list_events.sync_detailed(
                    game_id, client=seats[Seat.VALUE_0], after=view.version, wait=5,
                    include=ListEventsInclude.VIEW,
                )  # fmt: skip
                read = expect(self.recorder.take("get", f"{GAME}/events", feed), EventFeed, "feed")
                view = read.view if isinstance(read.view, GameView) else view
                continue
            mover = seats[view.to_move]
            mine = self.view(mover, game_id)
            if mine.to_move != mine.seat or mine.deal is None or not mine.deal.legal_actions:
                view = mine
                continue
            acted = take_action.sync_detailed(
                game_id, client=mover, body=mine.deal.legal_actions[0]
            )
            view = expect(self.recorder.take("post", f"{GAME}/actions", acted), GameView, "act")
        return view

    def resign(self, token: str, game_id: str) -> GameView:
        answer = resign_game.sync_detailed(game_id, client=self.as_(token))
        return expect(self.recorder.take("post", f"{GAME}/resign", answer), GameView, "resign")


Received = list[tuple[str, dict[str, str]]]


def flow(studio: Studio, inbox: Inbox) -> tuple[Received, list[Notice], list[GameExportLine]]:
    take = studio.recorder.take
    hook = create_webhook.sync_detailed(client=studio.app, body=WebhookRequest(url=inbox.url))
    webhook = expect(take("post", "/v1/webhooks", hook), Webhook, "webhook")
    anna, ben = studio.register("Anna"), studio.register("Ben")
    me = get_own_player.sync_detailed(client=studio.as_(anna.token))
    expect(take("get", "/v1/players/me", me), OwnPlayer, "me")

    # Matchmaking: two seeks paired into a game, each seat learns its own token.
    paired: list[Seek] = []
    for player in (anna, ben):
        asked = create_seek.sync_detailed(
            client=studio.as_(player.token), body=SeekRequest(variant=Variant.HEAD)
        )
        paired.append(expect(take("post", "/v1/seeks", asked), Seek, "seek"))
    for index, (player, seek) in enumerate(zip((anna, ben), paired, strict=True)):
        waited = get_seek.sync_detailed(seek.seek_id, client=studio.as_(player.token), wait=10)
        paired[index] = expect(take("get", "/v1/seeks/{seek_id}", waited), Seek, "paired")
    seats: dict[Seat, AuthenticatedClient] = {}
    for seek in paired:
        if seek.status != SeekStatus.PAIRED or seek.seat is None or seek.token is None:
            raise ContractError(f"a seek not paired: {seek!r}")
        seats[seek.seat] = studio.as_(seek.token)
    game_id = paired[0].game_id
    if game_id is None or paired[1].game_id != game_id:
        raise ContractError("the seeks were paired into different games")
    final = studio.play_out(seats, game_id)
    if final.winner is None:
        raise ContractError("a finished game without a winner")

    # A rematch: offered by the winner, accepted by the other seat, resigned at once.
    offered = take("post", f"{GAME}/rematch", offer_rematch.sync_detailed(
        game_id, client=seats[final.winner]))  # fmt: skip
    if not isinstance(offered, Rematch | RematchSeated):
        raise ContractError(f"offer: {offered!r}")
    loser = Seat.VALUE_1 if final.winner == Seat.VALUE_0 else Seat.VALUE_0
    accepted = accept_rematch.sync_detailed(game_id, client=seats[loser])
    rematch = expect(take("post", f"{GAME}/rematch/accept", accepted), RematchSeated, "rematch")
    studio.resign(rematch.token, rematch.game_id)

    # A challenge on a clock, accepted, then resigned.
    challenged = create_challenge.sync_detailed(
        client=studio.as_(anna.token),
        body=ChallengeRequest(
            player_id=ben.player.player_id,
            clock=Clock(seconds_per_move=60, on_timeout=ClockOnTimeout.LOSE),
        ),
    )
    challenge = expect(take("post", "/v1/challenges", challenged), Challenge, "challenge")
    listed = list_challenges.sync_detailed(client=studio.as_(ben.token))
    expect(take("get", "/v1/challenges", listed), ChallengeList, "challenges")
    taken = accept_challenge.sync_detailed(challenge.challenge_id, client=studio.as_(ben.token))
    clocked = expect(take("post", "/v1/challenges/{challenge_id}/accept", taken), Challenge, "take")
    if clocked.game_id is None or clocked.token is None:
        raise ContractError(f"an accepted challenge without its game: {clocked!r}")
    on_clock = studio.view(studio.as_(clocked.token), clocked.game_id)
    if not isinstance(on_clock.clock, ClockView):
        raise ContractError("a challenge on a clock made a game without one")
    studio.resign(clocked.token, clocked.game_id)

    # A Swiss of one round for the two: both enter, the round is paired, its game resigned.
    made = create_tournament.sync_detailed(client=studio.app, body=CreateTournament(
        name="Friday Swiss", rounds=1, starts_in=3))  # fmt: skip
    swiss = expect(take("post", "/v1/tournaments", made), Tournament, "tournament")
    tournament = "/v1/tournaments/{tournament_id}"
    for player in (anna, ben):
        entered = join_tournament.sync_detailed(
            swiss.tournament_id, client=studio.as_(player.token)
        )
        expect(take("post", f"{tournament}/entries", entered), Entry, "entry")

    def own_board() -> Boards:
        read = get_tournament_boards.sync_detailed(
            swiss.tournament_id, client=studio.as_(ben.token)
        )
        return expect(take("get", f"{tournament}/boards", read), Boards, "boards")

    wait_for(lambda: any(isinstance(b.token, str) for b in own_board().boards), 60, "the board")
    board = own_board().boards[0]
    if not isinstance(board.token, str):
        raise ContractError(f"a player's own board without its token: {board!r}")
    studio.resign(board.token, board.game_id)

    def over() -> bool:
        read = get_tournament.sync_detailed(swiss.tournament_id, client=studio.app)
        return expect(take("get", tournament, read), Tournament, "tournament").status == (
            TournamentStatus.FINISHED
        )

    wait_for(over, 60, "the tournament's end")

    # Every kind of notice arrives; the app reads its webhook and its deliveries.
    def kinds() -> set[str]:
        return {str(json.loads(body)["type"]) for body, _ in inbox.notices()}

    wait_for(lambda: kinds() >= {kind.value for kind in NoticeKind}, 60, "notice of every kind")
    expect(take("get", "/v1/webhooks", list_webhooks.sync_detailed(client=studio.app)),
           WebhookList, "webhooks")  # fmt: skip
    one = get_webhook.sync_detailed(webhook.webhook_id, client=studio.app)
    expect(take("get", "/v1/webhooks/{webhook_id}", one), Webhook, "webhook")
    deliveries = list_deliveries.sync_detailed(webhook.webhook_id, client=studio.app)
    expect(take("get", "/v1/webhooks/{webhook_id}/deliveries", deliveries), DeliveryList, "log")
    own = list_own_games.sync_detailed(client=studio.as_(anna.token))
    expect(take("get", "/v1/players/me/games", own), PlayerGames, "own games")
    ratings = get_rating_history.sync_detailed(anna.player.player_id, client=studio.as_(anna.token))
    expect(take("get", "/v1/players/{player_id}/ratings", ratings), RatingHistory, "ratings")

    # The three finished games, once archived, in the bulk export (NDJSON).
    def exported() -> str:
        answer = export_games.sync_detailed(client=studio.app, client_query=ExportGamesClient.ME)
        return answer.parsed if isinstance(answer.parsed, str) else ""

    wait_for(lambda: len(exported().splitlines()) >= 3, 180, "archived games in the export")
    export = export_games.sync_detailed(client=studio.app, client_query=ExportGamesClient.ME)
    text = expect(take("get", "/v1/games/export", export), str, "export")

    # A data-protection request: everything held about Anna, then her erasure (204),
    # asked again (404: she is gone).
    held = export_player.sync_detailed(anna.player.player_id, client=studio.app)
    expect(take("get", "/v1/players/{player_id}/export", held), PlayerExport, "player export")
    for _ in range(2):
        erased = erase_player.sync_detailed(anna.player.player_id, client=studio.app)
        take("delete", "/v1/players/{player_id}", erased)
    received = inbox.notices()
    notices = [read for body, _ in received if (read := read_notice(studio.recorder, body))]
    return received, notices, read_export(studio.recorder, text)


def main(argv: list[str]) -> int:
    base_url, key, out = argv
    studio = Studio(base_url, key, Recorder())
    inbox = Inbox()
    try:
        got, notices, lines = flow(studio, inbox)
    finally:
        inbox.server.shutdown()
    received = [{"body": body, "headers": headers} for body, headers in got]
    Path(out).write_text(json.dumps({
        "answers": studio.recorder.answers,
        "notices": received,
        "mismatches": studio.recorder.mismatches,
        "read": {"notices": len(notices), "export_lines": len(lines)},
    }))  # fmt: skip
    print(f"answers: {len(studio.recorder.answers)}, notices read: {len(notices)} "
          f"of {len(received)}, export lines read: {len(lines)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
