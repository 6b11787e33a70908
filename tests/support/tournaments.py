"""A service that runs tournaments, for tests over HTTP: gunicorn with a database of record
(SQLite in a temporary folder) and an RQ worker, on a Redis of their own (another
module's worker, which has no database of record, would take the tournaments' jobs and
fail them); and Swiss tournaments of new players, entered and paired."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import requests
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.http import auth
from tests.support.players import AppKey, new_app, register_over_http
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: Bounds a hang of a round's pairing, never a speed.
PAIRING_TIMEOUT = 120


@dataclass(frozen=True)
class TournamentService:
    url: str
    redis_url: str
    redis: Redis
    #: The database of record's URL (a worker a test starts itself needs it).
    database: str
    #: The settings the server and its workers run with beside the database's.
    env: dict[str, str] = field(default_factory=dict)

    def new_worker(self) -> WorkerProcess:
        """One more RQ worker of this service (a test that kills workers starts its own)."""
        return WorkerProcess(self.redis_url, SCHNAPSEN_ARCHIVE_URL=self.database, **self.env)


@dataclass(frozen=True)
class EnteredSwiss:
    """A Swiss of new players of ``app``: its id, and each player's token by id."""

    app: AppKey
    tournament_id: str
    tokens: dict[str, str]


@contextmanager
def tournament_service(
    folder: Path,
    workers: int = 1,
    env: dict[str, str] | None = None,
    gunicorn_workers: int = 1,
) -> Iterator[TournamentService]:
    """gunicorn and ``workers`` RQ workers on a Redis of their own, with a SQLite database
    of record; ``env``: more settings for both (a test that kills workers starts its own)."""
    redis_server = EmbeddedRedis(folder / "redis").start()
    database = f"sqlite:///{folder / 'records.sqlite3'}"
    service = TournamentService(
        "", redis_server.url, Redis.from_url(redis_server.url), database, dict(env or {})
    )
    server = LiveServer(
        redis_server.url,
        workers=gunicorn_workers,
        env={"SCHNAPSEN_ARCHIVE_URL": database, **service.env},
    )
    started = [service.new_worker() for _ in range(workers)]
    try:
        yield replace(service, url=server.url)
    finally:
        for worker in started:
            worker.stop()
        server.stop()
        redis_server.stop()


def created_and_entered(
    url: str, app: AppKey, body: dict[str, Any], players: int
) -> tuple[dict[str, Any], dict[str, str]]:
    """A tournament ``app`` creates with ``body``, and ``players`` new players of ``app``
    entered in it: the create's answer, and each player's token by id."""
    answer = requests.post(f"{url}/v1/tournaments", json=body, headers=app.headers, timeout=30)
    assert answer.status_code == 201, answer.text
    tournament = answer.json()
    tokens: dict[str, str] = {}
    for index in range(players):
        player = register_over_http(url, app.headers, f"Player {index}")
        tokens[player["player"]["player_id"]] = player["token"]
        joined = requests.post(
            f"{url}/v1/tournaments/{tournament['tournament_id']}/entries",
            headers=auth(player["token"]),
            timeout=30,
        )
        assert joined.status_code == 201, joined.text
    return tournament, tokens


def entered_swiss(
    service: TournamentService,
    players: int,
    rounds: int,
    app: AppKey | None = None,
    name: str = "Friday Swiss",
) -> EnteredSwiss:
    """A Swiss of ``players`` new players of ``app`` (else a new app), starting in 3 s."""
    app = app or new_app(service.redis)
    body = {"name": name, "rounds": rounds, "starts_in": 3}
    tournament, tokens = created_and_entered(service.url, app, body, players)
    return EnteredSwiss(app, tournament["tournament_id"], tokens)


def round_in_play(service: TournamentService, swiss: EnteredSwiss, number: int) -> dict[str, Any]:
    """Round ``number``'s boards (as the app reads them), once every game of it is made."""

    def made() -> dict[str, Any] | None:
        boards = requests.get(
            f"{service.url}/v1/tournaments/{swiss.tournament_id}/boards",
            headers=swiss.app.headers,
            timeout=30,
        ).json()
        if boards["round"] != number or not boards["boards"]:
            return None
        ids = [board["game_id"] for board in boards["boards"]]
        every = all(requests.get(f"{service.url}/v1/games/{g}", timeout=30).ok for g in ids)
        return boards if every else None

    return wait_until(made, PAIRING_TIMEOUT, f"round {number} of {swiss.tournament_id} made")


def seat_token(service: TournamentService, swiss: EnteredSwiss, player: str, game_id: str) -> str:
    """The seat token of ``player`` on its board ``game_id`` (its own boards read)."""
    answer = requests.get(
        f"{service.url}/v1/tournaments/{swiss.tournament_id}/boards",
        headers=auth(swiss.tokens[player]),
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    [mine] = [b for b in answer.json()["boards"] if b["game_id"] == game_id and "token" in b]
    return mine["token"]


__all__ = [
    "PAIRING_TIMEOUT",
    "EnteredSwiss",
    "TournamentService",
    "created_and_entered",
    "entered_swiss",
    "round_in_play",
    "seat_token",
    "tournament_service",
]
