"""The names of the lanes a test can run in (tests/conftest.py gives each test one)."""

from __future__ import annotations

LANES = ("unit", "redis", "system", "cluster", "browser", "contract")
