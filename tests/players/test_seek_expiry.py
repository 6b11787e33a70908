"""A seek nobody waits on ends by itself and is never paired after that."""

from __future__ import annotations

import time

from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.web.app import create_app
from service.web.services import services
from tests.support.paths import SECRET
from tests.support.players import bearer, new_app
from tests.support.waiting import wait_until


def test_a_seek_nobody_waits_on_expires_and_is_never_paired(tmp_path):
    with EmbeddedRedis(tmp_path / "redis") as server:
        app = create_app({"REDIS_URL": server.url, "SECRET_KEY": SECRET, "SEEK_ALIVE_SECONDS": 0.5})
        client = app.test_client()
        key = new_app(Redis.from_url(server.url))
        tokens = [
            client.post(
                "/v1/players", json={"app_player_id": name, "name": name}, headers=key.headers
            ).json["token"]
            for name in ("anna", "ben")
        ]
        seek = client.post("/v1/seeks", json={}, headers=bearer(tokens[0])).json
        record = f"sch:{{client:{key.id}}}:seek:{seek['seek_id']}"
        store = Redis.from_url(server.url)
        wait_until(
            lambda: int(store.hget(record, "alive")) < time.time() * 1000,
            30,
            "the seek's life to pass without a wait",
        )
        other = client.post("/v1/seeks", json={}, headers=bearer(tokens[1])).json
        assert other["status"] == "waiting"  # not paired with the expired seek
        assert (
            client.get(f"/v1/seeks/{seek['seek_id']}", headers=bearer(tokens[0])).json["status"]
            == "expired"
        )
        # the expired seek's player may seek again at once
        again = client.post("/v1/seeks", json={}, headers=bearer(tokens[0])).json
        assert again["status"] == "paired" and again["game_id"]
        services(app).watcher.close()
        services(app).job_watcher.close()
