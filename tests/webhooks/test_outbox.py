"""The apps' outboxes and turns on a real Redis of this module's own (no worker takes the
turns here: what is queued is read from the queue)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator

import pytest
from redis import Redis
from rq.job import Job
from rq.serializers import JSONSerializer

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.names import WEBHOOKS
from service.jobs.queues import queue
from service.jobs.webhook_outbox import LOST_TURN_SECONDS, AppOutboxes, Asked


@pytest.fixture(scope="module")
def connection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("outbox")).start()
    try:
        yield Redis.from_url(server.url)
    finally:
        server.stop()


def _app() -> str:
    return "cl_" + secrets.token_hex(6)


def _turns(connection: Redis, app: str) -> list[Job]:
    jobs = queue(WEBHOOKS, connection).get_jobs()
    return [job for job in jobs if job.args == [app]]


def test_an_app_with_many_deliveries_waiting_has_one_turn_queued(connection):
    first, second = _app(), _app()
    outboxes = AppOutboxes(connection)
    for n in range(5):
        assert outboxes.add(first, f"dlv_{n}") is Asked.QUEUED
    assert outboxes.add(second, "dlv_x") is Asked.QUEUED
    assert len(_turns(connection, first)) == 1
    assert len(_turns(connection, second)) == 1


def test_a_turn_sends_the_oldest_and_queues_the_next_behind_the_other_apps(connection):
    slow, other = _app(), _app()
    outboxes = AppOutboxes(connection)
    outboxes.add(slow, "dlv_a")
    outboxes.add(slow, "dlv_b")
    outboxes.add(other, "dlv_c")
    (turn,) = _turns(connection, slow)
    head = outboxes.head(slow, turn.id)
    assert head and head.delivery_id == "dlv_a" and not head.asked_again
    assert outboxes.done(slow, turn.id, "dlv_a") is True
    ids = [job.id for job in queue(WEBHOOKS, connection).get_jobs()]
    (next_turn,) = [job for job in _turns(connection, slow) if job.id != turn.id]
    assert ids.index(next_turn.id) > ids.index(_turns(connection, other)[0].id)
    # a copy of the old turn (a killed worker's job run again) sends nothing
    assert outboxes.head(slow, turn.id) is False
    assert outboxes.head(slow, next_turn.id).delivery_id == "dlv_b"


def test_a_delivery_asked_again_while_it_waits_is_queued_once(connection):
    app = _app()
    outboxes = AppOutboxes(connection)
    assert outboxes.ask_again(app, "dlv_a") is Asked.QUEUED
    assert outboxes.ask_again(app, "dlv_a") is Asked.HELD
    assert outboxes.add(app, "dlv_a") is Asked.HELD
    assert connection.llen(f"sch:hooks:{app}:outbox") == 1


def test_past_the_cap_of_redeliveries_waiting_one_more_is_refused_and_changes_nothing(
    connection,
):
    app = _app()
    outboxes = AppOutboxes(connection, redeliveries_per_app=2)
    assert outboxes.ask_again(app, "dlv_a") is Asked.QUEUED
    assert outboxes.ask_again(app, "dlv_b") is Asked.QUEUED
    before = connection.lrange(f"sch:hooks:{app}:outbox", 0, -1)
    assert outboxes.ask_again(app, "dlv_c") is Asked.TOO_MANY_AGAIN
    assert connection.lrange(f"sch:hooks:{app}:outbox", 0, -1) == before
    # a new notice's delivery is no redelivery: it still waits its turn
    assert outboxes.add(app, "dlv_d") is Asked.QUEUED


def test_a_full_outbox_refuses_a_new_delivery(connection):
    app = _app()
    outboxes = AppOutboxes(connection, outbox_cap=2)
    assert outboxes.add(app, "dlv_a") is Asked.QUEUED
    assert outboxes.add(app, "dlv_b") is Asked.QUEUED
    assert outboxes.add(app, "dlv_c") is Asked.OUTBOX_FULL


def test_a_turn_whose_job_was_lost_is_queued_again_by_the_recovery(connection):
    app = _app()
    outboxes = AppOutboxes(connection)
    outboxes.add(app, "dlv_a")
    (turn,) = _turns(connection, app)
    Job.fetch(turn.id, connection=connection, serializer=JSONSerializer).delete()
    assert _turns(connection, app) == []
    assert outboxes.recover(now=time.time() + LOST_TURN_SECONDS + 1) >= 1
    (again,) = _turns(connection, app)
    assert outboxes.head(app, again.id).delivery_id == "dlv_a"


def test_a_turn_goes_on_with_its_apps_next_delivery_only_while_nothing_else_waits(connection):
    for job in queue(WEBHOOKS, connection).get_jobs():  # the other tests' turns: none waits
        job.delete()
    app = _app()
    outboxes = AppOutboxes(connection)
    outboxes.add(app, "dlv_a")
    outboxes.add(app, "dlv_b")
    outboxes.add(app, "dlv_c")
    (turn,) = _turns(connection, app)
    queue(WEBHOOKS, connection).remove(turn.id)  # a worker took it: it runs now
    assert not outboxes.others_waiting()
    assert outboxes.done(app, turn.id, "dlv_a", go_on=True) is True
    assert _turns(connection, app) == []  # went on: no new turn queued
    assert outboxes.head(app, turn.id).delivery_id == "dlv_b"
    other = _app()
    outboxes.add(other, "dlv_x")
    assert outboxes.others_waiting()
    assert outboxes.done(app, turn.id, "dlv_b", go_on=False) is True
    ids = [job.id for job in queue(WEBHOOKS, connection).get_jobs()]
    assert ids[0] == _turns(connection, other)[0].id and len(_turns(connection, app)) == 1
