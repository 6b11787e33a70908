"""What the install built: the compiled search core, or the bots' Python source.

pip hides a build's output, so a build that compiled nothing (no C compiler, or
mypyc refusing the source) would go unnoticed while every bot searches about
four times slower; the run command says so at start.
"""

from __future__ import annotations

from service.engine import native


def pure_python_warning() -> str | None:
    """None when the search core runs compiled; else what the start banner warns."""
    return native.build_summary()
