"""The tests, and every Python process they start, keep compiled modules' bytecode.

A run starts hundreds of Python processes (pytest's workers, gunicorn, RQ workers, the
run command, pytest itself in a few tests), each importing the service. With
``PYTHONDONTWRITEBYTECODE`` set in the environment (as on the machines this suite runs
on), none wrote its ``__pycache__``: each compiled the service from source again, and
each pytest worker rewrote every test module's asserts again, about 8 of its 16 CPU
seconds of collecting. ``tests/conftest.py`` turns the caches back on for the session
and for what it starts; they are gitignored (``__pycache__/``).
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.paths import REPO


def test_the_test_process_writes_compiled_modules_whatever_the_environment_said():
    assert sys.dont_write_bytecode is False
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ


def test_a_python_process_a_test_starts_writes_compiled_modules_too():
    answer = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,  # bounds a hang only
        check=True,
    )
    assert answer.stdout.strip() == "False"
