"""Compose files checked against the Compose Specification, offline (check-jsonschema's
vendored schema; no Docker engine needed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path


def check_jsonschema() -> str:
    beside = Path(sys.executable).parent / "check-jsonschema"
    found = str(beside) if beside.exists() else shutil.which("check-jsonschema")
    assert found, "check-jsonschema is not installed: pip install -e '.[dev]'"
    return found


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [check_jsonschema(), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
