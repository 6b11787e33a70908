"""The names of the lanes a test can run in (tests/conftest.py gives each test one)."""

from __future__ import annotations

LANES = ("unit", "heavy", "redis", "system", "cluster", "browser", "contract")
#: The fast lanes, the ones to run while working (CONTRIBUTING.md): ``-m "unit or redis"``.
FAST_LANES = ("unit", "redis")
#: Lanes whose tests share one thing per machine, not per process: under pytest-xdist
#: (``-n 2``, what ``bash scripts/test`` runs) all of such a lane's tests go to one worker
#: (``--dist loadgroup`` with an ``xdist_group`` marker named after the lane), so the
#: cluster's topology (six Redis nodes, three gunicorns, two RQ workers) starts once, not
#: once per worker, and a single ``npm ci`` fills tests/contract/ts/node_modules.
SHARED_LANES = ("cluster", "contract")
#: What a test module writes when it starts processes of the service itself (gunicorn, RQ
#: workers, the run command, or a deployment of them: tests/support/tournaments.py): its
#: tests run in the ``system`` lane (tests/conftest.py).
SYSTEM_CALLS = (
    "LiveServer(",
    "WorkerProcess(",
    "RunCommand(",
    "subprocess.Popen(",
    "tournament_service(",
)
