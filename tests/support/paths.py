"""Where the repository is, and the constants every process a test starts shares."""

from __future__ import annotations

from pathlib import Path

#: The repository's root: the working directory of every process a test starts.
REPO = Path(__file__).resolve().parent.parent.parent
#: The secret key of every app, gunicorn and worker the tests start, so tokens one
#: signs are good in all the others.
SECRET = "test-secret-key"
