"""CORS for browser clients on other origins, as ``SCHNAPSEN_CORS_ORIGINS`` allows; none by default."""

from __future__ import annotations

from flask import Flask

#: Headers a browser script may read, and may send, across origins.
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "X-Request-ID",
    "Idempotent-Replayed",
    "Retry-After",
    "Repr-Digest",
    "Content-Disposition",
    "WWW-Authenticate",
]
CORS_ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "X-Client-Key",
    "X-Request-ID",
]


def cors_origins(setting: str | None) -> list[str] | str | None:
    """``SCHNAPSEN_CORS_ORIGINS`` parsed: None (no CORS), ``"*"``, or a list of origins."""
    origins = [origin.strip().rstrip("/") for origin in (setting or "").split(",")]
    origins = [origin for origin in origins if origin]
    if not origins:
        return None
    if "*" in origins:
        return "*"
    return origins


def init_cors(app: Flask, setting: str) -> None:
    """CORS headers for the origins of ``CORS_ORIGINS`` (``setting``); none when it is empty."""
    origins = cors_origins(setting)
    if origins is None:
        return
    from flask_cors import CORS

    CORS(
        app,
        origins=origins,
        expose_headers=CORS_EXPOSE_HEADERS,
        allow_headers=CORS_ALLOW_HEADERS,
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        max_age=600,
        supports_credentials=False,
        send_wildcard=origins == "*",
        vary_header=True,
    )


__all__ = ["CORS_ALLOW_HEADERS", "CORS_EXPOSE_HEADERS", "cors_origins", "init_cors"]
