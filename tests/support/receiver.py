"""A webhook receiver for tests and benchmarks: a real HTTP server process on loopback.

``python -m tests.support.receiver --port P --log FILE [--fail-first N] [--fail-odd]
[--delay S]`` answers every POST: 500 to the first N (or to every other one with
``--fail-odd``), else 200, after ``delay`` seconds; it appends each request it got
(its headers, its body as text, the status it answered, when it arrived and when
it was answered) to FILE as a JSON
line, so a test reads what arrived from outside the process. ``Receiver`` starts
one and reads its log.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.paths import REPO


class Receiver:
    """The receiver process, on 127.0.0.1 at a free port."""

    def __init__(
        self, folder: Path, *, fail_first: int = 0, fail_odd: bool = False, delay: float = 0
    ):
        from tests.support.servers import free_port

        self.port = free_port()
        self.log = folder / f"receiver-{self.port}.jsonl"
        self.log.touch()
        command = [sys.executable, "-m", "tests.support.receiver", "--port", str(self.port),
                   "--log", str(self.log), "--fail-first", str(fail_first), "--delay", str(delay)]  # fmt: skip
        if fail_odd:
            command.append("--fail-odd")
        self.process = subprocess.Popen(command, cwd=REPO)
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        deadline = time.monotonic() + 30
        while not (folder / f"receiver-{self.port}.ready").exists():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("the receiver did not start")
            time.sleep(0.05)

    def received(self) -> list[dict[str, Any]]:
        """Every request it got so far, in order."""
        lines = self.log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--fail-odd", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    lock = threading.Lock()
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            arrived = time.time()
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with lock:
                count[0] += 1
                number = count[0]
            failing = number <= args.fail_first or (args.fail_odd and number % 2 == 1)
            status = 500 if failing else 200
            if args.delay:
                time.sleep(args.delay)
            record = {"at": time.time(), "arrived": arrived, "status": status, "path": self.path,
                      "headers": dict(self.headers), "body": body.decode("utf-8", "replace")}  # fmt: skip
            with lock, open(args.log, "a") as out:
                out.write(json.dumps(record) + "\n")
            try:
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except OSError:  # the sender gave up waiting: its deadline had passed
                return

        def log_message(self, *_args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    Path(args.log).with_name(f"receiver-{args.port}.ready").touch()
    server.serve_forever()


if __name__ == "__main__":
    main()
