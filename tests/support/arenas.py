"""Arenas played over HTTP, for the arena's test and its benchmark (benchmarks/arena.py):
an arena of new players of a new app, a driver that plays every board the arena makes
(each seat choosing among its legal actions, then one seat, at random, resigning), and
the checks an arena's record must pass, from the database of record and the games read
over HTTP.

The driver reads the app's boards in play again and again; each new board is played in
a thread of its own pool. ``hold()`` stops it ending games (their seats wait), ``go()``
lets them end again: a test looks at the arena at rest in between."""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests

from service.competition import Result, Waiting, arena_pairings, arena_standings
from service.store.records_db import open_records_database
from service.store.tournament_records import Board, TournamentRecords
from tests.support.http import auth
from tests.support.players import AppKey
from tests.support.tournaments import created_and_entered


@dataclass(frozen=True)
class Arena:
    url: str
    app: AppKey
    tournament_id: str
    #: Each player's token by id.
    tokens: dict[str, str]


def entered_arena(
    url: str,
    app: AppKey,
    players: int,
    duration: int,
    clock: dict[str, Any] | None = None,
    starts_in: int = 3,
) -> Arena:
    """An arena of ``players`` new players of ``app``, each entered before its start."""
    more = {} if clock is None else {"clock": clock}
    body = {"name": "Arena", "kind": "arena", "duration": duration, "starts_in": starts_in,
            **more}  # fmt: skip
    tournament, tokens = created_and_entered(url, app, body, players)
    tournament_id = tournament["tournament_id"]
    return Arena(url, app, tournament_id, tokens)


@dataclass
class Played:
    """One board as the driver played it: when it first saw it, and when it sent the
    resignation that ended it (None: it did not end it)."""

    game_id: str
    dealer: str
    forehand: str
    seen: float
    resigned: float | None = None


@dataclass
class DriverLog:
    boards: dict[str, Played] = field(default_factory=dict)
    #: What the driver saw that must never be: a player on two boards in play at once.
    overlaps: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    polls: int = 0
    #: Games ended before their resignation (their clocks, while the driver held them).
    timed_out: int = 0


