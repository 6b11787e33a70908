"""The engine is pure: importing it pulls in no web, store or queue library."""

import subprocess
import sys

FORBIDDEN = {"flask", "redis", "rq", "marshmallow"}


def test_engine_imports_no_service_libraries():
    code = (
        "import service.engine, service.engine.replays, sys;"
        f"assert not {FORBIDDEN!r} & set(sys.modules), sorted({FORBIDDEN!r} & set(sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_service_package_init_is_empty():
    import service

    with open(service.__file__) as handle:
        assert handle.read().strip() == ""
