"""Job waits with the log on the cluster and the queues on their own Redis.

Waits on every API replica for a job a worker is running hold no connection of
the queues' Redis (none is blocked there), and all of them wake, with the
result, when the worker announces the job's end. The job is enqueued by dotted
name, as the service enqueues its own (``time.sleep``: it runs for a while).
The timeouts only bound a hang.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from rq.job import Job
from rq.serializers import JSONSerializer

from service.jobs.names import DECISIONS
from service.jobs.queues import queue
from tests.support.topology import WORKERS
from tests.support.waiting import wait_until

pytestmark = pytest.mark.cluster

#: Waits per API replica.
WAITS = 10
#: How long the job runs (seconds): the waits are held meanwhile.
RUNS_FOR = 4
HANG_BOUND = 60


def test_job_waits_on_every_replica_hold_no_queue_connection_and_wake_at_the_end(
    topology, queue_client
):
    job = queue(DECISIONS, queue_client).enqueue(
        "time.sleep", RUNS_FOR, job_id=f"move-{uuid.uuid4().hex}", job_timeout=30
    )
    wait_until(
        lambda: (
            Job.fetch(job.id, connection=queue_client, serializer=JSONSerializer).get_status().value
            == "started"
        ),
        HANG_BOUND,
        "a worker to start the job",
    )

    def wait_for_it(url: str) -> tuple[int, str]:
        answer = requests.get(f"{url}/v1/jobs/{job.id}", params={"wait": 20}, timeout=HANG_BOUND)
        return answer.status_code, answer.json()["status"]

    urls = [url for url in topology.urls for _ in range(WAITS)]
    most_blocked = 0
    with ThreadPoolExecutor(len(urls)) as pool:
        answers = [pool.submit(wait_for_it, url) for url in urls]
        while not all(answer.done() for answer in answers):
            blocked = [c for c in queue_client.client_list() if "b" in c["flags"]]
            most_blocked = max(most_blocked, len(blocked))
    # At most each worker's own blocking dequeue; a job wait blocks nothing.
    assert most_blocked <= WORKERS, f"{most_blocked} connections of the queues' Redis blocked"
    assert [answer.result() for answer in answers] == [(200, "finished")] * len(urls)
