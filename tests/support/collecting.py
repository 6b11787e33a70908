"""What pytest collects from this repository with given arguments, for tests of the suite.

Several collections run in one new Python process, one pytest session after another:
the process imports pytest, its plugins, the service and the test modules once, where
a process per collection paid that again each time (about 1.5 CPU seconds each).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tests.support.paths import REPO

#: Runs ``pytest --collect-only -q`` once per argument list read from stdin (JSON), in
#: this one process, and prints each session's exit code and output as JSON.
_COLLECT = """
import contextlib, io, json, sys
import pytest

runs = json.load(sys.stdin)
found = {}
for name, args in runs.items():
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *args])
    found[name] = [int(code), output.getvalue()]
sys.__stdout__.write(json.dumps(found))
"""


@dataclass(frozen=True)
class Collected:
    """One collection: pytest's exit code and the node ids of the tests it would run."""

    code: int
    nodeids: list[str]


def collect(runs: Mapping[str, Sequence[str]]) -> dict[str, Collected]:
    """For each named argument list, what ``pytest --collect-only`` with it collects."""
    result = subprocess.run(
        [sys.executable, "-c", _COLLECT],
        input=json.dumps({name: list(args) for name, args in runs.items()}),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,  # bounds a hang only: collecting everything takes minutes on a busy machine
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout)
    return {
        name: Collected(code, re.findall(r"^(tests/\S+::\S+)", output, re.M))
        for name, (code, output) in found.items()
    }
