"""The state the service holds is the fold of its log, after every command.

Random games of both variants, against a person or a bot, each ended one of
the four ways (played out, resigned, aborted, claimed on time), driven through
``GameService`` on a real Redis. After every command, refused ones too, the
game the command answered and the game loaded again both equal the replay of
the whole log from its first event, with no snapshot. A fixed seed makes every
game, every deck and every move the same on every run, so a failure reproduces.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import redis

from service.bots import get_bot
from service.engine import Action, Variant, legal_actions, replay
from service.engine.knowledge import SeatView
from service.game.commands import Acted, Current, GameService, NewGame, Opponent, Seated
from service.game.problems import Problem
from service.store.client_games import ClientGames
from service.store.events import EventStore
from tests.support.waiting import wait_until

SEED = 20261203
GAMES = 240
#: The fast lanes' share of them: six of each variant and ending (the heavy lane plays all).
SAMPLE = 48
ENDINGS = ("played", "resign", "abort", "timeout")
#: A turn timeout the tests reach in a few milliseconds of the log's clock.
SHORT_TIMEOUT = 0.001
#: A turn timeout no test reaches: a claim is refused and changes nothing.
LONG_TIMEOUT = 3600.0


@dataclass(frozen=True, slots=True)
class Table:
    games: GameService
    store: EventStore


@pytest.fixture(scope="module")
def table(redis_url: str) -> Table:
    client = redis.Redis.from_url(redis_url)
    store = EventStore(client)
    games = GameService(store, b"fold secret", listing=ClientGames(client), bot_levels=["random"])
    return Table(games, store)


def folded(table: Table, game_id: str, answered: Current | None = None) -> Current:
    """Check the service's game, and the game a command answered, against the replay of
    its whole log; return the game as loaded."""
    log = table.store.events(game_id)
    truth = replay(log)
    loaded = table.games.current(game_id)
    assert loaded.version == len(log)
    assert loaded.state == truth
    if answered is not None:
        assert answered.version == len(log)
        assert answered.state == truth
        assert answered.seats == loaded.seats  # the seats record as the log keeps it
    return loaded


def refused(table: Table, game_id: str, command: Callable[[], object]) -> None:
    """A refused command appends nothing, and the game is still the fold of its log."""
    before = table.store.head(game_id)
    with pytest.raises(Problem):
        command()
    assert table.store.head(game_id) == before
    folded(table, game_id)


class Players:
    """One game's seats: the tokens of its people, and how its bot and people choose."""

    def __init__(self, table: Table, rng: random.Random, created: Seated, bot: bool):
        self.table = table
        self.rng = rng
        self.game_id = created.current.game_id
        self.tokens: dict[int, str] = {0: created.token}
        self.invite = created.invite
        self.bot = bot
        self.keys = 0

    def join(self) -> None:
        assert self.invite is not None
        seated = self.table.games.join(self.game_id, self.invite)
        self.tokens[1] = seated.token
        folded(self.table, self.game_id, seated.current)

    def move(self) -> None:
        """The seat to move takes a random legal action (a bot's through its worker's path)."""
        current = self.table.games.current(self.game_id)
        seat = current.state.to_move
        assert seat is not None
        if self.bot and seat == 1:
            acted = self.table.games.play_bot(self.game_id, current.version, self.choose)
            assert acted is not None
        else:
            action = self.rng.choice(legal_actions(current.state))
            acted = self.act(seat, action)
        folded(self.table, self.game_id, acted.current)

    def act(self, seat: int, action: Action) -> Acted:
        """Now and then with an Idempotency-Key and its retry, which appends nothing more."""
        if self.rng.random() >= 0.1:
            return self.table.games.act(self.game_id, self.tokens[seat], action)
        self.keys += 1
        key = f"move-{self.keys}"
        acted = self.table.games.act(self.game_id, self.tokens[seat], action, idempotency_key=key)
        again = self.table.games.act(self.game_id, self.tokens[seat], action, idempotency_key=key)
        assert again.replayed and again.current == acted.current
        return acted

    def choose(self, view: SeatView, level: str) -> Action:
        return get_bot(level).choose(view, seed=self.rng.randrange(2**31)).action

    def moves(self, count: int) -> None:
        for _ in range(count):
            if self.table.games.current(self.game_id).state.over:
                return
            self.move()

    def running(self) -> bool:
        return not self.table.games.current(self.game_id).state.over


