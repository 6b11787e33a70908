"""Request ids (X-Request-ID on every answer) and JSON log lines that carry them."""

from __future__ import annotations

import logging
import math
import re

import pytest

from service.ops.logs import JsonFormatter
from tests.support.json_logs import records


def test_a_sane_request_id_is_echoed(client):
    response = client.get("/healthz", headers={"X-Request-ID": "trace-42.abc_DEF"})
    assert response.headers["X-Request-ID"] == "trace-42.abc_DEF"


def test_a_request_id_is_made_when_none_is_sent(client):
    first = client.get("/healthz").headers["X-Request-ID"]
    second = client.get("/healthz").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert first != second


@pytest.mark.parametrize(
    "sent",
    ["x" * 129, "two words", "tab\there", "naïve", ""],
    ids=["too-long", "space", "control", "non-ascii", "empty"],
)
def test_an_insane_request_id_is_replaced(client, sent):
    answered = client.get("/healthz", headers={"X-Request-ID": sent}).headers["X-Request-ID"]
    assert answered != sent
    assert re.fullmatch(r"[0-9a-f]{32}", answered)


def test_a_request_id_of_128_characters_is_kept(client):
    sent = "a" * 128
    assert client.get("/healthz", headers={"X-Request-ID": sent}).headers["X-Request-ID"] == sent


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("GET", "/no/such/page", {}, 404),
        ("DELETE", "/healthz", {}, 405),
        ("POST", "/v1/games", {"data": "x", "content_type": "text/plain"}, 415),
        ("POST", "/v1/games", {"data": "{", "content_type": "application/json"}, 400),
        ("GET", "/v1/games/nope", {}, 404),
    ],
)
def test_errors_carry_the_request_id_too(client, method, path, kwargs, status):
    response = client.open(path, method=method, headers={"X-Request-ID": "err-1"}, **kwargs)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"
    assert response.headers["X-Request-ID"] == "err-1"


def test_an_unhandled_error_carries_the_request_id(app):
    # A route that fails, on a copy of the app's wiring: 500 as a problem, id kept.
    from service.web.app import create_app
    from tests.support.paths import SECRET

    failing = create_app({"REDIS_URL": app.config["REDIS_URL"], "SECRET_KEY": SECRET})

    @failing.route("/fails")
    def fails():
        raise RuntimeError("a secret detail")

    response = failing.test_client().get("/fails", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500
    assert response.mimetype == "application/problem+json"
    assert response.headers["X-Request-ID"] == "boom-1"
    assert "secret detail" not in response.get_data(as_text=True)


def test_each_request_logs_one_json_line_with_its_id(client, log_lines):
    response = client.get("/v1/games/does-not-exist", headers={"X-Request-ID": "log-me-1"})
    assert response.status_code == 404
    lines = [r for r in records(log_lines) if r.get("request_id") == "log-me-1"]
    access = [r for r in lines if r["logger"] == "service.access"]
    assert len(access) == 1, lines
    line = access[0]
    assert line["method"] == "GET"
    assert line["path"] == "/v1/games/does-not-exist"
    assert line["status"] == 404
    assert isinstance(line["duration_ms"], int | float) and math.isfinite(line["duration_ms"])
    assert line["level"] == "INFO"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["time"])
    assert line["message"] == "GET /v1/games/does-not-exist 404"


def test_other_log_lines_of_a_request_carry_its_id(app, log_lines):
    with app.test_request_context("/anything"):
        from flask import g

        g.request_id = "inner-7"
        logging.getLogger("service.somewhere").warning("something %s", "happened")
    [line] = [r for r in records(log_lines) if r["logger"] == "service.somewhere"]
    assert line == {
        "time": line["time"],
        "level": "WARNING",
        "logger": "service.somewhere",
        "message": "something happened",
        "request_id": "inner-7",
    }


def test_exceptions_are_logged_inside_the_json_line(log_lines):
    try:
        raise ValueError("bad value")
    except ValueError:
        logging.getLogger("service.x").exception("failed")
    [line] = [r for r in records(log_lines) if r["logger"] == "service.x"]
    assert line["level"] == "ERROR"
    assert "ValueError: bad value" in line["exception"]
    assert "request_id" not in line  # outside a request


def test_the_log_level_comes_from_the_settings(redis_url):
    from service.ops.settings import from_env
    from service.web.app import create_app
    from tests.support.paths import SECRET

    assert from_env({"SCHNAPSEN_LOG_LEVEL": "warning"}).log_level == "warning"
    assert from_env({}).log_level == "INFO"
    root = logging.getLogger()
    before = root.level
    try:
        create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "LOG_LEVEL": "warning"})
        assert root.level == logging.WARNING
        create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "LOG_LEVEL": "DEBUG"})
        assert root.level == logging.DEBUG
    finally:
        root.setLevel(before)


def test_a_line_s_time_is_datetime_s_to_the_millisecond():
    # The formatter keeps the text of the newest second; its milliseconds must round as
    # datetime.fromtimestamp does (to microseconds, half to even), at second boundaries too.
    import random
    from datetime import UTC, datetime

    formatter, rng = JsonFormatter(), random.Random(11)
    for _ in range(20_000):
        created = rng.choice([rng.uniform(0, 4e9), 1_764_620_000 + rng.random() * 3])
        expected = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
        assert formatter._time(created) == expected, created
