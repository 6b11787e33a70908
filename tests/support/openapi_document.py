"""The committed openapi.yaml, read once, and ways to walk it: its operations, its
references followed, its components."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from service.web.openapi import OPENAPI_FILE

#: libyaml's parser where PyYAML was built with it (five times quicker on a document
#: this size than the pure-Python one, and every test process reads it at least once).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """``text`` parsed as YAML's safe subset, as ``yaml.safe_load`` does, but quicker."""
    return yaml.load(text, Loader=_LOADER)


DOCUMENT: dict[str, Any] = load_yaml(OPENAPI_FILE.read_text())
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in DOCUMENT["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def ids() -> list[str]:
    return [f"{method.upper()} {path}" for path, method, _ in operations()]


def resolve(node: Any) -> Any:
    """``node`` with its ``$ref`` (to this document) followed."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = DOCUMENT
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def component(name: str) -> dict[str, Any]:
    return DOCUMENT["components"]["schemas"][name]


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


OPERATIONS = list(operations())