def how_it_ended(current: Current) -> str:
    """ "played" for a game played to its end, else the seat's ending (resigned, ...)."""
    state = current.state
    assert state.over
    return "played" if state.ending is None else state.ending.reason.value


def play_one(table: Table, rng: random.Random, ending: str, variant: Variant) -> str:
    """One game from its create to its ending; returns how it ended."""
    games = table.games
    bot = rng.random() < 0.3 and ending != "timeout"  # a bot's turn is never claimed
    opponent = Opponent("bot", "random") if bot else Opponent()
    created = games.create(NewGame(variant, opponent, seed=rng.randrange(2**31)))
    players = Players(table, rng, created, bot)
    game_id = players.game_id
    folded(table, game_id, created.current)
    if ending == "abort" and not bot and rng.random() < 0.5:
        aborted = games.abort(game_id, players.tokens[0])  # before seat 1 joined
        folded(table, game_id, aborted.current)
        return how_it_ended(aborted.current)
    if not bot:
        players.join()
    if ending == "abort":
        if bot:  # a game against a bot is not aborted: its person resigns instead
            refused(table, game_id, lambda: games.abort(game_id, players.tokens[0]))
            resigned = games.resign(game_id, players.tokens[0])
            folded(table, game_id, resigned.current)
            return how_it_ended(resigned.current)
        aborted = games.abort(game_id, players.tokens[rng.choice([0, 1])])
        folded(table, game_id, aborted.current)
        return how_it_ended(aborted.current)
    if ending == "played":
        while players.running():
            players.move()
        return how_it_ended(games.current(game_id))
    players.moves(rng.randrange(0, 40))
    if not players.running():
        return how_it_ended(games.current(game_id))
    if ending == "resign":
        resigned = games.resign(game_id, players.tokens[rng.choice(list(players.tokens))])
        folded(table, game_id, resigned.current)
        return how_it_ended(resigned.current)
    current = games.current(game_id)
    mover = current.state.to_move
    assert mover is not None
    waiter = 1 - mover
    refused(
        table,
        game_id,
        lambda: games.claim_timeout(game_id, players.tokens[waiter], timeout_seconds=LONG_TIMEOUT),
    )
    wait_until(
        lambda: (table.store.clock(game_id).waited_ms or 0) >= 2,
        timeout=10,
        what="the log's clock to pass the short turn timeout",
    )
    claimed = games.claim_timeout(game_id, players.tokens[waiter], timeout_seconds=SHORT_TIMEOUT)
    folded(table, game_id, claimed.current)
    assert claimed.current.state.winner == waiter
    return how_it_ended(claimed.current)


@pytest.mark.parametrize(
    "games",
    [
        pytest.param(SAMPLE, id="sample"),
        pytest.param(GAMES, id="all", marks=pytest.mark.heavy),
    ],
)
def test_after_every_command_the_game_is_the_fold_of_its_whole_log(table, games):
    """The fast lanes play the first ``SAMPLE`` games of the seed, the heavy lane all
    ``GAMES`` (CONTRIBUTING.md)."""
    rng = random.Random(SEED)
    ended: dict[tuple[Variant, str], list[str]] = {}
    for number in range(games):
        ending = ENDINGS[number % len(ENDINGS)]
        variant = list(Variant)[(number // len(ENDINGS)) % len(Variant)]
        how = play_one(table, random.Random(rng.randrange(2**63)), ending, variant)
        ended.setdefault((variant, ending), []).append(how)
    # Both variants, every ending, each ending the game the way it was asked to; a
    # game against a bot is not aborted (it resigns instead), and a game already
    # played out is neither resigned nor claimed.
    allowed = {
        "played": {"played"},
        "resign": {"resigned", "played"},
        "abort": {"aborted", "resigned"},
        "timeout": {"timed_out", "played"},
    }
    asked = {"played": "played", "resign": "resigned", "abort": "aborted", "timeout": "timed_out"}
    for variant in Variant:
        for ending, reason in asked.items():
            hows = ended[variant, ending]
            assert len(hows) == games // 8, (variant, ending)
            assert reason in hows and set(hows) <= allowed[ending], (variant, ending, hows)
