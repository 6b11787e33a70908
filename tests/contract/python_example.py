"""A client app written against the Python client that openapi-python-client
generates from openapi.yaml (package ``schnapsen_client``).

It is what an integrator writes: create a game against a bot with a client
app's key, wait for its seat's turn, post a legal action exactly as the view
lists it (no cast, no dict), and read a bot-move job's typed result. Then,
without any key, create a game, play it to the end, and read its replay at
every version as the seat and as a spectator (a plain ``Client``: no token).
tests/contract/test_python_client.py checks it with ``mypy --strict`` and runs
it against a live server: ``python python_example.py <base_url> <client_key>``.
"""

from __future__ import annotations

import sys
import time

from schnapsen_client import AuthenticatedClient, Client
from schnapsen_client.api.bots import get_job, request_bot_move
from schnapsen_client.api.games import (
    create_game,
    get_replay,
    list_events,
    take_action,
)
from schnapsen_client.models import (
    ActionTakenEvent,
    BotDecision,
    BotLevel,
    BotMoveRequest,
    Card,
    CreateGame,
    DealStartedEvent,
    EventFeed,
    GameStatus,
    GameView,
    JobStatus,
    ListEventsInclude,
    MoveJob,
    Opponent,
    OpponentType,
    Position,
    Replay,
    Seat,
    Seated,
    TrickStep,
)
from schnapsen_client.types import UNSET


class ContractError(RuntimeError):
    """The server answered something the contract does not lead a client to expect."""


def wait_for_turn(seat: AuthenticatedClient, game: GameView) -> GameView:
    """The view once it is the seat's turn (the bot may lead first)."""
    view = game
    while view.to_move != view.seat:
        feed = list_events.sync(
            view.game_id, client=seat, after=view.version, wait=10, include=ListEventsInclude.VIEW
        )
        if not isinstance(feed, EventFeed):
            raise ContractError(f"events: {feed!r}")
        if isinstance(feed.view, GameView):
            view = feed.view
    return view


def play_one_action(base_url: str, client_key: str) -> GameView:
    """Create a game against the heuristic bot and take one legal action."""
    app = AuthenticatedClient(
        base_url=base_url, token=client_key, prefix="", auth_header_name="X-Client-Key"
    )
    seated = create_game.sync(
        client=app,
        body=CreateGame(opponent=Opponent(type_=OpponentType.BOT, level=BotLevel.HEURISTIC)),
    )
    if not isinstance(seated, Seated):
        raise ContractError(f"create: {seated!r}")
    seat = AuthenticatedClient(base_url=base_url, token=seated.token)
    view = wait_for_turn(seat, seated.game)
    if view.deal is None or not view.deal.legal_actions:
        raise ContractError("my turn, but no legal action")
    action = view.deal.legal_actions[0]  # an Action: posted as it is
    after = take_action.sync(view.game_id, client=seat, body=action)
    if not isinstance(after, GameView) or after.version <= view.version:
        raise ContractError(f"action: {after!r}")
    return after


def bot_decision(base_url: str, client_key: str) -> BotDecision:
    """Ask the bot-move service for a move and read the job's typed result."""
    app = AuthenticatedClient(
        base_url=base_url, token=client_key, prefix="", auth_header_name="X-Client-Key"
    )
    position = Position(
        seat=Seat.VALUE_0,
        dealer=Seat.VALUE_1,
        hand=[Card.AS, Card.TS, Card.KH, Card.QH, Card.JD],
        trump_card=Card.QC,
        talon_size=9,
    )
    job = request_bot_move.sync(
        client=app, body=BotMoveRequest(position=position, level=BotLevel.HEURISTIC), wait=10
    )
    if not isinstance(job, MoveJob):
        raise ContractError(f"bot move: {job!r}")
    deadline = time.monotonic() + 60
    while job.status not in (JobStatus.FINISHED, JobStatus.FAILED):
        if time.monotonic() > deadline:
            raise ContractError(f"job {job.id} still {job.status}")
        polled = get_job.sync(job.id, client=app, wait=10)
        if not isinstance(polled, MoveJob):
            raise ContractError(f"job: {polled!r}")
        job = polled
    if not isinstance(job.result, BotDecision):
        raise ContractError(f"job {job.id} {job.status}: {job.error!r}")
    return job.result


