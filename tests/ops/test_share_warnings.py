"""A share set at or above the total it is a part of is warned about at start.

``SCHNAPSEN_MAX_WAITING_PER_ADDRESS`` at or above ``SCHNAPSEN_MAX_WAITING`` lets
one address hold every waiting slot of a process; the same holds for each
share/total pair of the settings (service/ops/shares.py). The defaults give
no warning; each pair set to reach its total gives one naming both settings;
the app factory logs it, the gunicorn worker logs the connection pairs.
"""

from __future__ import annotations

import logging

import pytest

from service.ops.settings import from_env
from service.ops.shares import (
    CONNECTION_SHARES,
    SHARES,
    overreaching_connection_shares,
    overreaching_shares,
)
from service.web.app import create_app
from tests.support.paths import SECRET
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

DEFAULT_CONNECTIONS = 5000  # the run command's --web-connections


def test_the_default_settings_warn_of_no_share():
    defaults = from_env({})
    assert overreaching_shares(defaults) == []
    assert overreaching_connection_shares(defaults, DEFAULT_CONNECTIONS) == []


@pytest.mark.parametrize("pair", SHARES, ids=lambda pair: pair.share)
def test_a_share_at_its_total_or_off_is_warned_about_by_name(pair):
    defaults = from_env({})
    total = defaults.as_config()[pair.total]
    at_total = overreaching_shares(defaults.overridden({pair.share: total}))
    assert len(at_total) == 1
    assert f"SCHNAPSEN_{pair.share} is {total}" in at_total[0]
    assert f"SCHNAPSEN_{pair.total}={total}" in at_total[0]
    assert len(overreaching_shares(defaults.overridden({pair.share: total + 1}))) == 1
    assert "is 0 (no share)" in overreaching_shares(defaults.overridden({pair.share: 0}))[0]
    assert overreaching_shares(defaults.overridden({pair.share: total - 1})) == []
    # An unbounded total (0) has nothing to share out.
    assert overreaching_shares(defaults.overridden({pair.share: total, pair.total: 0})) == []


@pytest.mark.parametrize("pair", CONNECTION_SHARES, ids=lambda pair: pair.share)
def test_a_share_of_a_process_s_connections_at_their_number_is_warned_about(pair):
    below = from_env({}).overridden({"MAX_WAITING": 10, "CONNECTIONS_PER_ADDRESS": 10})
    assert overreaching_connection_shares(below, 50) == []
    warned = overreaching_connection_shares(below.overridden({pair.share: 50}), 50)
    assert len(warned) == 1 and f"SCHNAPSEN_{pair.share} is 50" in warned[0]
    assert "SCHNAPSEN_WEB_CONNECTIONS=50" in warned[0]


def test_behind_proxies_the_cap_per_address_is_not_the_servers_to_warn_about():
    config = from_env({}).overridden({"PROXY_HOPS": 1, "MAX_WAITING": 10})
    assert overreaching_connection_shares(config, 100) == []  # CONNECTIONS_PER_ADDRESS 100


def test_a_waiting_share_of_zero_slots_is_no_share_to_warn_about():
    # MAX_WAITING 0 holds no waiter at all: it is not "off" and takes no connection.
    assert overreaching_connection_shares(from_env({}).overridden({"MAX_WAITING": 0}), 5000) == []


def test_the_app_factory_warns_when_one_address_may_hold_every_waiting_slot(redis_url, caplog):
    config = {"REDIS_URL": redis_url, "SECRET_KEY": SECRET}
    with caplog.at_level(logging.WARNING, logger="service.web.app"):
        create_app({**config, "MAX_WAITING": 80, "MAX_WAITING_PER_ADDRESS": 100})
    warned = [r.getMessage() for r in caplog.records if "MAX_WAITING_PER_ADDRESS" in r.getMessage()]
    assert warned == [
        "SCHNAPSEN_MAX_WAITING_PER_ADDRESS is 100, at or above SCHNAPSEN_MAX_WAITING=80: "
        "one client address may take all of it; set SCHNAPSEN_MAX_WAITING_PER_ADDRESS below 80"
    ]


def test_a_gunicorn_process_warns_when_its_waiters_may_take_every_connection(redis_url, tmp_path):
    log = tmp_path / "server.log"
    server = LiveServer(
        redis_url, workers=1, connections=300, env={"SCHNAPSEN_MAX_WAITING": "300"}, log=log
    )
    try:
        wait_until(
            lambda: (
                "SCHNAPSEN_MAX_WAITING is 300, at or above SCHNAPSEN_WEB_CONNECTIONS=300"
                in log.read_text(errors="replace")
            ),
            30,
            "the worker's warning",
        )
    finally:
        server.stop()
