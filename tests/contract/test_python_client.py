"""openapi-python-client makes a client of openapi.yaml that a strict type checker
accepts in a real program, and the program plays against a live server."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from service.store.clients import ClientRegistry
from service.web.openapi import OPENAPI_FILE
from tests.support.contract import BIN, CONTRACT, run
from tests.support.openapi_document import load_yaml

EXAMPLE = CONTRACT / "python_example.py"


def models(client: Path) -> set[str]:
    return {path.stem for path in (client / "schnapsen_client" / "models").glob("*.py")}


def test_the_generated_client_has_one_type_per_shared_component(python_client):
    found = models(python_client)
    assert {"card", "suit", "seat", "bot_level", "play_action", "bot_decision",
            "hint_result", "export_result", "stream_end", "stream_action_taken_event",
            "action_taken_event", "deal_started_event", "trick_step", "replay_state",
            "game_state"} <= found  # fmt: skip
    # One enum each, not one per field that uses it (a spec once made 24 card enums).
    assert not [name for name in found if name.endswith(("_card", "_seat", "_suit"))
                and name not in ("card_at_seat", "position_card")]  # fmt: skip


def operations() -> dict[str, dict[str, Any]]:
    """The spec's operations by the name of their generated module (``getGame``: get_game)."""
    document = load_yaml(OPENAPI_FILE.read_text())
    return {re.sub(r"(?<!^)(?=[A-Z])", "_", op["operationId"]).lower(): op
            for item in document["paths"].values() for op in item.values()
            if isinstance(op, dict) and "operationId" in op}  # fmt: skip


def return_types(client: Path) -> dict[str, set[str]]:
    """Per operation module, the members of its ``sync_detailed``'s ``Response[...]``."""
    found = {}
    for module in (client / "schnapsen_client" / "api").glob("*/*.py"):
        typed = re.search(r"^def sync_detailed\(.*?\) -> Response\[(.*?)\]:", module.read_text(),
                          re.MULTILINE | re.DOTALL)  # fmt: skip
        if typed:
            found[module.stem] = set(typed.group(1).split(" | "))
    return found


def test_the_generator_reads_every_answer_of_the_spec(python_client):
    log = (python_client / "generated.log").read_text()
    assert "Cannot parse response" not in log and "WARNING" not in log, log


def test_every_operation_returns_the_types_its_answers_document(python_client):
    # A `str` only where an answer is text (the NDJSON export, the problem page's HTML);
    # `Any` only where an answer has no content (304, 204; metrics and the document,
    # whose media types the spec leaves open); a model for every JSON answer.
    typed = return_types(python_client)
    ops = operations()
    assert set(typed) == set(ops), set(typed) ^ set(ops)
    leaks = {}
    for name, op in ops.items():
        answers = [a for code, a in op["responses"].items() if "$ref" not in a and code < "400"]
        text = any(media.startswith("text/") or media.endswith("ndjson")
                   for a in answers for media in a.get("content", {}))  # fmt: skip
        bodiless = any(not a.get("content") for a in answers)
        allowed = ({"str"} if text else set()) | ({"Any"} if bodiless else set())
        odd = {t for t in typed[name] if t in ("str", "Any") and t not in allowed}
        untyped = not (typed[name] - {"Problem", "Any", "str"}) and not (text or bodiless)
        if odd or untyped:
            leaks[name] = typed[name]
    assert leaks == {}, leaks
    assert typed["export_games"] == {"Problem", "str"}
    assert typed["get_game"] == {"Any", "GameView", "Problem"}


def test_the_example_program_passes_mypy_strict_with_no_cast_and_no_any(python_client):
    # The generator's own httpx wrapper (client.py) does not pass the newest mypy's
    # strict checks; its errors are not the spec's, so imported modules are followed
    # for their types but only the example's own lines are reported. No expression of
    # the example may be Any (an untyped answer), and it holds no cast.
    source = EXAMPLE.read_text()
    assert "cast(" not in source and "import Any" not in source and "type: ignore" not in source
    output = run(
        [str(BIN / "mypy"), "--strict", "--disallow-any-expr", "--follow-imports=silent",
         "--no-incremental", str(EXAMPLE)],
        cwd=python_client,
        MYPYPATH=str(python_client),
    )  # fmt: skip
    assert "Success" in output, output


def test_the_example_program_plays_and_reads_replays_against_a_live_server(
    python_client, live_server, worker, redis_client
):
    _, key = ClientRegistry(redis_client).create("contract test (python)")
    output = run(
        [sys.executable, str(EXAMPLE), live_server.url, key],
        cwd=python_client,
        timeout=180,
        PYTHONPATH=str(python_client),
    )
    assert "acted: game " in output and "bot: " in output, output
    assert re.search(r"anonymous: game \S+ finished, replay of [1-9]\d* tricks", output), output