def play_to_the_end(seat: AuthenticatedClient, game: GameView) -> GameView:
    """Take the first legal action on each of the seat's turns until the game is over."""
    view = game
    while view.status != GameStatus.FINISHED:
        if view.to_move == view.seat and view.deal is not None and view.deal.legal_actions:
            acted = take_action.sync(view.game_id, client=seat, body=view.deal.legal_actions[0])
            if not isinstance(acted, GameView):
                raise ContractError(f"action: {acted!r}")
            view = acted
            continue
        feed = list_events.sync(
            view.game_id, client=seat, after=view.version, wait=10, include=ListEventsInclude.VIEW
        )
        if not isinstance(feed, EventFeed):
            raise ContractError(f"events: {feed!r}")
        if isinstance(feed.view, GameView):
            view = feed.view
    return view


def read_replay(reader: AuthenticatedClient | Client, game_id: str, at: int | None) -> Replay:
    """The replay as ``reader`` may see it (at version ``at``), its parts typed."""
    replay = get_replay.sync(game_id, client=reader, at=UNSET if at is None else at)
    if not isinstance(replay, Replay):
        raise ContractError(f"replay at {at}: {replay!r}")
    if replay.version != (at or replay.version) or replay.state.version != replay.version:
        raise ContractError(f"replay at {at} is at {replay.version}")
    for event in replay.events:
        if isinstance(event, DealStartedEvent) and len(event.hand) not in (0, 5):
            raise ContractError(f"a deal dealt a hand of {len(event.hand)} cards")
        if isinstance(event, ActionTakenEvent) and event.seat not in (Seat.VALUE_0, Seat.VALUE_1):
            raise ContractError(f"an action of seat {event.seat!r}")
    return replay


def anonymous_game(base_url: str) -> tuple[GameView, int]:
    """Without any key: create a game, play it out, read every version's replay as the
    seat and as a spectator; the finished view and how many tricks the replay shows."""
    anyone = Client(base_url=base_url)
    seated = create_game.sync(
        client=anyone,
        body=CreateGame(opponent=Opponent(type_=OpponentType.BOT, level=BotLevel.RANDOM)),
    )
    if not isinstance(seated, Seated):
        raise ContractError(f"create: {seated!r}")
    seat = AuthenticatedClient(base_url=base_url, token=seated.token)
    halfway = read_replay(anyone, seated.game_id, None)  # a spectator, while it runs
    final = play_to_the_end(seat, seated.game)
    # The spectator's view through the event feed: getGame's answer is typed
    # `Any | GameView | Problem` (its 304 has no body), which this program's
    # `--disallow-any-expr` refuses; python_flow.py reads it under `--strict`.
    feed = list_events.sync(final.game_id, client=anyone, include=ListEventsInclude.VIEW)
    watched = feed.view if isinstance(feed, EventFeed) else None
    if not isinstance(watched, GameView) or watched.seat is not None:
        raise ContractError(f"spectator view: {watched!r}")
    tricks = 0
    for reader in (seat, anyone):
        for version in range(halfway.version, final.version + 1):
            read_replay(reader, final.game_id, version)
        whole = read_replay(reader, final.game_id, None)
        tricks = sum(isinstance(step, TrickStep) for step in whole.steps)
    return final, tricks


def main(argv: list[str]) -> int:
    base_url, client_key = argv
    after = play_one_action(base_url, client_key)
    decision = bot_decision(base_url, client_key)
    print(f"acted: game {after.game_id} at version {after.version}")
    print(f"bot: {decision.action.type_} by {decision.level.value}")
    final, tricks = anonymous_game(base_url)
    print(f"anonymous: game {final.game_id} {final.status.value}, replay of {tricks} tricks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