class ArenaDriver:
    """Plays every board of ``arena`` until ``stop()``: up to ``most_actions`` legal
    actions chosen at random (the seat to move's), then a random seat resigns."""

    def __init__(self, arena: Arena, seed: int, most_actions: int = 3, threads: int = 8):
        self.arena = arena
        self.most_actions = most_actions
        self.rng = random.Random(seed)
        self.log = DriverLog()
        self._pool = ThreadPoolExecutor(threads)
        self._futures: list[Future] = []
        self._lock = threading.Lock()
        self._ending = threading.Event()
        self._ending.set()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._local = threading.local()

    def start(self) -> ArenaDriver:
        self._thread.start()
        return self

    def hold(self) -> None:
        """End no more games until ``go()``."""
        self._ending.clear()

    def go(self) -> None:
        self._ending.set()

    def stop(self) -> DriverLog:
        self._stopped.set()
        self._ending.set()
        self._thread.join(timeout=60)
        for future in self._futures:
            future.result(timeout=120)
        self._pool.shutdown()
        return self.log

    def _session(self) -> requests.Session:
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def _follow(self) -> None:
        url, tid = self.arena.url, self.arena.tournament_id
        while not self._stopped.is_set():
            try:
                answer = self._session().get(
                    f"{url}/v1/tournaments/{tid}/boards", headers=self.arena.app.headers,
                    timeout=30,
                )  # fmt: skip
                boards = answer.json()["boards"]
            except (requests.RequestException, ValueError, KeyError) as error:
                self.log.errors.append(f"boards: {error!r}")
                time.sleep(0.2)
                continue
            self.log.polls += 1
            seen: dict[str, str] = {}
            for board in boards:
                for player in (board["dealer"], board["forehand"]):
                    if player in seen:
                        self.log.overlaps.append(
                            f"{player} on {seen[player]} and {board['game_id']} at once"
                        )
                    seen[player] = board["game_id"]
                with self._lock:
                    if board["game_id"] in self.log.boards:
                        continue
                    played = Played(board["game_id"], board["dealer"], board["forehand"],
                                    time.time())  # fmt: skip
                    self.log.boards[board["game_id"]] = played
                    seed = self.rng.randrange(2**32)
                self._futures.append(self._pool.submit(self._play, played, seed))
            time.sleep(0.05)

    def _token(self, player: str, game_id: str) -> str:
        """``player``'s seat token on ``game_id``, from its own boards (made in a moment)."""
        url, tid = self.arena.url, self.arena.tournament_id
        deadline = time.monotonic() + 120  # bounds a hang, never a speed
        while time.monotonic() < deadline:
            answer = self._session().get(
                f"{url}/v1/tournaments/{tid}/boards", headers=auth(self.arena.tokens[player]),
                timeout=30,
            )  # fmt: skip
            mine = [b for b in answer.json()["boards"] if b["game_id"] == game_id and "token" in b]
            if mine:
                return mine[0]["token"]
            time.sleep(0.1)
        raise AssertionError(f"no seat token of {player} on {game_id}")

    def _play(self, played: Played, seed: int) -> None:
        try:
            self._play_out(played, random.Random(seed))
        except Exception as error:  # noqa: BLE001 - told in the log, which the checks read
            self.log.errors.append(f"{played.game_id}: {error!r}")

    def _play_out(self, played: Played, rng: random.Random) -> None:
        url, session = self.arena.url, self._session()
        tokens = [self._token(played.dealer, played.game_id),
                  self._token(played.forehand, played.game_id)]  # fmt: skip
        game = f"{url}/v1/games/{played.game_id}"
        for _ in range(rng.randint(0, self.most_actions)):
            seen = session.get(game, headers=auth(tokens[0]), timeout=30).json()
            if seen["status"] != "active" or seen.get("to_move") not in (0, 1):
                break
            seat = seen["to_move"]
            mover = seen if seat == 0 else session.get(game, headers=auth(tokens[1]),
                                                        timeout=30).json()  # fmt: skip
            legal = (mover.get("deal") or {}).get("legal_actions") or []
            if not legal:
                break
            session.post(f"{game}/actions", json=rng.choice(legal), headers=auth(tokens[seat]),
                         timeout=30)  # fmt: skip
        self._ending.wait()
        sent = time.time()
        answer = session.post(f"{game}/resign", headers=auth(tokens[rng.randrange(2)]),
                              timeout=30)  # fmt: skip
        if answer.status_code == 200:
            played.resigned = sent
        elif answer.status_code == 409 and answer.json().get("code") == "game_over":
            self.log.timed_out += 1  # its clock ended it while held: the checks read how
        else:
            self.log.errors.append(f"{played.game_id}: resign {answer.status_code} {answer.text}")


@contextmanager
def driving(
    arena: Arena, seed: int, most_actions: int = 3, threads: int = 8
) -> Iterator[ArenaDriver]:
    driver = ArenaDriver(arena, seed, most_actions, threads).start()
    try:
        yield driver
    finally:
        driver.stop()


def records_of(database: str) -> TournamentRecords:
    return TournamentRecords(open_records_database(database))


@dataclass(frozen=True)
class AtRest:
    """The arena at rest: who waits (none, when every player is on a board)."""

    waiting: tuple[str, ...]


