"""The self-play recorders (benchmarks/positions.py, benchmarks/decisions.py) as the bots' tests
run them: imported by the name their pools' spawned processes import them by, run at a small
budget, their files read back."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from tests.support.paths import REPO

#: The expert's budget per move in the tests' runs: tiny (it searches the same way at any).
BUDGET_MS = "4"


def recorder(name: str) -> ModuleType:
    """benchmarks/<name>.py, imported as ``name``: a name its pool's spawned processes can
    import too (they inherit sys.path)."""
    folder = str(REPO / "benchmarks")
    if folder not in sys.path:
        sys.path.append(folder)  # last: it shadows no other module
    return importlib.import_module(name)


def record(module: ModuleType, out: Path, *args: str) -> bytes:
    """The file ``module``'s command writes to ``out`` with ``args``, at ``BUDGET_MS``."""
    assert module.main(["--out", str(out), "--budget-ms", BUDGET_MS, *args]) == 0
    return out.read_bytes()


def arrays_of(path: Path) -> dict[str, np.ndarray]:
    """Every array of a recorded ``.npz``, by name."""
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}
