"""A failing test is reported as a failure, whatever its traceback holds.

A test stopped by pytest-timeout on a loaded machine can carry a frame without a
line number; pytest's report of it used to fail with an INTERNALERROR that ended the
whole run under pytest-xdist, hiding every other test's result
(``tests/support/failure_reports.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: A test module whose one failing test raises through a frame with no line numbers,
#: beside a test that passes.
LINELESS = """
def _raise():
    raise ValueError("the test's own failure")


def _lineless(function):
    function.__code__ = function.__code__.replace(co_linetable=b"")
    return function


@_lineless
def call_it():
    _raise()


def test_fails_through_a_frame_without_lines():
    call_it()


def test_passes():
    pass
"""


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_lineless.py").write_text(LINELESS)
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_suite_reports_failures_through_the_failure_reports_plugin(
    request: pytest.FixtureRequest,
):
    assert request.config.pluginmanager.has_plugin("tests.support.failure_reports")


@pytest.mark.parametrize(
    "processes",
    [
        pytest.param(["-p", "no:xdist"], id="one-process"),
        pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.heavy),  # two more pytests
    ],
)
def test_a_failure_through_a_frame_without_lines_is_reported_and_the_run_goes_on(
    tmp_path: Path, processes: list[str]
):
    run = run_pytest(tmp_path, "-p", "tests.support.failure_reports", *processes)
    output = run.stdout + run.stderr
    assert "INTERNALERROR" not in output, output[-3000:]
    assert "1 failed, 1 passed" in output, output[-3000:]
    assert "the test's own failure" in output
