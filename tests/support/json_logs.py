"""What the service logs, captured as it writes it: the root logger's records through the
service's own JSON formatter (``service.ops.logs.JsonFormatter``), for the tests of what a
request logs (the ``log_lines`` fixture of tests/conftest.py)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from service.ops.logs import JsonFormatter


@contextmanager
def json_log_lines() -> Iterator[io.StringIO]:
    """What the root logger writes while the block runs, one JSON line a record."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)


def records(stream: io.StringIO) -> list[dict]:
    """The lines captured so far, each read back from its JSON."""
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
