"""schemathesis against a live server: every phase, stateful too, with a client app's key.

    python benchmarks/schemathesis_live.py [--seeds 9 1 2 3 4] [--max-examples 50]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis in a temporary
``--data-dir``, its gunicorn and RQ workers, rate limits lifted), makes one
client app and runs ``schemathesis run`` on the committed openapi.yaml against
it once per seed, every phase (examples, coverage, fuzzing, stateful: the
spec's ``links`` lead it from a create to the operations on what was made),
every check but the ones that assume a resource's owner is not the caller, and
with ``schemathesis_checks.py``'s check (a schema-valid request is never refused
for its form) in place of ``positive_data_acceptance`` (which also fails the
game's rules: a version not reached yet, a reused Idempotency-Key), and its
hook, which sends each request with an Idempotency-Key of its own as a client
does (the coverage phase holds one key while it varies the rest); the
event stream ends after 2 s (``SCHNAPSEN_SSE_MAX_SECONDS``), so each is read whole.
Each seed's line prints the operations, the generated cases, the failures, the
warnings and how many operations schemathesis found mostly refused (its
"schema validation mismatch": every schema-valid request refused, a tenth or
more of the refusals neither 401, 403, 404, 409 nor 429, whether for the form
or for the state); the last line repeats the figures as JSON. Exit status 1 when any
seed found a failure or a warning.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import client_key  # noqa: E402  (beside this script)
from bot_latency import REPO, Service  # noqa: E402

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
#: Checks that assume a second user (with one app key every resource is the caller's),
#: and the acceptance of schema-valid data, which counts the game's rules as failures:
#: schemathesis_checks.py's check (loaded as a hook) fails a form refusal instead.
NOT_CHECKED = "ignored_auth,object_level_authorization,positive_data_acceptance"
#: A stream ends after this long (SCHNAPSEN_SSE_MAX_SECONDS), so each one is read whole.
SSE_SECONDS = "2"
HANG_SECONDS = 1800
#: A body past SCHNAPSEN_MAX_BODY_BYTES is refused with 413 before it is read, a request line
#: past gunicorn's limit with 414: refusals of invalid data too (schemathesis' list of
#: refusals leaves both out).
CONFIG = """
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415",
                     "422", "428", "429"]
"""


def mostly_refused(output: str) -> list[str]:
    """The operations schemathesis listed under its schema validation mismatch."""
    listed = re.search(r"Schema validation mismatch: .*?\n((?:\s*\n|\s+- .*\n)+)", output)
    return re.findall(r"- (\S+ \S+)", listed.group(1)) if listed else []


def answers(report: Path, labels: list[str]) -> dict[str, dict[str, dict[str, int]]]:
    """Per operation of ``labels`` and per phase, how schemathesis' schema-valid (positive)
    requests were answered: accepted, or refused with which status and problem code."""
    found: dict[str, dict[str, dict[str, int]]] = {}
    if not labels or not report.exists():
        return found
    with report.open() as lines:
        for line in lines:
            event = json.loads(line).get("ScenarioFinished")
            recorder = event.get("recorder", {}) if event else {}
            if recorder.get("label") not in labels:
                continue
            counts = found.setdefault(recorder["label"], {}).setdefault(event["phase"], {})
            for case_id, node in recorder.get("cases", {}).items():
                meta = node["value"].get("meta") or {}
                if (meta.get("generation") or {}).get("mode") != "positive":
                    continue
                response = (recorder.get("interactions", {}).get(case_id) or {}).get("response")
                if response is None:
                    continue
                status = response["status_code"]
                key = "accepted" if status < 400 else f"{status} {_code(response)}"
                counts[key] = counts.get(key, 0) + 1
    return found


def _code(response: dict) -> str:
    try:
        return json.loads(base64.b64decode(response["content"]["$base64"]))["code"]
    except (KeyError, TypeError, ValueError):
        return "?"


def run_seed(url: str, key: str, seed: int, max_examples: int, report: Path) -> dict:
    """One schemathesis run (in ``report``'s folder: it writes its own files there)."""
    command = [
        str(SCHEMATHESIS), "run", str(REPO / "openapi.yaml"), "--url", url,
        "--header", f"X-Client-Key: {key}", "--seed", str(seed),
        "--phases", "examples,coverage,fuzzing,stateful", "--checks", "all",
        "--exclude-checks", NOT_CHECKED,
        "--max-examples", str(max_examples), "--workers", "2", "--no-color",
        "--request-timeout", "30", "--generation-database", "none",
        "--report", "ndjson", "--report-ndjson-path", str(report),
    ]  # fmt: skip
    config = report.parent / "schemathesis.toml"
    config.write_text(CONFIG)
    command[1:1] = ["--config-file", str(config)]
    env = dict(os.environ, SCHEMATHESIS_HOOKS="schemathesis_checks",
               PYTHONPATH=str(Path(__file__).resolve().parent))  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS,
                          cwd=report.parent, env=env)  # fmt: skip
    output = done.stdout + done.stderr
    last = output.strip().splitlines()[-1] if output.strip() else ""
    generated = re.search(r"(\d+) generated", output)
    failures = re.search(r"(\d+) failures?", last)
    warnings = re.search(r"(\d+) warnings?", last)
    operations = re.search(r"Operations:\s+(\d+) selected", output)
    looser = re.search(r"Schema validation mismatch: (\d+) operations?", output)
    return {
        "seed": seed,
        "exit": done.returncode,
        "operations": int(operations.group(1)) if operations else None,
        "cases": int(generated.group(1)) if generated else None,
        "looser": int(looser.group(1)) if looser else 0,
        "failures": int(failures.group(1)) if failures else 0,
        "warnings": int(warnings.group(1)) if warnings else 0,
        "answers": answers(report, mostly_refused(output)),
        "output": output,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[9, 1, 2, 3, 4])
    parser.add_argument("--max-examples", type=int, default=50)
    parser.add_argument("--reports", type=Path, help="keep each seed's NDJSON report here")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as data_dir, tempfile.TemporaryDirectory() as scratch:
        reports = args.reports or Path(scratch)
        reports.mkdir(parents=True, exist_ok=True)
        log = open(Path(data_dir) / "serve.log", "w")  # noqa: SIM115 (closed with the dir)
        os.environ["SCHNAPSEN_SSE_MAX_SECONDS"] = SSE_SECONDS
        service = Service(Path(data_dir), log)
        try:
            key = client_key(Path(data_dir))
            for seed in args.seeds:
                result = run_seed(service.url, key, seed, args.max_examples,
                                  Path(reports) / f"{seed}.ndjson")  # fmt: skip
                print(result.pop("output"), flush=True)
                print(f"seed {seed}: {result['operations']} operations, {result['cases']} cases, "
                      f"{result['failures']} failures, {result['warnings']} warnings, "
                      f"{result['looser']} operations mostly refused", flush=True)  # fmt: skip
                for label, phases in result["answers"].items():
                    print(f"  mostly refused: {label}: {json.dumps(phases)}", flush=True)
                results.append(result)
        finally:
            service.stop()
            log.close()
    print(json.dumps(results))
    return 0 if all(r["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
