"""docs/rules.md is the only rule book: every rule the code cites is defined there.

The code, the schemas and the tests name rules by their ids (R5b, RX3, E2, ...)
in docstrings, comments, problem answers and test names (``test_r6c_...``).
A reader of a clone must be able to look each one up, so every cited id must
be defined in docs/rules.md, and nothing may send the reader to a rules or
contract file that lives outside the repository.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache

from tests.support.paths import REPO

RULE_BOOK = REPO / "docs" / "rules.md"

#: Where rule ids are cited.
CITING = ("service", "workers", "schemas", "tests")

#: A rule id in prose: a section (R7), a rule (R7b), an extension (RX2) or a worked
#: example (E4). Not part of a longer word or number (E402 of a linter, %E2 of a URL).
CITED_ID = re.compile(r"(?<![\w%])(R\d{1,2}[a-z]?|RX\d|E\d)(?![\w%])")

#: A rule id as a token of a test's name: test_r9a_to_r9d_..., test_rx1_..., test_e2_...
NAME_TOKEN = re.compile(r"r\d{1,2}[a-z]?|rx\d|e\d")
TEST_NAME = re.compile(r"\bdef (test_\w+)")


def ids_in_test_names(text: str) -> set[str]:
    """The rule ids a module's test names carry, written as the rule book writes them."""
    tokens = {token for name in TEST_NAME.findall(text) for token in name.split("_")}
    return {
        token.upper() if token.startswith("rx") else token[0].upper() + token[1:]
        for token in tokens
        if NAME_TOKEN.fullmatch(token)
    }


#: A definition in the rule book: a heading or a bold label that starts with the id.
DEFINED_ID = re.compile(r"^(?:#{2,4} |\*\*)(R\d{1,2}[a-z]?|RX\d|E\d)\b", re.M)

#: Paths to the rules and contract texts the service was first written from, which
#: are not part of a clone, and README's former section of the service's endings,
#: now RX1-RX3 of docs/rules.md. Written as patterns so that this file does not match.
OUTSIDE_REFERENCES = re.compile(
    r"\.\./shared/|shared/RULES\.md|RULES\.md|API-CONTRACT\.md|RULES[-]EXTENSIONS"
)


@cache
def tracked_text_files() -> dict[str, str]:
    """Every tracked file that is text, by its path in the repository."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    texts = {}
    for path in filter(None, listing.split("\0")):
        if path.startswith(("node_modules/", ".venv/")) or "/node_modules/" in path:
            continue
        file = REPO / path
        if not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data:
            continue
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    assert len(texts) > 100, "git ls-files listed too few files to be this repository"
    return texts


def defined_ids() -> list[str]:
    return DEFINED_ID.findall(RULE_BOOK.read_text())


def cited_ids() -> dict[str, set[str]]:
    """Each cited rule id, with the files that cite it."""
    cited: dict[str, set[str]] = {}
    for path, text in tracked_text_files().items():
        if not path.startswith(tuple(f"{top}/" for top in CITING)):
            continue
        ids = set(CITED_ID.findall(text)) | ids_in_test_names(text)
        for rule in ids:
            cited.setdefault(rule, set()).add(path)
    return cited


def test_every_rule_the_code_and_tests_cite_is_defined_in_docs_rules_md():
    cited = cited_ids()
    # The collection itself works: these are cited in docstrings and test names.
    assert {"R1a", "R5b", "R6c", "R11", "RX3", "E2"} <= set(cited), sorted(cited)
    assert RULE_BOOK.is_file(), "docs/rules.md is missing"
    undefined = {
        rule: sorted(paths)[:3] for rule, paths in cited.items() if rule not in defined_ids()
    }
    assert not undefined, f"cited but not defined in docs/rules.md: {undefined}"


def test_docs_rules_md_defines_each_rule_once():
    ids = defined_ids()
    assert {f"R{section}" for section in range(1, 12)} | {"RX1", "E1"} <= set(ids), ids
    assert sorted(rule for rule in set(ids) if ids.count(rule) > 1) == []


def test_every_rule_and_example_of_docs_rules_md_has_a_test_named_for_it():
    names = set()
    for path, text in tracked_text_files().items():
        if path.startswith("tests/"):
            names |= ids_in_test_names(text)
    # Sections (R1 .. R11) are proved through their rules; every rule, example and
    # extension is named by at least one test.
    rules = [rule for rule in defined_ids() if not re.fullmatch(r"R\d+", rule)]
    assert [rule for rule in rules if rule not in names] == []


def test_no_file_sends_the_reader_to_rules_outside_the_repository():
    outside = {
        path: sorted(set(OUTSIDE_REFERENCES.findall(text)))
        for path, text in tracked_text_files().items()
        if OUTSIDE_REFERENCES.search(text)
    }
    assert outside == {}
