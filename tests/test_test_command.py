"""The test command (``bash scripts/test``) sets itself up once, not on every run.

Its install of the package (pip and mypyc's build of the search core) takes minutes,
so a second run with nothing changed must skip it and go straight to lint and pytest
(CONTRIBUTING.md gives the time that takes here; the test prints it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.support.paths import REPO


def run_test_command(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``bash scripts/test <args>`` with this Python; its result and how long it took."""
    started = time.monotonic()
    result = subprocess.run(
        ["bash", "scripts/test", *args],
        cwd=REPO,
        env=dict(os.environ, PYTHON=sys.executable),
        capture_output=True,
        text=True,
        timeout=900,
    )
    return result, time.monotonic() - started


@pytest.mark.system
@pytest.mark.slow
def test_a_second_run_with_nothing_changed_does_not_install_again():
    collect = ("--collect-only", "-q", "-p", "no:cacheprovider", "tests/test_repository_files.py")
    first, _ = run_test_command(*collect)  # installs only if this Python lacks the build
    assert first.returncode == 0, first.stderr[-2000:]
    second, seconds = run_test_command(*collect)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "installing the package" not in second.stderr, second.stderr[-2000:]
    assert "test_the_env_file" in second.stdout  # it went on to pytest
    print(f"the second run reached pytest and ended in {seconds:.1f} s")


def test_the_test_command_lints_with_ruff_before_pytest_and_the_tree_is_clean():
    script = (REPO / "scripts" / "test").read_text().splitlines()
    commands = [line.strip() for line in script if not line.lstrip().startswith("#")]
    lint = next((i for i, line in enumerate(commands) if "-m ruff check" in line), -1)
    tests = next(i for i, line in enumerate(commands) if "-m pytest" in line)
    assert 0 <= lint < tests, "scripts/test does not run ruff check before pytest"
    assert "|| true" not in commands[lint]  # a lint error fails the command
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:]


def processes_chosen(*args: str) -> list[str]:
    """The pytest-xdist arguments ``scripts/test`` adds to ``args``: its lines from
    ``processes=(`` to the loop's ``done``, run by bash with ``args``."""
    script = (REPO / "scripts" / "test").read_text().splitlines()
    start = next(i for i, line in enumerate(script) if line.startswith("processes=("))
    end = next(i for i in range(start, len(script)) if script[i].strip() == "done")
    block = "\n".join([*script[start : end + 1], 'printf "%s\\n" "${processes[@]}"'])
    result = subprocess.run(
        ["bash", "-c", block, "scripts/test", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout.split()


def test_the_test_command_runs_pytest_in_three_processes_unless_told_otherwise():
    """Three xdist workers by default, grouped by ``--dist loadgroup`` (tests/conftest.py);
    the caller's ``-n`` (or ``-p no:xdist``) wins."""
    script = (REPO / "scripts" / "test").read_text()
    assert 'exec "$python" -m pytest "${processes[@]}" "$@"' in script
    assert processes_chosen() == ["-n", "3", "--dist", "loadgroup"]
    assert processes_chosen("-m", "unit or redis", "tests/api") == [
        "-n",
        "3",
        "--dist",
        "loadgroup",
    ]
    for own in (["-n", "0"], ["-n4"], ["--numprocesses=3"], ["-p", "no:xdist"]):
        assert processes_chosen("tests/api", *own) == [], own
