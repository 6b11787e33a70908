"""An arena over HTTP against a live gunicorn and real RQ workers: created by an app,
entered by two dozen players, every board played by a driver (legal actions, then a
resignation) as soon as it is made, one player pausing and coming back, and one worker
killed with ``kill -9`` mid-arena. At rest after the kill every player who finished a
game is on a new board or waiting for a partner the pairing may give them; once over,
no player was in two games at once, none met the same player twice in a row, each
game was made once, nobody was paired while paused or after the end, and the stored
standings equal the recomputation from the games. Its reads and notices show no card."""

from __future__ import annotations

import json
import secrets
import time
from collections import Counter
from collections.abc import Iterator

import pytest
import requests
from rq import Queue
from rq.serializers import JSONSerializer

from service.jobs.names import MOVES
from service.jobs.tournaments import round_job_id
from service.store.tournament_records import Board
from tests.support.arenas import at_rest, check_arena, driving, entered_arena, records_of
from tests.support.http import auth
from tests.support.players import new_app
from tests.support.receiver import Receiver
from tests.support.servers import WorkerProcess
from tests.support.tournament_leaks import assert_notices_hide_cards, assert_reads_hide_cards
from tests.support.tournaments import TournamentService, tournament_service
from tests.support.waiting import wait_until

#: Webhooks reach the test's own receiver on loopback, and no other address.
LOOPBACK_HOOKS = {"SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32"}
#: Bounds a hang of the arena's pairing, its end, or its recovery after a kill (a job a
#: killed worker ran comes back within seconds; the workers' sweep runs every 10 s).
TIMEOUT = 120
TOURNAMENT_NOTICES = ["tournament.started", "tournament.round_paired", "tournament.finished"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TournamentService]:
    """gunicorn with a SQLite database of record on a Redis of its own (workers are the
    tests')."""
    folder = tmp_path_factory.mktemp("arena")
    with tournament_service(folder, workers=0, env=LOOPBACK_HOOKS, gunicorn_workers=2) as found:
        yield found


def worker(service: TournamentService) -> WorkerProcess:
    return service.new_worker()


