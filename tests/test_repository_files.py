"""What a contributor's checkout keeps out of git."""

from __future__ import annotations

import subprocess

from tests.support.paths import REPO


def test_the_env_file_the_compose_file_reads_is_ignored_by_git():
    """docker-compose.yml suggests a ``.env`` for the secret key: it must never be committed."""
    compose = (REPO / "docker-compose.yml").read_text()
    assert ".env" in compose
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", ".env"], cwd=REPO, check=False
    )
    assert result.returncode == 0, ".env is not in .gitignore"
