"""The API as it was at a git revision, served beside this checkout's for a comparison.

``git archive REV`` puts that revision's tree in a folder; its own
``benchmarks/gunicorns.py`` names its gunicorn command (worker class, app
factory), which starts from that folder with the folder first on
``PYTHONPATH``, so its ``service`` package is the one imported, not this
checkout's (installed in editable mode). ``BaselineTree.check`` proves it:
the app factory's module must load from the folder.

The compiled search core (``setup.py``, mypyc) is built for that tree too,
once per revision (kept under ``~/.cache``), so that both servers run compiled
modules, as a deployment does; ``from_source`` runs both from source instead
(``SCHNAPSEN_PURE_PYTHON=1``), which needs no build (a short run).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
#: What a tree needs to serve the API and build its compiled modules.
TREE = ["service", "benchmarks", "schemas", "workers", "pyproject.toml", "setup.py"]
BUILDS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "schnapsen-baselines"


def resolve(revision: str) -> str:
    """The full commit id of ``revision`` in this checkout."""
    return subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        check=True, capture_output=True, text=True, cwd=REPO,
    ).stdout.strip()  # fmt: skip


@dataclass(frozen=True)
class BaselineTree:
    """A revision's tree in a folder of its own."""

    commit: str
    root: Path

    @classmethod
    def extract(cls, revision: str, *, compiled: bool) -> BaselineTree:
        """The tree of ``revision``; ``compiled``: with its search core built (cached)."""
        commit = resolve(revision)
        root = BUILDS / commit if compiled else Path(tempfile.mkdtemp(prefix="schnapsen-base-"))
        if compiled and (root / ".built").exists():
            return cls(commit, root)
        root.mkdir(parents=True, exist_ok=True)
        present = subprocess.run(
            ["git", "ls-tree", "--name-only", commit], check=True, capture_output=True,
            text=True, cwd=REPO,
        ).stdout.split()  # fmt: skip
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit, *[p for p in TREE if p in present]],
            check=True, capture_output=True, cwd=REPO,
        ).stdout  # fmt: skip
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
        if compiled:
            print(f"building the compiled modules of {commit[:10]} in {root} (once)", flush=True)
            subprocess.run(
                [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                check=True, cwd=root, capture_output=True,
            )  # fmt: skip
            (root / ".built").write_text(commit + "\n")
        return cls(commit, root)

    def environment(self, settings: Mapping[str, str]) -> dict[str, str]:
        """The process environment that imports this tree's ``service`` first."""
        path = os.pathsep.join([str(self.root), os.environ.get("PYTHONPATH", "")]).rstrip(":")
        return dict(os.environ, **settings, PYTHONPATH=path)

    def gunicorn_command(self, port: int, *, connections: int) -> list[str]:
        """The tree's own gunicorn command line (2 processes, as its benchmarks start it)."""
        script = (
            "import json, sys; sys.path.insert(0, 'benchmarks'); import gunicorns; "
            f"print(json.dumps(gunicorns.gunicorn_command('127.0.0.1:{port}', workers=2, "
            f"connections={connections}, log_level='warning')))"
        )
        out = subprocess.run(
            [sys.executable, "-c", script], check=True, capture_output=True, text=True,
            cwd=self.root, env=self.environment({}),
        ).stdout  # fmt: skip
        return json.loads(out.strip().splitlines()[-1])

    def check(self, app_spec: str, settings: Mapping[str, str]) -> str:
        """The file the app factory's module loads from; refused unless it is in this tree
        (else the comparison would measure this checkout twice)."""
        module = app_spec.split(":", 1)[0]
        script = f"import importlib; print(importlib.import_module({module!r}).__file__)"
        loaded = subprocess.run(
            [sys.executable, "-c", script], check=True, capture_output=True, text=True,
            cwd=self.root, env=self.environment(settings),
        ).stdout.strip().splitlines()[-1]  # fmt: skip
        if not Path(loaded).resolve().is_relative_to(self.root.resolve()):
            raise RuntimeError(f"the baseline's {module} loads from {loaded}, not {self.root}")
        return loaded


def serve(
    command: list[str], *, cwd: Path, env: Mapping[str, str], port: int, boot_seconds: float = 60
) -> subprocess.Popen[bytes]:
    """Start ``command`` (a gunicorn) and wait until it answers ``/healthz``."""
    process = subprocess.Popen(command, cwd=cwd, env=dict(env))
    deadline = time.monotonic() + boot_seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).ok:
                return process
        except requests.RequestException:  # not listening yet, or a worker still booting
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server of {command[-1]} did not start")


def process_tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its children (a gunicorn master and its workers): what
    the server spent, whatever the machine's load. Read from each thread's
    ``/proc/<pid>/task/<tid>/schedstat`` (nanoseconds on a CPU) rather than ``stat``'s clock
    ticks: a tick is 10 ms, and a short window of 1 ms requests could read as no time at all."""
    total_ns = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if not (int(entry) == pid or int(stat[stat.rindex(")") + 2 :].split()[1]) == pid):
                continue
            for task in os.listdir(f"/proc/{entry}/task"):
                schedstat = Path(f"/proc/{entry}/task/{task}/schedstat").read_text()
                total_ns += int(schedstat.split()[0])
        except OSError:  # gone meanwhile
            continue
    return total_ns / 1e9
