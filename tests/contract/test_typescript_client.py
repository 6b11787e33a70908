"""openapi-typescript makes types of openapi.yaml that `tsc --strict` accepts in a
real openapi-fetch program (and rejects in a wrong one); the program plays
against a live server."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from schemas.components import CARD_CODES
from service.store.clients import ClientRegistry
from service.web.openapi import OPENAPI_FILE
from tests.support.contract import TS, run


@pytest.fixture(scope="module")
def ts_project(npm_tools: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with schema.d.ts generated from the committed openapi.yaml."""
    root = tmp_path_factory.mktemp("ts-client")
    for name in ("example.ts", "tsconfig.json"):
        shutil.copy(TS / name, root / name)
    (root / "package.json").write_text('{"type": "module"}\n')
    (root / "node_modules").symlink_to(npm_tools / "node_modules")
    # openapi-typescript's default options, as an integrator runs it: the request
    # fields the server fills in must stay optional without any flag.
    run(
        [str(npm_tools / "node_modules/.bin/openapi-typescript"), str(OPENAPI_FILE),
         "-o", "schema.d.ts"],
        cwd=root,
    )  # fmt: skip
    return root


def tsc(project: Path, *args: str) -> list[str]:
    return [str(project / "node_modules/.bin/tsc"), *args]


def test_shared_components_are_single_types(ts_project):
    types = (ts_project / "schema.d.ts").read_text()
    assert 'LegalAction: components["schemas"]["Action"];' in types
    assert 'legal_actions: components["schemas"]["LegalAction"][];' in types
    # The whole deck once: a Position's rules name decks less a card, never all of it.
    deck = " | ".join(f'"{card}"' for card in CARD_CODES)
    assert f"Card: {deck}" in types and types.count(deck) == 1


def test_the_example_program_passes_tsc_strict(ts_project):
    run(tsc(ts_project, "-p", "tsconfig.json"), cwd=ts_project)
    assert (ts_project / "out" / "example.js").is_file()


def test_an_action_without_its_fields_does_not_compile(ts_project):
    bad = ts_project / "bad.ts"
    bad.write_text(
        'import type { components } from "./schema.js";\n'
        'export const play: components["schemas"]["Action"] = { type: "play" };\n'
    )
    with pytest.raises(AssertionError, match=r"bad\.ts\(2,14\): error TS2322"):
        run(tsc(ts_project, "--strict", "--noEmit", "--module", "NodeNext",
                "--moduleResolution", "NodeNext", "bad.ts"), cwd=ts_project)  # fmt: skip


def test_the_example_program_plays_against_a_live_server(
    ts_project, live_server, worker, redis_client
):
    run(tsc(ts_project, "-p", "tsconfig.json"), cwd=ts_project)
    _, key = ClientRegistry(redis_client).create("contract test (typescript)")
    output = run(["node", "out/example.js", live_server.url, key], cwd=ts_project, timeout=180)
    assert "acted: game " in output and "bot: " in output, output
    assert re.search(r"replay: [1-9]\d* actions, \d+ tricks, dealt 1", output), output