def status_of(service: TournamentService, arena, token: str) -> dict:
    answer = requests.get(f"{service.url}/v1/tournaments/{arena.tournament_id}",
                          headers=auth(token), timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_arena_pairs_each_player_again_once_through_a_kill_and_counts_every_game(
    service, tmp_path
):
    receiver = Receiver(tmp_path)
    first, second = worker(service), worker(service)
    third = None
    records = records_of(service.database)
    try:
        app = new_app(service.redis)
        hook = requests.post(f"{service.url}/v1/webhooks",
                             json={"url": receiver.url, "events": TOURNAMENT_NOTICES},
                             headers=app.headers, timeout=30)  # fmt: skip
        assert hook.status_code == 201, hook.text
        arena = entered_arena(service.url, app, players=24, duration=45,
                              clock={"seconds_per_move": 30, "on_timeout": "lose"})  # fmt: skip
        pauser, token = next(iter(arena.tokens.items()))
        entries = f"{service.url}/v1/tournaments/{arena.tournament_id}/entries"
        with driving(arena, seed=24) as driver:

            def boards_seen(count: int):
                return lambda: len(driver.log.boards) >= count

            wait_until(boards_seen(12), TIMEOUT, "the first pairing's boards")
            paused = requests.delete(f"{entries}/me", headers=auth(token), timeout=30)
            assert (paused.status_code, paused.json()["status"]) == (200, "paused")
            since = time.time()

            wait_until(boards_seen(40), TIMEOUT, "some games played")
            assert first.kill(), "the worker was running"
            third = worker(service)
            driver.hold()
            rest = wait_until(lambda: at_rest(arena, records), TIMEOUT, "the arena at rest")
            waiting = rest.waiting
            assert pauser not in waiting
            # Who waits could not be paired: an odd one out, or two who just met.
            assert len(waiting) <= 2, waiting
            driver.go()

            until = time.time()
            back = requests.post(entries, headers=auth(token), timeout=30)
            assert (back.status_code, back.json()["status"]) == (201, "entered")

            def over() -> dict | None:
                read = status_of(service, arena, token)
                return read if read["status"] == "finished" else None

            finished = wait_until(over, TIMEOUT, "the arena's end")
        log = driver.log
        assert time.time() >= finished["ends_at"]
        for late in (requests.post(entries, headers=auth(token), timeout=30),
                     requests.delete(f"{entries}/me", headers=auth(token), timeout=30)):  # fmt: skip
            assert (late.status_code, late.json()["code"]) == (409, "tournament_finished")
            assert late.headers["Content-Type"] == "application/problem+json"

        report = check_arena(arena, records, log, {pauser: (since, until)})
        assert report.failures == []
        assert report.games > len(arena.tokens), report.figures()
        assert finished["round"] == report.pairings
        paired_again = {b.dealer for b in records.every_board(arena.tournament_id)
                        if b.round > 1} | {b.forehand for b in records.every_board(
                            arena.tournament_id) if b.round > 1}  # fmt: skip
        assert pauser in paired_again, "the player who came back was paired again"

        def told() -> list[dict] | None:
            # At least once: a worker killed between a delivery and its record sends the same
            # notice again, the same id and body, which a receiver keeps once (docs/webhooks.md).
            kept: dict[str, dict] = {}
            for received in receiver.received():
                if received["status"] == 200:
                    body = json.loads(received["body"])
                    assert kept.setdefault(body["id"], body) == body, "one id, two notices"
            bodies = list(kept.values())
            kinds = Counter(b["type"] for b in bodies)
            # Deliveries of one endpoint are not ordered: a pairing's notice may arrive
            # after the end's, so every one is waited for (one lost fails at the bound).
            done = (
                kinds["tournament.finished"] and kinds["tournament.round_paired"] >= report.pairings
            )
            return bodies if done else None

        bodies = wait_until(told, TIMEOUT, "the arena's end and every pairing told")
        kinds = Counter(b["type"] for b in bodies)
        assert kinds == {"tournament.started": 1, "tournament.finished": 1,
                         "tournament.round_paired": report.pairings}, kinds  # fmt: skip
        told_games = {g["game_id"] for b in bodies for g in b["data"]["boards"]}
        assert told_games == {b.game_id for b in records.every_board(arena.tournament_id)}
        assert_notices_hide_cards((body["type"], body) for body in bodies)
    finally:
        first.stop()
        second.stop()
        if third is not None:
            third.stop()
        receiver.stop()
        records.close()


def test_an_arenas_reads_show_no_hidden_card_and_only_a_players_own_seat(service):
    """While its first games run: each seat's view hides what R11 hides, a spectator sees
    no hand, and the arena's reads (by the app and by a player: the arena, its standings,
    its boards, the player's tournaments) hold no card; only a player's own board carries
    a seat and its token."""
    processes = worker(service)
    try:
        app = new_app(service.redis)
        arena = entered_arena(service.url, app, players=4, duration=30, starts_in=1)
        path = f"{service.url}/v1/tournaments/{arena.tournament_id}"

        def made() -> dict | None:
            boards = requests.get(f"{path}/boards", headers=app.headers, timeout=30).json()
            ids = [b["game_id"] for b in boards["boards"]]
            live = all(requests.get(f"{service.url}/v1/games/{g}", timeout=30).ok for g in ids)
            return boards if len(ids) == 2 and live else None

        boards = wait_until(made, TIMEOUT, "the arena's first games made")
        assert_reads_hide_cards(
            service.url, service.redis, app, arena.tournament_id, arena.tokens, boards
        )
    finally:
        processes.stop()


def test_a_pairing_claimed_by_a_killed_worker_has_its_games_made_and_told_by_the_sweep(
    service, tmp_path
):
    """The arena's start job claimed its first pairing in the database and was lost with
    its worker before it made the games (written here as that worker left it: the claim
    kept, the job's record saying it waits where nothing holds it): the workers' sweep
    finds the claim's games missing, asks for the start again, and it makes them, the
    claimed boards, once, and tells the app of the pairing as if no worker had died."""
    receiver = Receiver(tmp_path)
    app = new_app(service.redis)
    hook = requests.post(f"{service.url}/v1/webhooks",
                         json={"url": receiver.url, "events": TOURNAMENT_NOTICES},
                         headers=app.headers, timeout=30)  # fmt: skip
    assert hook.status_code == 201, hook.text
    arena = entered_arena(service.url, app, players=2, duration=600, starts_in=3600)
    dealer, forehand = sorted(arena.tokens)
    seed = secrets.token_hex(32)
    game_id = secrets.token_hex(8)
    records = records_of(service.database)
    try:
        now = int(time.time() * 1000)
        with records.db.write() as run:
            run("UPDATE tournaments SET starts_ms = ?, ends_ms = ?, status = ? "
                "WHERE tournament_id = ?", (now, now + 600_000, "started", arena.tournament_id))  # fmt: skip
        assert records.claim_round(arena.tournament_id, 1, seed, now,
                                   [Board(1, 1, game_id, dealer, forehand)], None)  # fmt: skip
        moves = Queue(MOVES, connection=service.redis, serializer=JSONSerializer)
        start = round_job_id(arena.tournament_id, 1)
        assert service.redis.zrem(moves.scheduled_job_registry.key, start) == 1
        processes = worker(service)
        try:
            made = wait_until(
                lambda: requests.get(f"{service.url}/v1/games/{game_id}", timeout=30).ok,
                TIMEOUT,
                "the claimed pairing's game made",
            )
            assert made
            boards = requests.get(f"{service.url}/v1/tournaments/{arena.tournament_id}/boards",
                                  headers=app.headers, timeout=30).json()  # fmt: skip
            assert [(b["game_id"], b["dealer"], b["forehand"]) for b in boards["boards"]] == [
                (game_id, dealer, forehand)
            ]

            def paired_told() -> dict | None:
                bodies = [json.loads(r["body"]) for r in receiver.received()]
                paired = [b for b in bodies if b["type"] == "tournament.round_paired"]
                return paired[0]["data"] if paired else None

            told = wait_until(paired_told, TIMEOUT, "the claimed pairing told")
            assert (told["round"], [b["game_id"] for b in told["boards"]]) == (1, [game_id])
        finally:
            processes.stop()
    finally:
        receiver.stop()
        records.close()
