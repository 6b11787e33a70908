"""A Swiss tournament over HTTP against a live gunicorn and real RQ workers: created by
an app, joined by its players, each round paired by a worker once every game of the
round before has ended (the games played out by resigning), to its end; its stored
standings equal the recomputation from its games, no pair meets twice, and a ``kill -9``
of a worker between rounds (a second worker racing it) loses and doubles no pairing."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
import requests
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.competition import Bye, Result, swiss_standings
from service.competition.dealing import dealer_balance, last_dealt
from service.engine import Variant
from service.game.clock import TimeControl
from service.game.pools import pool_of
from service.jobs.names import MOVES
from service.jobs.tournaments import game_job_id, round_job_id
from tests.support.http import auth
from tests.support.players import new_app
from tests.support.receiver import Receiver
from tests.support.servers import WorkerProcess
from tests.support.tournament_leaks import assert_notices_hide_cards, assert_reads_hide_cards
from tests.support.tournaments import (
    TournamentService,
    created_and_entered,
    tournament_service,
)
from tests.support.waiting import wait_until

#: Bounds a hang of one round's pairing or the whole tournament's end, never a speed.
ROUND_TIMEOUT = 120
#: Webhooks reach the test's own receiver on loopback, and no other address.
LOOPBACK_HOOKS = {"SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32"}
#: Bounds the wait for a job a killed worker was running: RQ hands it to another worker
#: once its time is up (its timeout, then the registry's clean-up).
RECOVERY_TIMEOUT = 4 * ROUND_TIMEOUT


@pytest.fixture(scope="module")
def swiss(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TournamentService]:
    """A live server whose records live in a SQLite database (workers are the tests'), on
    a Redis of its own: another module's worker (the session's, which has no database of
    record) would take its tournaments' jobs and fail them."""
    folder = tmp_path_factory.mktemp("swiss")
    with tournament_service(folder, workers=0, env=LOOPBACK_HOOKS) as service:
        yield service


def worker(swiss: TournamentService) -> WorkerProcess:
    return swiss.new_worker()


def entered_tournament(
    swiss: TournamentService, redis_client, players: int, rounds: int, clock: dict | None = None
):
    """A Swiss of ``players`` new players of a new app, starting now: (app, id, tokens)."""
    app = new_app(redis_client)
    more = {} if clock is None else {"clock": clock}
    body = {"name": "Friday Swiss", "rounds": rounds, "starts_in": 3, **more}
    tournament, tokens = created_and_entered(swiss.url, app, body, players)
    assert (tournament["status"], tournament["round"], tournament["players"]) == ("created", 0, 0)
    return app, tournament["tournament_id"], tokens


def play_round(
    swiss: TournamentService,
    tid: str,
    number: int,
    tokens: dict[str, str],
    rng,
    timeout=ROUND_TIMEOUT,
    stop: WorkerProcess | None = None,
) -> dict:
    """Wait for round ``number``'s games, then end each by a resignation: the boards read.
    ``stop``: a worker stopped once the games are made, before the first resignation."""

    def paired() -> dict | None:
        any_token = next(iter(tokens.values()))
        answer = requests.get(
            f"{swiss.url}/v1/tournaments/{tid}/boards", headers=auth(any_token), timeout=30
        )
        assert answer.status_code == 200, answer.text
        boards = answer.json()
        return boards if boards["round"] == number else None

    boards = wait_until(paired, timeout, f"round {number} paired")
    losers: list[tuple[dict, str, dict]] = []
    for board in boards["boards"]:
        loser = rng.choice([board["dealer"], board["forehand"]])

        def own_board(loser: str = loser, game_id: str = board["game_id"]) -> dict | None:
            answer = requests.get(
                f"{swiss.url}/v1/tournaments/{tid}/boards", headers=auth(tokens[loser]), timeout=30
            )
            mine = [b for b in answer.json()["boards"] if b["game_id"] == game_id]
            return mine[0] if mine and "token" in mine[0] else None

        seat = wait_until(own_board, timeout, f"game {board['game_id']} made")
        assert seat["seat"] == (0 if loser == board["dealer"] else 1)
        losers.append((board, loser, seat))
    if stop is not None:
        stop.stop()
    for board, loser, seat in losers:
        resigned = requests.post(
            f"{swiss.url}/v1/games/{board['game_id']}/resign",
            headers=auth(seat["token"]),
            timeout=30,
        )
        assert resigned.status_code == 200, resigned.text
        board["winner"] = board["forehand"] if loser == board["dealer"] else board["dealer"]
    return boards