def at_rest(
    arena: Arena, records: TournamentRecords, why: list[str] | None = None
) -> AtRest | None:
    """With no game ending: None until every ended game is counted and every player free
    to be paired is (the ones left are those ``arena_pairings`` cannot pair: an odd one,
    or two who just met); then who waits. ``why`` takes what it waits for."""
    why = [] if why is None else why
    why.clear()
    boards = records.every_board(arena.tournament_id)
    for board in boards:
        if board.winner is None:
            answer = requests.get(f"{arena.url}/v1/games/{board.game_id}", timeout=30)
            if answer.status_code != 200 or answer.json()["status"] != "active":
                why.append(f"{board.game_id} of round {board.round}: {answer.status_code} "
                           f"{answer.json().get('status') if answer.ok else ''}")  # fmt: skip
                return None  # not made yet, or ended and not counted yet
    busy = {p for b in boards if b.winner is None for p in (b.dealer, b.forehand)}
    free = [e.player for e in records.entries(arena.tournament_id)
            if e.playing and e.player not in busy]  # fmt: skip
    results = [Result(b.round, b.dealer, b.forehand, b.winner) for b in boards if b.winner]
    if arena_pairings([Waiting(p) for p in free], results):
        why.append(f"{len(free)} free players could be paired")
        return None
    return AtRest(tuple(free))


#: The checks of a finished arena, by name.
TWO_AT_ONCE = "no player in two games at once"
REMATCH = "no immediate rematch"
MADE_ONCE = "every game made once"
OUT_OF_TIME = "nobody paired while paused or after the end"
STANDINGS = "the stored standings equal the recomputation from the games"
WINNERS = "every game finished, its winner kept"
DRIVER = "the driver's requests answered"
CHECKS = (TWO_AT_ONCE, REMATCH, MADE_ONCE, OUT_OF_TIME, STANDINGS, WINNERS, DRIVER)


@dataclass
class ArenaReport:
    games: int
    pairings: int
    players: int
    #: Seconds from a game's end (its resignation sent) to its players' next pairing.
    delays: list[float]
    #: Each check's failures (an empty list: it held).
    checks: dict[str, list[str]]

    @property
    def failures(self) -> list[str]:
        return [f"{name}: {failure}" for name, found in self.checks.items() for failure in found]

    def figures(self) -> dict[str, Any]:
        delays = sorted(self.delays)

        def share(q: float) -> float:
            return delays[min(len(delays) - 1, int(q * len(delays)))] if delays else float("nan")

        return {
            "games": self.games,
            "pairings": self.pairings,
            "players": self.players,
            "repairings": len(delays),
            "pairing_delay_p50_s": round(statistics.median(delays), 3) if delays else None,
            "pairing_delay_p99_s": round(share(0.99), 3) if delays else None,
        }


