"""Rate limits per caller (client key or address) and per seat token; caps on games
created and on bot-move and hint requests (see ``service.web.callers`` for who a caller is).

Fixed windows counted in Redis (INCR, and EXPIRE on the first hit), so every
API process shares the counts. A request's counters (its caller's, its seat
token's, ...) are counted in one Lua call on one Redis; on a Redis Cluster
they live in different slots, so each is its own call. A full Redis
(``service.store.full``) refuses the INCR: the request is then judged as if
it were counted, and is not, so a caller past its limit stays refused and
reads go on while the store takes no writes. Answers carry the
IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
``RateLimit-Policy: "token";q=300;w=60`` and ``RateLimit: "token";r=12;t=41``;
a refusal is 429 problem+json with ``Retry-After``.

An action (``POST /v1/games/{id}/actions``) on one Redis has its counters counted
by the append that records it (``counted_with_the_append``), in the same script:
an action on a game the process holds is then one round trip in all. An action
that appends nothing (refused, replayed, or past a limit) is counted on its own,
so every request is counted once, and one past a limit is refused (429) as any
other is. A game's view (``GET /v1/games/{id}``) has its counters counted by the
read of the game, in the same script, whatever the game (one round trip too);
past a limit it answers 429 all the same, whatever else the read found.

A limit of 0 turns that limit off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import redis
from flask import Flask, Response, g, request
from redis.cluster import RedisCluster

from service.game.log import LimitReached
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.ops.settings import Settings
from service.store.scripts import Script
from service.web.caller import Caller
from service.web.callers import current_caller, takes_client_key, token_print

_HIT = """
local counted = {}
for i, key in ipairs(KEYS) do
  local count = redis.pcall('INCR', key)
  if type(count) == 'table' then
    -- Refused: a full Redis takes no writes (any other error is raised as it is).
    if not string.find(count.err, 'OOM', 1, true) then return count end
    local ttl = redis.call('TTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[i]) end
    counted[2 * i - 1] = tonumber(redis.call('GET', key) or '0') + 1
    counted[2 * i] = ttl
  else
    if count == 1 then redis.call('EXPIRE', key, ARGV[i]) end
    counted[2 * i - 1] = count
    counted[2 * i] = redis.call('TTL', key)
  end
end
return counted
"""


@dataclass(frozen=True, slots=True)
class Policy:
    """``quota`` requests per ``window`` seconds for one kind of client.

    ``what`` and ``who`` word the refusal ("more than 3 games in 3600 s for
    this client"); ``code`` is the refusal's stable code.
    """

    name: str
    quota: int
    window: int
    what: str = "requests"
    who: str = "client"
    code: ProblemCode = ProblemCode.RATE_LIMITED


@dataclass(frozen=True, slots=True)
class Usage:
    policy: Policy
    remaining: int
    reset: int

    @property
    def exceeded(self) -> bool:
        return self.remaining < 0


class RateLimiter:
    def __init__(self, client: redis.Redis | RedisCluster):
        self._hit = Script(client, _HIT)
        #: On a cluster a script's keys must share a slot; a request's counters do not.
        self._one_call = not isinstance(client, RedisCluster)

    def hit(self, policy: Policy, who: str) -> Usage:
        (usage,) = self.hit_all([(policy, who)])
        return usage

    @property
    def one_call(self) -> bool:
        """Whether a request's counters (and a game's keys) may share one script call."""
        return self._one_call

    def hit_all(self, checks: Sequence[tuple[Policy, str]]) -> list[Usage]:
        """Count one request against each (policy, who), in one round trip where it can."""
        if not self._one_call and len(checks) > 1:
            return [usage for check in checks for usage in self.hit_all([check])]
        counted = self._hit(
            keys=[counter_key(policy, who) for policy, who in checks],
            args=[policy.window for policy, _who in checks],
        )
        return usages(
            checks, [(int(counted[2 * i]), int(counted[2 * i + 1])) for i in range(len(checks))]
        )


def counter_key(policy: Policy, who: str) -> str:
    return f"sch:rl:{policy.name}:{who}"


def usages(checks: Sequence[tuple[Policy, str]], counts: Sequence[tuple[int, int]]) -> list[Usage]:
    """What each (policy, who) has left, from its count and the seconds left in its window."""
    return [
        Usage(policy, policy.quota - count, max(ttl, 0))
        for (policy, _who), (count, ttl) in zip(checks, counts, strict=True)
    ]


def refusal(usages: Sequence[Usage]) -> Problem | None:
    """The 429 of the first limit a request went past; None when it is within all."""
    for usage in usages:
        policy = usage.policy
        if usage.exceeded:
            return Problem(
                f"more than {policy.quota} {policy.what} in {policy.window} s for this "
                f"{policy.who}; retry in {usage.reset} s",
                code=policy.code,
                headers={"Retry-After": str(max(usage.reset, 1))},
            )
    return None


class CountedWithTheAppend:
    """A request's counters, handed to the append that records it (``RateCounts``)."""

    def __init__(self, limiter: RateLimiter, checks: Sequence[tuple[Policy, str]]):
        self.limiter = limiter
        self.checks = tuple(checks)
        self.usages: list[Usage] | None = None

    def limits(self) -> list[tuple[str, int, int]]:
        return [
            (counter_key(policy, who), policy.window, policy.quota) for policy, who in self.checks
        ]

    def counted(self, counts: Sequence[tuple[int, int]]) -> None:
        self.usages = usages(self.checks, counts)

    def count_now(self) -> None:
        """Count them on their own: nothing was appended to count them with."""
        if self.usages is None:
            self.usages = self.limiter.hit_all(self.checks)


#: Where the counters of an action wait for its append (``g``'s attribute), and where
#: they are once it took them (their usages label the answer).
_DUE = "rate_limits_due"
_TAKEN = "rate_limits_taken"


@contextmanager
def counted_with_the_append() -> Iterator[CountedWithTheAppend | None]:
    """This request's counters for the append that records it, or the read of the game
    that answers it (None: counted already); ``counted``'s rule."""
    due: CountedWithTheAppend | None = g.pop(_DUE, None)
    if due is None:
        yield None
        return
    setattr(g, _TAKEN, due)
    with counted(due) as counts:
        yield counts


def labelled_by(due: CountedWithTheAppend) -> None:
    """This request's counters, taken by its append outside Flask's hooks
    (``service.web.plain_routes``), label its answer as ``counted_with_the_append``'s do."""
    setattr(g, _TAKEN, due)


@contextmanager
def counted(due: CountedWithTheAppend) -> Iterator[CountedWithTheAppend]:
    """A request's counters, handed to the append (or read) that records it.

    Whatever the command does, the counters are counted once: by its append (or
    read), or here when it appended (or read) nothing; past a limit the answer is
    429, whatever else the command answered.
    """
    try:
        yield due
    except LimitReached:
        refused = refusal(due.usages or [])
        assert refused is not None  # the append refused for a counter past its quota
        raise refused from None
    except Exception:
        due.count_now()
        refused = refusal(due.usages or [])
        if refused is not None:
            raise refused from None
        raise
    due.count_now()
    refused = refusal(due.usages or [])
    if refused is not None:
        raise refused


def policies(settings: Settings) -> dict[str, Policy]:
    """Every limit, from the settings (a quota of 0 turns a limit off)."""
    return {
        "token": Policy("token", settings.rate_limit_per_token, 60, who="token"),
        "ip": Policy("ip", settings.rate_limit_per_ip, 60, who="address"),
        "client": Policy("client", settings.rate_limit_per_client, 60),
        "games": Policy(
            "games",
            settings.games_per_client_per_hour,
            3600,
            "games",
            code=ProblemCode.TOO_MANY_GAMES,
        ),
        "games_ip": Policy(
            "games_ip",
            settings.games_per_address_per_hour,
            3600,
            "games",
            "address",
            code=ProblemCode.TOO_MANY_GAMES,
        ),
        "bot_moves": Policy(
            "bot_moves",
            settings.bot_moves_per_client_per_minute,
            60,
            "bot moves and hints",
            code=ProblemCode.TOO_MANY_BOT_MOVES,
        ),
    }


def checks_for(caller: Caller, *, tokens: bool = True) -> list[tuple[str, str]]:
    """(policy, counter id) pairs that this request counts against (``checks_of``)."""
    return checks_of(
        caller,
        request.method,
        request.path,
        request.endpoint,
        token_print if tokens and not takes_client_key() else None,
    )


def checks_of(
    caller: Caller,
    method: str,
    path: str,
    endpoint: str | None,
    token_print: Callable[[], str | None] | None,
) -> list[tuple[str, str]]:
    """(policy, counter id) pairs that a request counts against; ``token_print``: the
    fingerprint of its seat's token, where the per-token limit counts it (None: it does
    not, and the token is not hashed for it)."""
    anonymous = caller.client is None
    who = caller.address if anonymous else caller.client.id
    checks = [("ip", who) if anonymous else ("client", who)]
    if token_print is not None:
        token = token_print()
        if token:  # a seat's token; a made-up one is also held by the address limit
            checks.append(("token", token[:32]))
    if (method, path) == ("POST", "/v1/games"):
        checks.append(("games_ip", who) if anonymous else ("games", who))
    # A hint is a bot's decision too: it counts against the same cap.
    if (method, path) == ("POST", "/v1/bot/moves") or endpoint == "bots.hint":
        checks.append(("bot_moves", caller.scope))
    return checks


def label_headers(usages: Sequence[Usage]) -> list[tuple[str, str]]:
    """The RateLimit fields of an answer: the tightest limit is the one a client must watch."""
    if not usages:
        return []
    tightest = min(usages, key=lambda usage: usage.remaining)
    policy = tightest.policy
    return [
        ("RateLimit-Policy", f'"{policy.name}";q={policy.quota};w={policy.window}'),
        ("RateLimit", f'"{policy.name}";r={max(tightest.remaining, 0)};t={tightest.reset}'),
    ]


#: The endpoint whose counters its append counts, on one Redis (``counted_with_the_append``).
WITH_THE_APPEND = "games.act"
#: The endpoints whose counters the game's log counts on one Redis: the action's append,
#: the view's read (``counted_with_the_append`` either way).
WITH_THE_LOG = frozenset({WITH_THE_APPEND, "games.get_game"})


class RequestLimits:
    """The limits of one app: which a request counts against, on which counter."""

    def __init__(self, client: redis.Redis, settings: Settings):
        self.limiter = RateLimiter(client)
        self.limits = policies(settings)
        #: Whether the per-token limit is on (else no token is hashed for it).
        self.tokens = self.limits["token"].quota > 0

    def checks(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[Policy, str]]:
        """The (policy, who) ``checks_of`` named, less the limits turned off."""
        return [(self.limits[kind], who) for kind, who in pairs if self.limits[kind].quota > 0]

    def with_the_log(self, endpoint: str | None) -> bool:
        """Whether an endpoint's counters are counted by its game's log (one Redis)."""
        return self.limiter.one_call and endpoint in WITH_THE_LOG


def install(app: Flask, client: redis.Redis, settings: Settings) -> RequestLimits:
    """Check the limits before every /v1 request and label every answer with them."""
    limits = RequestLimits(client, settings)

    @app.before_request
    def _check_limits() -> None:
        if not request.path.startswith("/v1/"):
            return
        checks = limits.checks(checks_for(current_caller(), tokens=limits.tokens))
        if checks and limits.with_the_log(request.endpoint):
            setattr(g, _DUE, CountedWithTheAppend(limits.limiter, checks))
            return
        usages = limits.limiter.hit_all(checks) if checks else []
        g.rate_limits = usages
        refused = refusal(usages)
        if refused is not None:
            raise refused

    @app.after_request
    def _label(response: Response) -> Response:
        usages = getattr(g, "rate_limits", None)
        if usages is None:
            taken = g.get(_TAKEN)
            usages = None if taken is None else taken.usages
        for name, value in label_headers(usages or []):
            response.headers[name] = value
        return response

    return limits
