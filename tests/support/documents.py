"""The repository's documents as tests read them: the shell blocks they show."""

from __future__ import annotations

import re

from tests.support.paths import REPO


def block(name: str, document: str = "README.md") -> str:
    """The shell block between ``<!-- name -->`` markers of a document of the repository."""
    text = (REPO / document).read_text()
    match = re.search(rf"<!-- {name} -->\s*```[a-z]*\n(.*?)```\s*<!-- /{name} -->", text, re.S)
    assert match, f"{document} has no {name} block"
    return match.group(1)
