"""Where the contract tests' clients and tools live, and how their commands are run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO

CONTRACT = REPO / "tests" / "contract"
TS = CONTRACT / "ts"
#: The virtualenv's scripts: the generators the dev extras install.
BIN = Path(sys.executable).parent


def run(command: list[str], cwd: Path, timeout: float = 600, **env: str) -> str:
    """Run ``command``; fail the test with its output when it fails."""
    environment = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **env)
    done = subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{output}"
    return output
