"""Waiting for a condition in tests: the timeout only bounds a hang, it asserts no speed."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], timeout: float, what: str, since: float | None = None
) -> T:
    """Poll ``predicate`` until it is truthy; fail ``timeout`` s after ``since`` (default: now)."""
    deadline = (time.monotonic() if since is None else since) + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)
