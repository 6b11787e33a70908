"""The verification snippets docs/webhooks.md shows, in Python and in TypeScript, accept a
delivery the service signed and refuse a tampered one: a receiver can copy them as they are."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import time

from service.jobs.webhook_signing import sign, sign_with_each
from tests.support.paths import REPO

DOCUMENT = REPO / "docs" / "webhooks.md"
SECRET = "whsec_dGhlIGVuZHBvaW50J3Mgc2VjcmV0LCBmb3IgdGVzdHMgb25seQ"
BODY = b'{"type":"your_turn","game":"g1","seat":0,"note":"\xc3\xa4"}'
#: Type annotations as the TypeScript snippet writes them (``: string``, ``: string[]``,
#: ``): boolean {``); what is left after removing them is JavaScript Node runs.
ANNOTATION = re.compile(r":\s*(?:string|number|boolean|Buffer)(?:\[\])?(?=\s*[,)=;{])")
#: Calls the snippet's function with each case from stdin; prints the answers as JSON.
DRIVER = """
import { verifySignature } from "./verify.mjs";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const answers = JSON.parse(input).map(([secret, header, body]) =>
  verifySignature(secret, header, Buffer.from(body, "base64")));
console.log(JSON.stringify(answers));
"""


def snippet(language: str) -> str:
    """The fenced block marked ``<language> verify``: there is exactly one."""
    found = re.findall(rf"^```{language} verify\n(.*?)^```", DOCUMENT.read_text(), re.M | re.S)
    assert len(found) == 1, f"docs/webhooks.md has {len(found)} {language} verify blocks"
    return found[0]


def strip_types(typescript: str) -> str:
    return ANNOTATION.sub("", typescript)


def cases() -> list[tuple[str, str, bytes, bool]]:
    """(secret, header, body, whether it is genuine) for deliveries signed now."""
    now = int(time.time())
    header = sign(SECRET, now, BODY)
    return [
        (SECRET, header, BODY, True),
        (SECRET, sign_with_each(["whsec_old", SECRET], now, BODY), BODY, True),
        (SECRET, header, BODY.replace(b"g1", b"g2"), False),
        (SECRET, header, BODY + b"\n", False),
        ("whsec_another", header, BODY, False),
        (SECRET, sign(SECRET, now - 3600, BODY), BODY, False),
        (SECRET, header.replace(f"t={now}", f"t={now - 1}"), BODY, False),
        (SECRET, "", BODY, False),
        (SECRET, f"t={now}", BODY, False),
        (SECRET, "v1=" + header.split("v1=")[1], BODY, False),
    ]


def test_the_type_stripping_leaves_javascript():
    typescript = (
        "function f(a: string, b: Buffer, c: number = 3): boolean {\n"
        "  const xs: string[] = [];\n  const o = { t: a };\n  return `${a}:${c}` !== '';\n}\n"
    )
    assert strip_types(typescript) == (
        "function f(a, b, c = 3) {\n"
        "  const xs = [];\n  const o = { t: a };\n  return `${a}:${c}` !== '';\n}\n"
    )


def test_the_python_snippet_accepts_a_signed_delivery_and_refuses_a_tampered_one():
    namespace: dict[str, object] = {}
    exec(compile(snippet("python"), str(DOCUMENT), "exec"), namespace)
    verify_signature = namespace["verify_signature"]
    answers = [verify_signature(secret, header, body) for secret, header, body, _ in cases()]
    assert answers == [genuine for *_, genuine in cases()]


def test_the_typescript_snippet_accepts_a_signed_delivery_and_refuses_a_tampered_one(tmp_path):
    (tmp_path / "verify.mjs").write_text(strip_types(snippet("typescript")))
    (tmp_path / "driver.mjs").write_text(DRIVER)
    given = [
        [secret, header, base64.b64encode(body).decode()] for secret, header, body, _ in cases()
    ]
    done = subprocess.run(
        ["node", "driver.mjs"],
        cwd=tmp_path,
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [genuine for *_, genuine in cases()]