def finished(
    swiss: TournamentService, tid: str, token: str, timeout: float = ROUND_TIMEOUT
) -> dict:
    def over() -> dict | None:
        answer = requests.get(f"{swiss.url}/v1/tournaments/{tid}", headers=auth(token), timeout=30)
        return answer.json() if answer.json()["status"] == "finished" else None

    return wait_until(over, timeout, "the tournament's end")


def check_played(
    swiss: TournamentService, tid: str, token: str, rounds: list[dict], players: set[str]
):
    """Every round paired every player once (a board or the bye), no pair met twice, and
    the stored standings, read page by page, equal the recomputation from the games."""
    met: set[frozenset[str]] = set()
    results, byes = [], []
    for number, played in enumerate(rounds, start=1):
        seen = [p for b in played["boards"] for p in (b["dealer"], b["forehand"])]
        if played["bye"] is not None:
            seen.append(played["bye"])
            byes.append(Bye(number, played["bye"]))
        assert sorted(seen) == sorted(players), f"round {number} pairs each player once"
        for b in played["boards"]:
            pair = frozenset((b["dealer"], b["forehand"]))
            assert pair not in met, f"{sorted(pair)} met twice"
            met.add(pair)
            results.append(Result(number, b["dealer"], b["forehand"], b["winner"]))
    expected = swiss_standings(results, byes, players)
    stored: list[dict] = []
    while True:
        answer = requests.get(
            f"{swiss.url}/v1/tournaments/{tid}/standings",
            params={"offset": len(stored), "limit": 4},
            headers=auth(token),
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["total"] == len(players)
        stored += page["standings"]
        if not page["standings"]:
            break
    assert [
        (s["rank"], s["player_id"], s["points"], s["buchholz"], s["sonneborn_berger"])
        for s in stored
    ] == [(s.rank, s.player, s.points, s.buchholz, s.sonneborn_berger) for s in expected]


def check_first_dealers(swiss: TournamentService, rounds: list[dict]) -> None:
    """Each game's first deal is dealt by its board's dealer (seat 0), whom the pairing
    chose by the dealer balance of the rounds before: the lower balance deals; on equal
    balances, the player who did not deal first last time."""
    results: list[Result] = []
    for number, played in enumerate(rounds, start=1):
        balance, dealt = dealer_balance(results), last_dealt(results)
        wish = {p: (balance.get(p, 0), dealt.get(p, False)) for b in played["boards"]
                for p in (b["dealer"], b["forehand"])}  # fmt: skip
        for b in played["boards"]:
            feed = requests.get(f"{swiss.url}/v1/games/{b['game_id']}/events", timeout=30)
            assert feed.status_code == 200, feed.text
            created = feed.json()["events"][0]
            assert (created["type"], created["first_dealer"]) == ("game_created", 0), created
            assert wish[b["dealer"]] <= wish[b["forehand"]], (number, b, wish)
        results += [Result(number, b["dealer"], b["forehand"], b["winner"])
                    for b in played["boards"]]  # fmt: skip


def test_a_swiss_of_six_players_runs_its_three_rounds_to_the_end(swiss):
    """On a clock: its games are rated in the pool of that clock, and in no other."""
    rng = random.Random(6)
    processes = worker(swiss)
    pool = pool_of(Variant.HEAD, TimeControl(60)).name
    try:
        _app, tid, tokens = entered_tournament(
            swiss, swiss.redis, players=6, rounds=3, clock={"seconds_per_move": 60}
        )
        rounds = [play_round(swiss, tid, number, tokens, rng) for number in (1, 2, 3)]
        token = next(iter(tokens.values()))
        assert finished(swiss, tid, token)["round"] == 3
        check_played(swiss, tid, token, rounds, set(tokens))
        check_first_dealers(swiss, rounds)
        mine = requests.get(f"{swiss.url}/v1/players/me/tournaments", headers=auth(token),
                            timeout=30).json()  # fmt: skip
        assert [t["tournament_id"] for t in mine["tournaments"]] == [tid]
        listed = requests.get(f"{swiss.url}/v1/players/me/games", headers=auth(token),
                              timeout=30).json()["games"]  # fmt: skip
        played = {b["game_id"] for r in rounds for b in r["boards"]
                  if token == tokens[b["dealer"]] or token == tokens[b["forehand"]]}  # fmt: skip
        assert {g["game_id"] for g in listed} == played

        # Each game was resigned at once: only its loser's rating moves (RX7), in the
        # pool of the tournament's clock and in no other.
        boards = sum(len(r["boards"]) for r in rounds)

        def rated() -> dict | None:
            games: dict[str, int] = {}
            for each in tokens.values():
                me = requests.get(f"{swiss.url}/v1/players/me", headers=auth(each), timeout=30)
                for rating in me.json()["ratings"]:
                    games[rating["pool"]] = games.get(rating["pool"], 0) + rating["games"]
            return games if games.get(pool) == boards else None

        games = wait_until(rated, ROUND_TIMEOUT, f"the games rated in {pool}")
        assert {p: n for p, n in games.items() if n} == {pool: boards}
    finally:
        processes.stop()


def test_a_worker_killed_between_rounds_loses_and_doubles_no_pairing(swiss):
    rng = random.Random(7)
    first, second = worker(swiss), worker(swiss)
    try:
        _app, tid, tokens = entered_tournament(swiss, swiss.redis, players=7, rounds=3)
        rounds = [play_round(swiss, tid, 1, tokens, rng)]
        first.kill()
        # A job a killed worker was running is recovered once its time is up: rounds
        # after a kill may wait that long.
        rounds.append(play_round(swiss, tid, 2, tokens, rng, timeout=RECOVERY_TIMEOUT))
        second.kill()
        first = worker(swiss)
        rounds.append(play_round(swiss, tid, 3, tokens, rng, timeout=RECOVERY_TIMEOUT))
        token = next(iter(tokens.values()))
        finished(swiss, tid, token, timeout=RECOVERY_TIMEOUT)
        check_played(swiss, tid, token, rounds, set(tokens))
    finally:
        first.stop()
        second.stop()


def test_tournament_reads_and_notices_leak_no_hidden_card(swiss, tmp_path):
    """While round 1's games run: each seat's view hides what R11 hides, a spectator sees
    no hand, the tournament's reads (by the app, by a player: the tournament, its
    standings, its boards, the player's tournaments) and its webhook notices hold no card
    at all, and only a player's own board carries a seat token."""
    processes = worker(swiss)
    receiver = Receiver(tmp_path)
    try:
        app, tid, tokens = entered_tournament(swiss, swiss.redis, players=4, rounds=1)
        hook = requests.post(f"{swiss.url}/v1/webhooks", json={"url": receiver.url},
                             headers=app.headers, timeout=30)  # fmt: skip
        assert hook.status_code == 201, hook.text

        def made() -> dict | None:
            boards = requests.get(f"{swiss.url}/v1/tournaments/{tid}/boards",
                                  headers=app.headers, timeout=30).json()  # fmt: skip
            ids = [b["game_id"] for b in boards["boards"]]
            live = all(requests.get(f"{swiss.url}/v1/games/{g}", timeout=30).ok for g in ids)
            return boards if boards["round"] == 1 and live else None

        boards = wait_until(made, ROUND_TIMEOUT, "round 1's games made")
        assert_reads_hide_cards(swiss.url, swiss.redis, app, tid, tokens, boards)

        def told() -> list[dict] | None:
            log = requests.get(f"{swiss.url}/v1/webhooks/{hook.json()['webhook_id']}/deliveries",
                               headers=app.headers, timeout=30).json()["deliveries"]  # fmt: skip
            kinds = sorted(d["kind"] for d in log if d["kind"].startswith("tournament."))
            return log if kinds == ["tournament.round_paired", "tournament.started"] else None

        log = wait_until(told, ROUND_TIMEOUT, "the tournament's start and pairing told")
        assert_notices_hide_cards(
            (d["kind"], json.loads(d["body"])) for d in log if d["kind"].startswith("tournament.")
        )
        paired = next(d for d in log if d["kind"] == "tournament.round_paired")
        told_boards = json.loads(paired["body"])["data"]["boards"]
        assert [b["game_id"] for b in told_boards] == [b["game_id"] for b in boards["boards"]]

        play_round(swiss, tid, 1, tokens, random.Random(1))  # its one round, resigned

        def ended() -> bool:
            log = requests.get(f"{swiss.url}/v1/webhooks/{hook.json()['webhook_id']}/deliveries",
                               headers=app.headers, timeout=30).json()["deliveries"]  # fmt: skip
            return [d["kind"] for d in log].count("tournament.finished") == 1

        wait_until(ended, ROUND_TIMEOUT, "the tournament's end told")
    finally:
        processes.stop()
        receiver.stop()


def test_a_worker_killed_as_it_pairs_a_round_leaves_the_same_pairing_to_the_next(swiss):
    """The worker is killed the moment round 1's claim is seen (its games being made, or
    not yet): the next worker makes the claimed round's games, the same boards, once."""
    rng = random.Random(8)
    first = worker(swiss)
    second = None
    try:
        app, tid, tokens = entered_tournament(swiss, swiss.redis, players=6, rounds=2)

        def claimed() -> dict | None:
            answer = requests.get(f"{swiss.url}/v1/tournaments/{tid}/boards",
                                  headers=app.headers, timeout=30).json()  # fmt: skip
            return answer if answer["round"] == 1 else None

        seen = wait_until(claimed, ROUND_TIMEOUT, "round 1 claimed")
        first.kill()
        second = worker(swiss)
        rounds = [play_round(swiss, tid, 1, tokens, rng, timeout=RECOVERY_TIMEOUT)]

        def fixed(boards: list[dict]) -> list[tuple]:
            return [(b["board"], b["game_id"], b["dealer"], b["forehand"]) for b in boards]

        assert fixed(rounds[0]["boards"]) == fixed(seen["boards"])
        rounds.append(play_round(swiss, tid, 2, tokens, rng))
        token = next(iter(tokens.values()))
        finished(swiss, tid, token)
        check_played(swiss, tid, token, rounds, set(tokens))
        games = requests.get(f"{swiss.url}/v1/games", params={"client": "me", "limit": 50},
                             headers=app.headers, timeout=30)  # fmt: skip
        assert games.status_code == 200, games.text
        listed = [g["game_id"] for g in games.json()["games"]]
        assert sorted(listed) == sorted(b["game_id"] for r in rounds for b in r["boards"])
    finally:
        first.stop()
        if second is not None:
            second.stop()


def lose_job(redis_client, job_id: str) -> None:
    """A job lost as a killed worker loses one: its record still says it waits, but
    nothing holds it any more. A scheduled one was taken out of the scheduled registry
    (a worker killed as it moved it to the queue); a queued one was taken from its queue
    (a worker of several queues takes a job with BLPOP, and was killed before starting
    it)."""
    job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
    moves = Queue(MOVES, connection=redis_client, serializer=JSONSerializer)
    if job.get_status() == JobStatus.SCHEDULED:
        assert redis_client.zrem(moves.scheduled_job_registry.key, job_id) == 1
    else:
        assert job.get_status() == JobStatus.QUEUED, job.get_status()
        assert redis_client.lrem(moves.key, 0, job_id) == 1


def test_a_round_and_a_count_whose_jobs_were_lost_are_still_made_once(swiss):
    """Round 1's pairing job is lost before any worker runs, and so are the counting jobs
    of round 1's ended games (``lose_job``): a worker's sweep finds each waiting nowhere
    and asks for it again, so round 1 is paired,
    round 2 follows its games' ends, and the tournament ends, each round's games made
    once (the app's games are exactly the boards')."""
    rng = random.Random(9)
    app, tid, tokens = entered_tournament(swiss, swiss.redis, players=4, rounds=2)
    lose_job(swiss.redis, round_job_id(tid, 1))
    processes = worker(swiss)
    try:
        first = play_round(swiss, tid, 1, tokens, rng, stop=processes)
        for board in first["boards"]:
            lose_job(swiss.redis, game_job_id(board["game_id"]))
        processes = worker(swiss)
        rounds = [first, play_round(swiss, tid, 2, tokens, rng)]
        token = next(iter(tokens.values()))
        finished(swiss, tid, token)
        check_played(swiss, tid, token, rounds, set(tokens))
        check_first_dealers(swiss, rounds)
        games = requests.get(f"{swiss.url}/v1/games", params={"client": "me", "limit": 50},
                             headers=app.headers, timeout=30)  # fmt: skip
        listed = [g["game_id"] for g in games.json()["games"]]
        assert sorted(listed) == sorted(b["game_id"] for r in rounds for b in r["boards"])
    finally:
        processes.stop()
