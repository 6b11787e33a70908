"""The README and the guides point at things that exist: every Markdown link (file and
heading) and every backticked path of the repository they name."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from tests.support.paths import REPO

#: The top-level folders whose files the documents name as `folder/...`.
REPO_FOLDERS = (".ci", "benchmarks", "deploy", "docs", "schemas", "scripts", "service", "tests",
                "tools", "workers")  # fmt: skip
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
PATH = re.compile(rf"(?:{'|'.join(re.escape(folder) for folder in REPO_FOLDERS)})/[\w.*/-]*")


def documents() -> list[Path]:
    found = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    if (REPO / "CONTRIBUTING.md").exists():
        found.append(REPO / "CONTRIBUTING.md")
    return found


def prose(document: Path) -> str:
    """The document without its fenced blocks: shell sessions name URLs, not files."""
    return FENCE.sub("", document.read_text())


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets (GitHub's rule: lower case, no punctuation but
    hyphens and underscores, spaces as hyphens)."""
    text = unicodedata.normalize("NFKC", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(document: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", prose(document), re.M)
    return {slug(heading) for heading in headings}


def links(document: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(document))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto: leave the repo
    ]


def named_paths(document: Path) -> list[str]:
    """Backticked paths of the repository: `service/web/views/games.py`, `tests/x.py::test_y`."""
    found = []
    for code in CODE.findall(prose(document)):
        match = PATH.fullmatch(code.split("::", 1)[0].rstrip("/.,"))
        if match:
            found.append(match.group(0))
    return found


DOCUMENTS = documents()


def ids(paths: list[Path]) -> list[str]:
    return [str(path.relative_to(REPO)) for path in paths]


def test_the_readme_and_the_guides_are_all_walked():
    names = set(ids(DOCUMENTS))
    assert {"README.md", "docs/api.md", "docs/configuration.md", "docs/performance.md"} <= names
    assert sum(len(links(document)) for document in DOCUMENTS) >= 20
    assert sum(len(named_paths(document)) for document in DOCUMENTS) >= 50


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids(DOCUMENTS))
def test_every_link_leads_to_a_file_and_heading_that_exist(document):
    broken = []
    for target in links(document):
        path, _, anchor = target.partition("#")
        destination = (document.parent / path).resolve() if path else document
        if not destination.is_relative_to(REPO):
            broken.append(f"{target}: outside the repository")
        elif not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids(DOCUMENTS))
def test_every_backticked_repository_path_exists(document):
    missing = [
        path for path in named_paths(document) if not any(REPO.glob(path.rstrip("/") or "."))
    ]
    assert not missing, missing


@pytest.mark.parametrize("document", DOCUMENTS, ids=ids(DOCUMENTS))
def test_no_document_names_a_file_outside_the_repository(document):
    """A reader has the repository only: nothing beside it (``../shared``) exists for them."""
    outside = re.findall(r"(?<![.\w])\.\./[\w./-]+", document.read_text())  # not ".../abort"
    assert not [
        path for path in outside if not (document.parent / path).resolve().is_relative_to(REPO)
    ]
