"""docker-compose.yml and service/Dockerfile, checked offline (no Docker engine needed).

The compose file is validated against the Compose Specification's JSON
schema (vendored by check-jsonschema), then checked for what the schema
cannot see: references to services and files, scaling, health checks.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from service.web.problem_catalog import problem_type
from tests.support.compose import validate
from tests.support.paths import REPO
from tests.support.waiting import wait_until

COMPOSE = REPO / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())  # YAML merge keys (<<) resolved


def test_compose_file_matches_the_compose_specification():
    result = validate(COMPOSE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_validator_does_reject_a_broken_compose_file(tmp_path):
    broken = tmp_path / "docker-compose.yml"
    broken.write_text("services:\n  api:\n    image: x\n    ports: 8000\n    depends_on: 5\n")
    assert validate(broken).returncode != 0


def test_every_depends_on_names_a_service(compose):
    services = compose["services"]
    for name, service in services.items():
        depends = service.get("depends_on", {})
        names = depends if isinstance(depends, list) else list(depends)
        for other in names:
            assert other in services, f"{name} depends on unknown service {other}"


def test_every_build_context_and_dockerfile_exists(compose):
    builds = [s["build"] for s in compose["services"].values() if "build" in s]
    assert builds
    for build in builds:
        context = REPO / (build if isinstance(build, str) else build.get("context", "."))
        assert context.is_dir(), context
        dockerfile = context / (
            build.get("dockerfile", "Dockerfile") if isinstance(build, dict) else "Dockerfile"
        )
        assert dockerfile.is_file(), dockerfile


def test_redis_is_durable_and_healthchecked(compose):
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    command = " ".join(redis["command"]) if isinstance(redis["command"], list) else redis["command"]
    for flag in ("--appendonly yes", "--appendfsync everysec", "--maxmemory-policy noeviction"):
        assert flag in command, flag
    volume = next(v for v in redis["volumes"] if v.endswith(":/data"))
    assert volume.split(":")[0] in compose["volumes"], "/data must be a named volume"
    assert "redis-cli" in redis["healthcheck"]["test"] and "ping" in redis["healthcheck"]["test"]


def test_the_api_waits_for_redis_and_is_checked_on_readyz(compose):
    api = compose["services"]["api"]
    assert api["depends_on"]["redis"]["condition"] == "service_healthy"
    assert any("/readyz" in part for part in api["healthcheck"]["test"])
    assert "ports" not in api  # reached through the proxy only
    assert api["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert "${SCHNAPSEN_SECRET_KEY" in api["environment"]["SCHNAPSEN_SECRET_KEY"]


def test_the_api_is_behind_a_proxy_that_buffers_bodies_and_caps_each_address(compose):
    """Slow bodies and greedy addresses stop at nginx (deploy/lb.conf, shared with the
    cluster's load balancer), whose own refusals are problem+json with catalog codes."""
    services = compose["services"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["ports"] == ["8000:8000"]
    assert proxy["depends_on"]["api"]["condition"] == "service_healthy"
    assert proxy["volumes"] == ["./deploy/lb.conf:/etc/nginx/conf.d/default.conf:ro"]
    # The client's address is the one the proxy reports (rate limits, games per address).
    assert services["api"]["environment"]["SCHNAPSEN_PROXY_HOPS"] == "1"
    conf = (REPO / "deploy" / "lb.conf").read_text()
    directives = {line.strip().rstrip(";") for line in conf.splitlines()}
    for directive in (
        "server api:8000",
        "proxy_request_buffering on",
        "client_header_timeout 10s",
        "client_body_timeout 10s",
        "limit_conn per_address 100",
        "limit_conn_status 429",
    ):
        assert directive in directives, directive
    pages = dict(re.findall(r"^\s*error_page (\d{3}) = (@\w+);", conf, re.M))
    assert set(pages) == {"413", "429"}
    for status, location in pages.items():
        block = conf.split(f"location {location} {{", 1)[1].split("}\n", 1)[0]
        assert "default_type application/problem+json;" in block
        answered, body = re.search(r"return (\d{3}) '(.*)';", block).groups()
        refusal = json.loads(body.removesuffix("\\n"))  # nginx's escape of the last newline
        assert answered == status and refusal["status"] == int(status)
        assert refusal["type"] == f"/problems/{refusal['code']}"
        assert problem_type(refusal["code"]) is not None, refusal["code"]


def test_the_worker_scales(compose):
    worker = compose["services"]["worker"]
    assert worker["command"] == ["python", "-m", "workers"]
    assert "container_name" not in worker and "ports" not in worker
    assert worker["depends_on"]["redis"]["condition"] == "service_healthy"
    assert worker["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert worker.get("build") == compose["services"]["api"].get("build")


def test_every_variable_the_services_get_is_documented(compose):
    """The service's own containers (built from this repository) get only documented
    settings; an image of another project (postgres) takes that project's variables."""
    configuration = (REPO / "docs" / "configuration.md").read_text()
    settings_section = configuration.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    own = {name: service for name, service in compose["services"].items() if "build" in service}
    assert set(own) >= {"api", "worker", "mover"}
    for name, service in own.items():
        for variable in service.get("environment", {}):
            assert f"`{variable}`" in settings_section, (
                f"{name}: {variable} is not in docs/configuration.md"
            )


def test_the_dockerfile_installs_with_pip_and_runs_gunicorn():
    dockerfile = (REPO / "service" / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[1-9]", dockerfile, re.M)
    assert re.search(r"^RUN pip install \.", dockerfile, re.M)
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    worker = (
        "service.serve.gunicorn_workers.ProblemGeventWorker"  # gevent, with problem+json refusals
    )
    for part in ("gunicorn", worker, "$SCHNAPSEN_WEB_WORKERS", "$SCHNAPSEN_WEB_CONNECTIONS"):
        assert part in cmd, part
    assert "service.web.app:create_app()" in cmd
    # Every folder the image copies exists (the build context is the repository).
    for source in re.findall(r"^COPY (?!--from=)(\S+(?: \S+)*) \S+$", dockerfile, re.M):
        for item in source.split():
            assert (REPO / item).exists(), item


def test_the_image_starts_the_api_as_compose_would(tmp_path, redis_url):
    """The Dockerfile's CMD, run here by sh with the image's environment: /readyz answers."""
    import os

    import requests

    from tests.support.paths import SECRET
    from tests.support.servers import free_port

    dockerfile = (REPO / "service" / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD"))
    argv = yaml.safe_load(cmd.removeprefix("CMD").strip())  # the JSON exec form
    assert argv[:2] == ["sh", "-c"]
    port = free_port()
    env = dict(
        os.environ,
        REDIS_URL=redis_url,
        SCHNAPSEN_SECRET_KEY=SECRET,
        SCHNAPSEN_HOST="127.0.0.1",
        SCHNAPSEN_PORT=str(port),
        SCHNAPSEN_WEB_WORKERS="1",
        SCHNAPSEN_WEB_CONNECTIONS="100",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    process = subprocess.Popen(argv, cwd=REPO, env=env, start_new_session=True)
    try:

        def healthz() -> requests.Response | None:
            assert process.poll() is None, "the image's command exited"
            try:
                return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
            except requests.RequestException:
                return None

        answer = wait_until(healthz, 60, "the image's command to serve /healthz")
        assert answer.status_code == 200
        ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
        assert ready.status_code in (200, 503)
        assert ready.json()["checks"]["redis"] == "ok"  # REDIS_URL reached the app
        assert ready.headers["X-Request-ID"]
        assert (tmp_path / "metrics").is_dir()  # made by the command
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_the_build_context_sends_only_what_the_image_copies():
    ignore = (REPO / "service" / "Dockerfile.dockerignore").read_text().splitlines()
    rules = [line.strip() for line in ignore if line.strip() and not line.startswith("#")]
    assert rules[0] == "*"  # everything out (.venv, var/, .git, tests) ...
    kept = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    dockerfile = (REPO / "service" / "Dockerfile").read_text()
    copied = set()
    for source in re.findall(r"^COPY (?!--from=)(\S+(?: \S+)*) \S+$", dockerfile, re.M):
        copied.update(item.rstrip("/") for item in source.split())
    assert copied == kept  # ... but what the Dockerfile copies


def test_the_archive_runs_on_a_durable_healthchecked_postgres(compose):
    """Finished games leave Redis for PostgreSQL: the app waits for it and is told where."""
    services = compose["services"]
    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:")
    volume = next(v for v in postgres["volumes"] if v.endswith(":/var/lib/postgresql/data"))
    assert volume.split(":")[0] in compose["volumes"], "the data must be a named volume"
    assert "pg_isready" in postgres["healthcheck"]["test"]
    for name in ("api", "worker", "mover"):
        service = services[name]
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        url = service["environment"]["SCHNAPSEN_ARCHIVE_URL"]
        assert url.startswith("postgresql://schnapsen:") and url.endswith(
            "@postgres:5432/schnapsen"
        )
        assert postgres["environment"]["POSTGRES_DB"] == "schnapsen"
