"""Builds the package; compiles the search core with mypyc where a C compiler is found.

Everything else is in pyproject.toml. The modules of ``service.engine.native``
(the search core, the rules on bit masks, the bots' search and policies) are
compiled from their own source, so there is still one copy of each rule: the
compiled module is that source, about four times faster in a bot's search
(README.md, Speed). Without a compiler, or with ``SCHNAPSEN_PURE_PYTHON=1``,
the source runs as it is.

The build records each compiled source's SHA-256 in ``service/engine/native.json``;
the engine runs the sources of the whole group when one was edited since
(``native``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

SERVICE = Path("service")
ENGINE = SERVICE / "engine"


def _native():
    """``service/engine/native.py`` on its own (standard library only): the list of the
    compiled modules and the stamp's name, without importing the package being built."""
    spec = importlib.util.spec_from_file_location("_schnapsen_native", ENGINE / "native.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = _native()
NATIVE_MODULES: tuple[str, ...] = NATIVE.NATIVE_MODULES
STAMP: str = NATIVE.STAMP


class BuildNative(build_ext):
    """``build_ext`` that writes ``native.json`` once every compiled module has built."""

    def run(self) -> None:
        self.failed: list[str] = []
        super().run()
        folder = ENGINE if self.inplace else Path(self.build_lib) / ENGINE
        names = [] if self.failed else list(NATIVE_MODULES)
        digests = {name: NATIVE.source_digest(SERVICE / f"{name}.py") for name in names}
        folder.mkdir(parents=True, exist_ok=True)
        (folder / STAMP).write_text(json.dumps(digests, indent=1) + "\n")
        if not self.inplace and getattr(self, "editable_mode", False):  # setuptools >= 64
            (ENGINE / STAMP).write_text(json.dumps(digests, indent=1) + "\n")

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception:
            self.failed.append(ext.name)  # optional: setuptools warns and goes on
            raise


def native_extensions() -> list:
    """The compiled modules, or none (pure Python) when mypyc is missing or not wanted."""
    if os.environ.get("SCHNAPSEN_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    sources = [str(SERVICE / f"{name}.py") for name in NATIVE_MODULES]
    try:
        extensions = mypycify(sources, opt_level="3")
    except (Exception, SystemExit) as error:  # mypyc refused the source (a type error)
        print(f"setup.py: not compiling the search core ({error!r}); the source runs")
        return []
    for extension in extensions:
        extension.optional = True  # no C compiler: a warning, and the source runs
    return extensions


setup(ext_modules=native_extensions(), cmdclass={"build_ext": BuildNative})
