"""What the run command prints: where to go first, and silence while nothing happens."""

from __future__ import annotations

import json
import time

import requests

from tests.support.servers import RunCommand, free_port
from tests.support.waiting import wait_until

#: How long the service is left alone: several of the workers' dequeue timeouts and
#: maintenance passes (workers/worker.py: every 3 s), and a scheduler's poll.
IDLE_SECONDS = 12


def test_the_start_banner_prints_the_play_page_and_the_docs_where_they_answer(tmp_path):
    output = tmp_path / "stdout"
    service = RunCommand(tmp_path / "var", free_port(), stdout=output)
    try:
        banner = wait_until(
            lambda: "/docs" in output.read_text() and output.read_text(), 30, "the start banner"
        )
        addresses = [word for word in banner.split() if word.startswith("http://")]
        pages = [address for address in addresses if "/play" in address or "/docs" in address]
        assert len(pages) == 2, banner
        for address in pages:
            assert requests.get(address, timeout=10).status_code == 200, address
    finally:
        service.interrupt()


def _rq_lines(text: str) -> list[dict]:
    """The JSON log lines of RQ's loggers (the workers log JSON lines, service.ops.logs)."""
    entries = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # gunicorn's own lines, Python's warnings
        if isinstance(entry, dict) and str(entry.get("logger", "")).startswith("rq"):
            entries.append(entry)
    return entries


def test_an_idle_service_writes_no_info_lines_from_rq(tmp_path):
    errors = tmp_path / "stderr"
    service = RunCommand(tmp_path / "var", free_port(), stderr=errors)
    try:
        # Both workers and a scheduler have started (their start lines stay at INFO) ...
        wait_until(
            lambda: (
                sum("Listening on" in e["message"] for e in _rq_lines(errors.read_text())) == 2
                and any("Scheduler for" in e["message"] for e in _rq_lines(errors.read_text()))
            ),
            60,
            "the workers' and the scheduler's start lines",
        )
        started = len(errors.read_text())
        # ... then nothing is asked of the service for several maintenance passes.
        time.sleep(IDLE_SECONDS)  # the idle time is the thing under test, not a wait
        idle = errors.read_text()[started:]
    finally:
        service.interrupt()
    noise = [e for e in _rq_lines(idle) if e["level"] == "INFO"]
    assert not noise, f"{len(noise)} INFO lines from RQ while idle, e.g. {noise[:3]}"
