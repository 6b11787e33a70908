"""Every failure is reported as a failure, even one whose traceback has a frame without a line.

Python 3.11 gives some frames no line number (``tb_lineno`` is ``None``): a frame
interrupted at an instruction the compiler gave no location, as pytest-timeout's
signal can interrupt a test waiting on a loaded machine. pytest's report then
fails itself (``None - 1``) with an INTERNALERROR, and under pytest-xdist that ends
the whole run: one slow test would hide every other test's result. Before pytest
writes the report, such frames are left out of the traceback (there is no line of
them to show), so the failure is reported like any other.
"""

from __future__ import annotations

import types

import pytest
from _pytest.runner import CallInfo


def without_lineless_frames(traceback: types.TracebackType | None) -> types.TracebackType | None:
    """``traceback`` rebuilt of its entries that have a line number."""
    entries = []
    while traceback is not None:
        if traceback.tb_lineno is not None:
            entries.append(traceback)
        traceback = traceback.tb_next
    rebuilt = None
    for entry in reversed(entries):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _has_lineless_frame(traceback: types.TracebackType | None) -> bool:
    while traceback is not None:
        if traceback.tb_lineno is None:
            return True
        traceback = traceback.tb_next
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: CallInfo[None]) -> None:
    if call.excinfo is None:
        return
    seen: set[int] = set()
    error: BaseException | None = call.excinfo.value
    fixed = False
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if _has_lineless_frame(error.__traceback__):
            error.__traceback__ = without_lineless_frames(error.__traceback__)
            fixed = True
        error = error.__cause__ or error.__context__
    if fixed:
        call.excinfo = pytest.ExceptionInfo.from_exception(call.excinfo.value)