def check_arena(
    arena: Arena, records: TournamentRecords, log: DriverLog, paused: dict[str, tuple[float, float]]
) -> ArenaReport:
    """The finished arena's checks: each game made once (the app's games are the
    boards), no player in two games at once (a player's next board paired only after
    their game ended), no immediate rematch, no board after the end nor for a paused
    player while paused (``paused``: the pause answered, the return sent), and the
    stored standings, read page by page, equal to ``arena_standings`` of the games as
    read over HTTP."""
    url, tid = arena.url, arena.tournament_id
    checks: dict[str, list[str]] = {name: [] for name in CHECKS}
    checks[TWO_AT_ONCE] += log.overlaps
    checks[DRIVER] += log.errors
    tournament = records.get(tid)
    assert tournament is not None and tournament.ends_ms is not None
    if tournament.status.value != "finished":
        checks[OUT_OF_TIME].append(f"status {tournament.status.value} after the end")
    boards = records.every_board(tid)
    paired_ms = {n: records.paired_round(tid, n).paired_ms for n in {b.round for b in boards}}
    ids = [b.game_id for b in boards]
    if len(ids) != len(set(ids)):
        checks[MADE_ONCE].append("a game id on two boards")
    unseen = set(ids) - set(log.boards)
    if unseen:
        checks[MADE_ONCE].append(f"{len(unseen)} boards the driver never saw in play")
    by_player: dict[str, list[Board]] = defaultdict(list)
    for board in boards:  # round order: the order each player's games were paired
        by_player[board.dealer].append(board)
        by_player[board.forehand].append(board)
        if paired_ms[board.round] >= tournament.ends_ms:
            checks[OUT_OF_TIME].append(f"{board.game_id} paired after the end")
        for player in (board.dealer, board.forehand):
            since, until = paused.get(player, (0.0, 0.0))
            if since * 1000 <= paired_ms[board.round] < until * 1000:
                checks[OUT_OF_TIME].append(f"{player} paired on {board.game_id} while paused")
    delays: list[float] = []
    for player, games in by_player.items():
        for before, after in zip(games, games[1:], strict=False):
            if {before.dealer, before.forehand} == {after.dealer, after.forehand}:
                checks[REMATCH].append(
                    f"{player} met the same player twice in a row: {after.game_id}"
                )
            ended = log.boards.get(before.game_id)
            if before.round >= after.round:
                checks[TWO_AT_ONCE].append(
                    f"{player} on {before.game_id} and {after.game_id} in one pairing"
                )
            elif ended is not None and ended.resigned is not None:
                gap = paired_ms[after.round] / 1000 - ended.resigned
                if gap < -0.001:
                    checks[TWO_AT_ONCE].append(f"{player} paired on {after.game_id} before "
                                               f"{before.game_id} ended ({gap:.3f} s)")  # fmt: skip
                else:
                    delays.append(gap)
    results: list[Result] = []
    for board in boards:
        game = requests.get(f"{url}/v1/games/{board.game_id}", timeout=30).json()
        if game["status"] != "finished" or game["winner"] not in (0, 1):
            checks[WINNERS].append(f"{board.game_id} not finished with a winner: {game['status']}")
            continue
        winner = (board.dealer, board.forehand)[game["winner"]]
        if winner != board.winner:
            checks[WINNERS].append(f"{board.game_id}: kept {board.winner}, the game's {winner}")
        results.append(Result(board.round, board.dealer, board.forehand, winner))
    expected = arena_standings(results, arena.tokens)
    stored: list[dict[str, Any]] = []
    token = next(iter(arena.tokens.values()))
    while True:
        page = requests.get(f"{url}/v1/tournaments/{tid}/standings",
                            params={"offset": len(stored), "limit": 50}, headers=auth(token),
                            timeout=30).json()  # fmt: skip
        stored += page["standings"]
        if not page["standings"]:
            break
    kept = [(s["rank"], s["player_id"], s["points"], s["wins"], s["games"]) for s in stored]
    again = [(s.rank, s.player, s.points, s.wins, s.games) for s in expected]
    if kept != again:
        first = next((i for i, (a, b) in enumerate(zip(kept, again, strict=False)) if a != b),
                     min(len(kept), len(again)))  # fmt: skip
        checks[STANDINGS].append(
            f"{len(kept)} lines kept, {len(again)} recomputed; line {first + 1} kept "
            f"{kept[first] if first < len(kept) else None}, recomputed "
            f"{again[first] if first < len(again) else None}"
        )
    made = _app_games(arena)
    if sorted(made) != sorted(ids):
        checks[MADE_ONCE].append(f"the app's games ({len(made)}) are not the boards ({len(ids)})")
    return ArenaReport(len(boards), len(paired_ms), len(arena.tokens), delays, checks)


def _app_games(arena: Arena) -> list[str]:
    """Every game of the app, page by page."""
    found: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"client": "me", "limit": 100}
        if cursor:
            params["cursor"] = cursor
        page = requests.get(f"{arena.url}/v1/games", params=params, headers=arena.app.headers,
                            timeout=30).json()  # fmt: skip
        found += [g["game_id"] for g in page["games"]]
        cursor = page.get("next_cursor")
        if not cursor:
            return found


__all__ = [
    "CHECKS",
    "Arena",
    "ArenaDriver",
    "AtRest",
    "ArenaReport",
    "DriverLog",
    "at_rest",
    "check_arena",
    "driving",
    "entered_arena",
    "records_of",
]
