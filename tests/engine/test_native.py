"""The compiled search core never runs older code than its source (service.engine.native).

setup.py compiles the search core's modules with mypyc; an editable install
puts them beside their sources, where Python prefers them. These tests build
a copy of the engine package with stand-in compiled files (any file with an
extension module's name: the guard decides by name and stamp before Python
would load one) and import it in a fresh interpreter.
"""

from __future__ import annotations

import importlib.machinery
import json
import shutil
import subprocess
import sys
from pathlib import Path

from service.engine import native

SERVICE = native.ROOT
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def engine_copy(root: Path, *, stamp: dict[str, str] | None) -> Path:
    """``root/service``: the engine's and the bots' sources, a stand-in compiled file for
    each native module (not loadable: importing one fails), and ``stamp`` as native.json."""
    folder = root / "service"
    skip = shutil.ignore_patterns("*.so", "*.json", "__pycache__")
    for package in ("engine", "bots"):
        shutil.copytree(SERVICE / package, folder / package, ignore=skip)
    (folder / "__init__.py").write_text("")
    for name in native.NATIVE_MODULES:
        (folder / f"{name}{SUFFIX}").write_bytes(b"not a shared object")
    if stamp is not None:
        (folder / "engine" / native.STAMP).write_text(json.dumps(stamp))
    return folder


def digests(folder: Path) -> dict[str, str]:
    return {n: native.source_digest(folder / f"{n}.py") for n in native.NATIVE_MODULES}


def write_stamp(folder: Path) -> None:
    """native.json as a build of the copy's sources now would write it."""
    (folder / "engine" / native.STAMP).write_text(json.dumps(digests(folder)))


def import_core(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Import the copy's search core and a bot in a fresh interpreter (no site: only the
    copy); prints the files they came from."""
    code = (
        "import service.engine.core as c, service.bots.solver as s; print(c.__file__, s.__file__)"
    )
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        cwd=root,
        env={"PYTHONPATH": str(root), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_compiled_group_built_from_these_sources_is_kept(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path, stamp=None)
    write_stamp(folder)
    assert native.stale_modules(folder) == []
    # Kept, so Python loads the (stand-in) compiled module, and fails on it:
    answer = import_core(tmp_path)
    assert answer.returncode != 0
    assert "ImportError" in answer.stderr


def test_an_edited_source_sets_the_whole_compiled_group_aside(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path, stamp=None)
    write_stamp(folder)
    with open(folder / "engine" / "masks.py", "a") as source:
        source.write("\n# edited after the build\n")
    assert native.stale_modules(folder) == list(native.NATIVE_MODULES)
    answer = import_core(tmp_path)
    assert answer.returncode == 0, answer.stderr
    core_file, solver_file = answer.stdout.split()
    assert core_file.endswith("core.py") and solver_file.endswith("solver.py")
    assert "RuntimeWarning" in answer.stderr and "pip install -e ." in answer.stderr


def test_the_environment_does_not_choose_the_source_at_run_time(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path, stamp=None)
    write_stamp(folder)
    # The build decides (SCHNAPSEN_PURE_PYTHON is read by setup.py only): a fresh group
    # is kept, so the (stand-in) compiled module loads, and fails.
    answer = import_core(tmp_path, SCHNAPSEN_PURE_PYTHON="1")
    assert answer.returncode != 0
    assert "ImportError" in answer.stderr


def test_a_source_copy_runs_the_source_beside_a_fresh_compiled_group(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path / "build", stamp=None)
    write_stamp(folder)
    native.source_copy(tmp_path / "copy", root=folder)
    assert not list((tmp_path / "copy").rglob(f"*{SUFFIX}"))
    answer = import_core(tmp_path / "copy")
    assert answer.returncode == 0, answer.stderr
    core_file, solver_file = answer.stdout.split()
    assert core_file == str(tmp_path / "copy" / "service" / "engine" / "core.py")
    assert solver_file == str(tmp_path / "copy" / "service" / "bots" / "solver.py")
    assert "RuntimeWarning" not in answer.stderr  # nothing compiled there: nothing stale


def test_compiled_files_without_a_stamp_are_not_trusted(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path, stamp=None)
    assert native.stale_modules(folder) == list(native.NATIVE_MODULES)
    assert import_core(tmp_path).returncode == 0


def test_no_compiled_files_nothing_to_set_aside(tmp_path: Path) -> None:
    folder = engine_copy(tmp_path, stamp={})
    for name in native.NATIVE_MODULES:
        (folder / f"{name}{SUFFIX}").unlink()  # (a source build: nothing compiled)
    assert native.stale_modules(folder) == []
    answer = import_core(tmp_path)
    assert answer.returncode == 0 and "RuntimeWarning" not in answer.stderr


def test_this_checkout_runs_no_stale_compiled_module() -> None:
    """Whatever this machine built (compiled or not), nothing older than its source runs."""
    import service.engine.core as core

    assert native.stale_modules() == [] or not native.compiled(core)
