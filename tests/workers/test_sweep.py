"""The sweep a worker runs on its own finds what nobody sent it: an ended game whose ending
was never noted is archived, and games walked away from are ended (RX2, RX3) and archived.

A real RQ worker with an archive, a sweep every second, a scan for strays
every second and games abandoned after two seconds of standing still. The
games are made by a process without an archive, so none of their endings asks
for archiving. The waits only bound a hang.
"""

from __future__ import annotations

import random
from pathlib import Path

import redis

from service.engine import Variant
from service.engine.state import GameEndReason
from service.game.commands import NewGame, Opponent
from service.store.archive import open_archive
from service.store.archiving import ENDED, RELEASE
from service.store.events import keys
from tests.support.lifecycle import archived_rows, finish, moves, table
from tests.support.servers import WorkerProcess
from tests.support.waiting import wait_until

ABANDONED_AFTER = 2
HANG_BOUND = 60


def test_the_sweep_archives_unnoted_games_and_ends_abandoned_ones(own_redis: str, tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    client = redis.Redis.from_url(own_redis)
    unaware = table(client, None).games  # a process with no archive: nothing is noted
    rng = random.Random(20261209)
    ended = finish(unaware, rng, "played", Variant.TRACKED).game_id
    unjoined = unaware.create(NewGame(Variant.HEAD, Opponent())).current.game_id
    created = unaware.create(NewGame(Variant.HEAD, Opponent()))
    assert created.invite is not None
    untouched = created.current.game_id
    unaware.join(untouched, created.invite)
    aborted = finish(unaware, rng, "aborted", Variant.HEAD).game_id
    made = unaware.create(NewGame(Variant.TRACKED, Opponent()))
    assert made.invite is not None
    walked = made.current.game_id
    tokens = {0: made.token, 1: unaware.join(walked, made.invite).token}
    state = moves(unaware, walked, tokens, 9, rng, "patient")
    assert not state.over and state.to_move is not None
    to_move = state.to_move
    ids = [ended, aborted, unjoined, untouched, walked]
    assert client.zcard(ENDED) == 0

    worker = WorkerProcess(
        own_redis,
        SCHNAPSEN_ARCHIVE_URL=url,
        SCHNAPSEN_ARCHIVE_GRACE_SECONDS="0",
        SCHNAPSEN_SWEEP_SECONDS="1",
        SCHNAPSEN_STRAY_SCAN_SECONDS="1",
        SCHNAPSEN_ABANDONED_AFTER_SECONDS=str(ABANDONED_AFTER),
    )
    try:

        def all_moved() -> bool:
            if client.exists(*(keys(game_id)["log"] for game_id in ids)):
                return False
            return set(archived_rows(url, ids).values()) == {1}

        wait_until(all_moved, HANG_BOUND, "every game archived and forgotten by Redis")
        wait_until(lambda: not client.zcard(ENDED) and not client.zcard(RELEASE), 30, "quiet")
    finally:
        worker.stop()

    archive = open_archive(url)
    try:
        games = table(client, archive).games
        assert games.current(ended).state.ending is None and games.current(ended).state.over
        for game_id in (unjoined, untouched):
            state = games.current(game_id).state
            assert state.ending is not None and state.ending.reason is GameEndReason.ABORTED
        walked_state = games.current(walked).state
        assert walked_state.ending is not None
        assert walked_state.ending.reason is GameEndReason.TIMED_OUT
        assert walked_state.winner == 1 - to_move, "won by the seat that was waiting"
    finally:
        archive.close()
