"""The README's install compiles the search core where a C compiler is found.

``pip install`` hides a build's output, so an install that silently compiled
nothing once left every bot searching at a quarter of its speed. This checks
the install the tests run on (``scripts/test`` makes it the README's way, in a
fresh virtualenv on CI) and the run command's warning when nothing is compiled.
"""

from __future__ import annotations

import shutil

import pytest

from service.engine import native


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler: the source runs")
def test_the_install_compiled_every_module_of_the_search_core_where_gcc_is_found():
    import service.bots.expert as expert
    import service.engine.core as core

    assert native.compiled(core), f"the search core runs from source: {core.__file__}"
    assert native.compiled(expert), f"the expert runs from source: {expert.__file__}"
    assert native.build_summary() is None


def test_a_source_only_tree_is_reported_as_pure_python_bots(tmp_path):
    copy = native.source_copy(tmp_path)
    warning = native.build_summary(copy)
    assert warning is not None and warning.startswith("pure Python bots")
