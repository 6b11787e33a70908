"""Which hot modules run compiled, and never a compiled one older than its source.

The search core, the rules on bit masks and the bots that search on them
(``NATIVE_MODULES``) are plain Python that ``setup.py`` also compiles with
mypyc, as one group, when the package is installed on a machine with a C
compiler: the same source, about four times faster in a bot's search, no
second copy of any rule. Where nothing was compiled (no compiler,
``SCHNAPSEN_PURE_PYTHON=1`` at install: setup.py reads it) the source runs
as it is. Whether to run compiled is decided by the build alone, not by the
environment at run time: the engine reads no setting. To run the source
beside a compiled build (to compare the two, as ``benchmarks/native.py``
does, or to debug), run a copy of the sources without the compiled files
(``source_copy``).

An editable install (``pip install -e .``) puts the compiled modules beside
their sources, and Python prefers them, so an edited ``masks.py`` would be
shadowed by the ``masks`` compiled before the edit. The build records each
source's SHA-256 in ``native.json``; ``use_sources_when_stale`` (called by
the package's ``__init__`` before any of these modules is imported) loads
them all from source when any one was compiled from other text (they are
compiled as one group), with a warning that says how to rebuild.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules setup.py compiles, as paths below ``service/`` without ".py": the search
#: core and what it calls per step, the bots' search and policies, and the encoding a
#: search hands the learned value (twice as fast compiled, docs/value-model.md).
NATIVE_MODULES = (
    "engine/points",
    "engine/masks",
    "engine/outcomes",
    "engine/core",
    "bots/solver",
    "bots/classic",
    "bots/sampling",
    "bots/heuristic",
    "bots/expert",
    "bots/features",
    "bots/presumed",
    "bots/master",
    "bots/inferring",
)
#: What the build writes in ``service/engine``: {module path: SHA-256 of its source}.
STAMP = "native.json"
#: The ``service`` folder.
ROOT = Path(__file__).resolve().parent.parent


def source_digest(path: Path) -> str:
    """The SHA-256 of a module's source file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_file(root: Path, name: str) -> Path | None:
    """The compiled module ``name`` (a path below ``root``), if there is one."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = root / f"{name}{suffix}"
        if candidate.exists():
            return candidate
    return None


def stale_modules(root: Path = ROOT, names: Sequence[str] = NATIVE_MODULES) -> list[str]:
    """The compiled modules below ``root`` to set aside: all of them when any one was not
    built from its source now (they are compiled together and call each other
    directly, so one edited module makes the whole group stale); else none."""
    try:
        built = json.loads((root / "engine" / STAMP).read_text())
    except (OSError, ValueError):
        built = {}
    present = [name for name in names if compiled_file(root, name) is not None]
    fresh = all(built.get(name) == source_digest(root / f"{name}.py") for name in present)
    return [] if fresh else present


class _SourceFirst:
    """A finder that loads the named modules from their ``.py`` files."""

    def __init__(self, sources: dict[str, Path]):
        self.sources = sources

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        source = self.sources.get(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)


def use_sources_when_stale(package: str = "service", root: Path = ROOT) -> list[str]:
    """Make the stale compiled modules of ``package`` (whose folder is ``root``) load from
    source (warned about); the names set aside. Called once, by ``service.engine`` before
    it imports any of them (every bot imports the engine first)."""
    if any(isinstance(finder, _SourceFirst) for finder in sys.meta_path):
        return []  # done already
    stale = stale_modules(root)
    if stale:
        _load_from_source(package, root, stale)
        warnings.warn(
            f"{package}: the compiled {', '.join(stale)} predate their source; running the "
            "source (pip install -e . compiles them again)",
            RuntimeWarning,
            stacklevel=2,
        )
    return stale


def _load_from_source(package: str, root: Path, names: Sequence[str]) -> None:
    if names:
        sources = {f"{package}.{name.replace('/', '.')}": root / f"{name}.py" for name in names}
        sys.meta_path.insert(0, _SourceFirst(sources))


def source_copy(target: Path, root: Path = ROOT) -> Path:
    """A copy of the engine's and the bots' sources (a ``service`` package in ``target``)
    without the compiled files: put ``target`` first on ``sys.path`` and the search core
    runs from source, beside a compiled build of ``root``. The folder of the copy."""
    folder = target / "service"
    skip = shutil.ignore_patterns(*(f"*{s}" for s in importlib.machinery.EXTENSION_SUFFIXES))
    for package in ("engine", "bots"):
        shutil.copytree(root / package, folder / package, ignore=skip, dirs_exist_ok=True)
    (folder / "engine" / STAMP).unlink(missing_ok=True)
    (folder / "__init__.py").write_text("")
    return folder


def build_summary(root: Path = ROOT) -> str | None:
    """None when the whole group runs compiled; else a warning that says the bots run from
    source, about four times slower, and how to compile them. The run command prints it at
    start, since pip's quiet output hides a build that compiled nothing."""
    missing = [name for name in NATIVE_MODULES if compiled_file(root, name) is None]
    stale = stale_modules(root)
    if not missing and not stale:
        return None
    why = "some predate their source" if stale else "the install compiled nothing"
    return (
        f"pure Python bots: the search core is not compiled ({why}); bots search about four "
        "times slower. With gcc present, `pip install -e .` compiles it "
        "(docs/configuration.md, the compiled build)"
    )


def compiled(module: ModuleType) -> bool:
    """Whether ``module`` runs compiled (an extension module) rather than from source."""
    return not str(getattr(module, "__file__", "")).endswith(".py")
