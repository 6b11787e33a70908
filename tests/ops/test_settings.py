"""Every setting is documented in docs/configuration.md's settings table, and every documented
one is read."""

from __future__ import annotations

import dataclasses
import importlib
import re

import pytest

from service.ops import settings
from tests.support.paths import REPO

CONFIGURATION = (REPO / "docs" / "configuration.md").read_text()
RUN_SOURCE = (REPO / "service" / "serve" / "run.py").read_text()


def settings_table() -> dict[str, str]:
    """Variable -> its row, from the table under '## Settings'."""
    section = CONFIGURATION.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, "docs/configuration.md's settings table has no rows"
    table = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 3, f"a settings row needs 3 cells: {row}"
        for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", cells[0]):
            table[name] = row
    return table


def test_every_documented_setting_is_read():
    read_by_settings = set(settings.ENVIRONMENT.values())
    unread = [
        name
        for name in settings_table()
        if name not in read_by_settings and f'"{name}"' not in RUN_SOURCE
    ]
    assert not unread, f"docs/configuration.md documents settings nothing reads: {unread}"


def test_every_setting_read_is_documented():
    table = settings_table()
    undocumented = [name for name in settings.ENVIRONMENT.values() if name not in table]
    assert not undocumented, f"settings missing from docs/configuration.md's table: {undocumented}"
    run_reads = set(re.findall(r'environ(?:\.get)?\(\s*"([A-Z][A-Z0-9_]*)"', RUN_SOURCE))
    assert run_reads, "found no variable read by service/serve/run.py"
    assert run_reads <= set(table), run_reads - set(table)


def test_every_setting_has_a_default_and_a_variable():
    assert set(settings.DEFAULTS) == set(settings.ENVIRONMENT)


def test_every_default_is_commented_in_settings_py():
    source = (REPO / "service" / "ops" / "settings.py").read_text()
    block = source.split("DEFAULTS: dict[str, Any] = {", 1)[1].split("\n}", 1)[0]
    lines = block.strip("\n").splitlines()
    for index, line in enumerate(lines):
        match = re.match(r'\s+"([A-Z_]+)":', line)
        if not match:
            continue
        above = [previous.strip() for previous in lines[:index]]
        # The nearest line above that is not another setting is a comment.
        for previous in reversed(above):
            if not re.match(r'"[A-Z_]+":', previous):
                assert previous.startswith("#"), f"{match.group(1)} has no comment"
                break
        else:
            raise AssertionError(f"{match.group(1)} has no comment")


def test_the_new_settings_are_parsed_from_the_environment():
    parsed = settings.from_env(
        {
            "SCHNAPSEN_LOG_LEVEL": "DEBUG",
            "SCHNAPSEN_CORS_ORIGINS": "https://a.example",
            "SCHNAPSEN_READINESS_TIMEOUT_SECONDS": "0.25",
            "PROMETHEUS_MULTIPROC_DIR": "/tmp/metrics",
        }
    )
    assert parsed.log_level == "DEBUG"
    assert parsed.cors_origins == "https://a.example"
    assert parsed.readiness_timeout_seconds == 0.25
    assert parsed.metrics_multiproc_dir == "/tmp/metrics"
    defaults = settings.from_env({})
    assert defaults.log_level == "INFO"
    assert defaults.cors_origins == ""
    assert defaults.readiness_timeout_seconds == 1.0
    assert defaults.metrics_multiproc_dir is None


def test_the_embedded_redis_memory_limit_is_read_in_bytes_or_with_a_unit():
    def limit(raw: str) -> int:
        return settings.redis_maxmemory(settings.from_env({"SCHNAPSEN_REDIS_MAXMEMORY": raw}))

    assert limit("1073741824") == 1024**3
    assert limit("512mb") == 512 * 1024**2
    assert limit("2GB") == 2 * 1024**3
    assert limit("64 kb") == 64 * 1024
    assert limit("0") == 0, "0: no limit, as Redis has it"
    for wrong in ("lots", "-1", "1.5gb", "2tb", "mb"):
        with pytest.raises(ValueError, match="SCHNAPSEN_REDIS_MAXMEMORY"):
            limit(wrong)


def test_the_embedded_redis_takes_a_quarter_of_the_machine_at_most_a_gib_by_default():
    default = settings.redis_maxmemory(settings.from_env({}))
    quarter = settings.machine_memory() // 4
    assert default == min(quarter, settings.EMBEDDED_REDIS_MAXMEMORY_CAP) > 0
    assert default <= 1024**3


@pytest.mark.parametrize(
    ("variable", "raw"),
    [
        ("SCHNAPSEN_MAX_WAITING", "lots"),
        ("SCHNAPSEN_LONG_POLL_MAX_SECONDS", "half a minute"),
        ("SCHNAPSEN_ANONYMOUS_CLIENTS", "maybe"),
        ("SCHNAPSEN_REDIS_POOL_SIZE", "6.5"),
    ],
)
def test_a_setting_that_is_no_value_of_its_kind_is_refused_naming_its_variable(variable, raw):
    with pytest.raises(settings.SettingError, match=f"^{variable} is {raw!r}: "):
        settings.from_env({variable: raw})


def test_the_app_refuses_to_start_with_a_bad_setting(monkeypatch):
    from service.web.app import create_app

    monkeypatch.setenv("SCHNAPSEN_RATE_LIMIT_PER_TOKEN", "many")
    with pytest.raises(settings.SettingError, match="SCHNAPSEN_RATE_LIMIT_PER_TOKEN is 'many'"):
        create_app({"REDIS_URL": "redis://127.0.0.1:1/0"})


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("workers.worker", ["--burst"]),
        ("service.serve.admin", ["clients", "list"]),
        ("service.serve.run", []),
    ],
)
def test_each_command_refuses_to_start_with_a_bad_setting(command, argv, monkeypatch, capsys):
    main = importlib.import_module(command).main
    monkeypatch.setenv("SCHNAPSEN_SWEEP_SECONDS", "hourly")
    assert main(argv) == 2
    assert "SCHNAPSEN_SWEEP_SECONDS is 'hourly': give a number" in capsys.readouterr().err


def test_the_settings_are_typed_attributes_of_a_frozen_value():
    defaults = settings.from_env({})
    assert sorted(field.name.upper() for field in dataclasses.fields(defaults)) == sorted(
        settings.DEFAULTS
    )
    assert defaults.max_waiting == 4000
    assert settings.from_env({"SCHNAPSEN_MAX_WAITING": "10"}).max_waiting == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        defaults.max_waiting = 1  # type: ignore[misc]
