"""JSON log lines, one object per line: the API's and the workers' logging, without Flask.

Fields: ``time``, ``level``, ``logger``, ``message``, ``request_id`` (when
there is one) and any ``extra`` fields. Where the request id comes from is
the caller's business (``service.web.request_ids`` tells it for Flask), so a
worker logs the same lines without loading a web framework.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

#: Attributes of a LogRecord that are not ``extra`` fields.
_RECORD_FIELDS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)

RequestIdSource = Callable[[], str | None]

#: ``json.dumps(entry, default=str)``, without building an encoder per line.
_ENCODE = json.JSONEncoder(default=str).encode


def no_request_id() -> str | None:
    """Outside a web server nothing is being answered."""
    return None


_request_id: RequestIdSource = no_request_id


def use_request_ids(source: RequestIdSource) -> None:
    """Where this process's log lines find the id of the request being answered."""
    global _request_id
    _request_id = source


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``extra`` fields become members.

    A line carries the id of the request being answered (see
    ``use_request_ids``); a record's own ``request_id`` (``extra``) wins.
    """

    #: The newest second formatted, and its text: a busy process writes many lines a
    #: second (an access line per request), and only the milliseconds differ.
    _second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self._time(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or _request_id()
        if request_id:
            entry["request_id"] = request_id
        for name, value in vars(record).items():
            if name not in _RECORD_FIELDS and name not in entry:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return _ENCODE(entry)

    def _time(self, created: float) -> str:
        """``created`` as ISO 8601 in UTC to the millisecond: ``2026-12-01T20:30:37.013+00:00``."""
        # As datetime.fromtimestamp rounds: the fraction to microseconds, half to even.
        fraction, whole = math.modf(created)
        microseconds = round(fraction * 1_000_000)
        second = int(whole) + microseconds // 1_000_000
        milliseconds = microseconds % 1_000_000 // 1000
        if self._second[0] != second:
            text = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:-6]
            self._second = (second, text)
        return f"{self._second[1]}.{milliseconds:03d}+00:00"


def configure_logging(level: str | int = "INFO", stream: Any = None) -> logging.Handler:
    """JSON lines on stderr from the root logger (once per process), at ``level``."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if getattr(h, "_schnapsen_json", False)), None)
    if handler is None:
        handler = logging.StreamHandler(stream or sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler._schnapsen_json = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    return handler


__all__ = ["JsonFormatter", "configure_logging", "no_request_id", "use_request_ids"]
