"""The run command: ``schnapsen-serve`` (or ``python -m service.run``).

Starts the API under gunicorn at http://127.0.0.1:8000 and an RQ worker
beside it (bot moves, exports). With ``REDIS_URL`` set it uses that Redis;
without, it starts an embedded real Redis whose data (append-only file)
lives in ``--data-dir`` and survives a restart. Ctrl-C stops every process
it started.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from service.embedded_redis import EmbeddedRedis


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schnapsen-serve", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("SCHNAPSEN_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("SCHNAPSEN_PORT", "8000")))
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("SCHNAPSEN_DATA_DIR", "var")),
        help="where the embedded Redis keeps its data and the secret key is kept",
    )
    parser.add_argument(
        "--web-workers", type=int, default=int(os.environ.get("SCHNAPSEN_WEB_WORKERS", "2"))
    )
    parser.add_argument(
        "--web-threads", type=int, default=int(os.environ.get("SCHNAPSEN_WEB_THREADS", "8"))
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("SCHNAPSEN_QUEUE_WORKERS", "1")),
        help="RQ worker processes for bot moves and exports (0: none)",
    )
    args = parser.parse_args(argv)

    args.data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    embedded = None
    if not env.get("REDIS_URL"):
        embedded = EmbeddedRedis(args.data_dir / "redis", persistent=True).start()
        env["REDIS_URL"] = embedded.url
        print(f"embedded Redis at {embedded.url} (data in {args.data_dir / 'redis'})", flush=True)
    env.setdefault("SCHNAPSEN_SECRET_KEY", _secret_key(args.data_dir))

    children: list[subprocess.Popen[bytes]] = []
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        children.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "--bind",
                    f"{args.host}:{args.port}",
                    "--workers",
                    str(args.web_workers),
                    "--worker-class",
                    "service.serving.ProblemThreadWorker",
                    "--no-control-socket",
                    "--threads",
                    str(args.web_threads),
                    "--keep-alive",
                    "5",
                    "service.app:create_app()",
                ],  # fmt: skip
                env=env,
            )
        )
        for _ in range(args.workers):
            children.append(subprocess.Popen([sys.executable, "-m", "workers"], env=env))
        print(
            f"API at http://{args.host}:{args.port} with {args.workers} worker(s)  (Ctrl-C stops)",
            flush=True,
        )
        while not stopping:
            if any(child.poll() is not None for child in children):
                print("a child process exited; stopping", file=sys.stderr, flush=True)
                break
            time.sleep(0.2)
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
        if embedded is not None:
            embedded.stop()
    return 0


def _secret_key(data_dir: Path) -> str:
    """The secret that signs tokens, kept in the data folder so restarts keep tokens valid."""
    path = data_dir / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


if __name__ == "__main__":
    sys.exit(main())
