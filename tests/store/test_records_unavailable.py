"""A database of record that stops answering is a clear 503 ``store_unavailable`` with
``Retry-After``, never a 500: on a live gunicorn whose players live in PostgreSQL, a
player's read after the server went away."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import requests

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.admin import admin
from tests.support.http import auth
from tests.support.players import register_over_http
from tests.support.postgres import PostgresServer
from tests.support.servers import LiveServer


def test_a_database_that_stopped_answering_is_a_503_not_a_500(tmp_path: Path):
    with EmbeddedRedis(tmp_path / "redis") as redis_server, PostgresServer() as postgres:
        env = {"SCHNAPSEN_ARCHIVE_URL": postgres.url}
        server = LiveServer(redis_server.url, workers=1, env=env)
        try:
            made = admin(redis_server.url, "clients", "create", "A", "--json", env=env)
            player = register_over_http(server.url, auth(json.loads(made.stdout)["key"]), "P")
            me = f"{server.url}/v1/players/me"
            assert requests.get(me, headers=auth(player["token"]), timeout=60).status_code == 200
            assert postgres.process is not None
            postgres.process.send_signal(signal.SIGINT)  # a fast shutdown: the database is gone
            postgres.process.wait(timeout=30)
            answer = requests.get(me, headers=auth(player["token"]), timeout=60)
            assert answer.status_code == 503, answer.text
            assert answer.headers["Content-Type"] == "application/problem+json"
            assert answer.json()["code"] == "store_unavailable"
            assert int(answer.headers["Retry-After"]) >= 1
        finally:
            server.stop()
