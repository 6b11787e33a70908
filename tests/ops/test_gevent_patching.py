"""gunicorn's gevent workers patch the standard library after the master imported the
worker class: what that import pulls in is imported unpatched, and gevent warns
(``MonkeyPatchWarning``) on every worker's start. The worker class must not import the
redis package (whose asyncio part imports ``ssl`` names directly)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO


def test_the_gunicorn_worker_class_imports_no_redis_before_gevent_patches():
    probe = (
        "import sys, service.serve.gunicorn_workers; "
        "print(sorted(m for m in sys.modules if m == 'redis' or m.startswith('redis.')))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "[]"
