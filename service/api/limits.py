"""Rate limits per token and per client address, and a cap on games created.

Fixed windows counted in Redis (one Lua call per check: INCR, and EXPIRE on
the first hit), so every API process shares the counts. Answers carry the
IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
``RateLimit-Policy: "token";q=300;w=60`` and ``RateLimit: "token";r=12;t=41``;
a refusal is 429 problem+json with ``Retry-After``.

A limit of 0 turns that limit off.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import redis
from flask import Flask, Response, g, request

from service.problems import Problem

_HIT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
return {count, ttl}
"""


@dataclass(frozen=True, slots=True)
class Policy:
    """``quota`` requests per ``window`` seconds for one kind of client."""

    name: str
    quota: int
    window: int


@dataclass(frozen=True, slots=True)
class Usage:
    policy: Policy
    remaining: int
    reset: int

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0


class RateLimiter:
    def __init__(self, client: redis.Redis):
        self._hit = client.register_script(_HIT)

    def hit(self, policy: Policy, who: str) -> Usage:
        key = f"sch:rl:{policy.name}:{who}"
        count, ttl = self._hit(keys=[key], args=[policy.window])
        return Usage(policy, policy.quota - int(count), max(int(ttl), 0))


def client_key(token: str | None) -> tuple[str, str]:
    """(policy kind, id) of the caller: its token's hash when it has one, else its address."""
    if token:
        return "token", hashlib.sha256(token.encode()).hexdigest()[:32]
    return "ip", request.remote_addr or "unknown"


def install(app: Flask, client: redis.Redis) -> None:
    """Check the limits before every /v1 request and label every answer with them."""
    limiter = RateLimiter(client)
    config = app.config
    policies = {
        "token": Policy("token", config["RATE_LIMIT_PER_TOKEN"], 60),
        "ip": Policy("ip", config["RATE_LIMIT_PER_IP"], 60),
        "games": Policy("games", config["GAMES_PER_CLIENT_PER_HOUR"], 3600),
    }

    @app.before_request
    def _check_limits() -> None:
        if not request.path.startswith("/v1/"):
            return
        token = _bearer(request.headers.get("Authorization"))
        checks = [("ip", request.remote_addr or "unknown")]
        if token:
            checks.append(client_key(token))
        if request.method == "POST" and request.path == "/v1/games":
            checks.append(("games", client_key(token)[1]))
        usages = []
        for kind, who in checks:
            policy = policies[kind]
            if policy.quota <= 0:
                continue
            usage = limiter.hit(policy, who)
            usages.append(usage)
            if usage.exceeded:
                g.rate_limits = usages
                code = "too_many_games" if kind == "games" else "rate_limited"
                raise Problem(
                    f"more than {policy.quota} {'games' if kind == 'games' else 'requests'} "
                    f"in {policy.window} s for this {'client' if kind == 'games' else kind}; "
                    f"retry in {usage.reset} s",
                    status=429,
                    code=code,
                    headers={"Retry-After": str(max(usage.reset, 1))},
                )
        g.rate_limits = usages

    @app.after_request
    def _label(response: Response) -> Response:
        usages = getattr(g, "rate_limits", None)
        if usages:
            # The tightest limit is the one a client must watch.
            tightest = min(usages, key=lambda usage: usage.remaining)
            policy = tightest.policy
            response.headers["RateLimit-Policy"] = (
                f'"{policy.name}";q={policy.quota};w={policy.window}'
            )
            response.headers["RateLimit"] = (
                f'"{policy.name}";r={max(tightest.remaining, 0)};t={tightest.reset}'
            )
        return response


def _bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
