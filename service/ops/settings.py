"""Settings, read from environment variables with documented defaults.

Each process reads its environment once, here, when it starts
(``from_env()``: the app factory, a worker's runtime and command, gunicorn's
worker class, the run command, ``schnapsen-admin``), into a frozen
``Settings`` of typed attributes, and hands it (or values from it) down; no
other server module reads the environment, and none looks a setting up by a
string: ``settings.max_waiting``, so a misspelt name fails where it is
written. A variable that holds no value of its setting's kind stops the
process at start (``SettingError``, naming the variable). ``create_app(config)``
starts from ``from_env()`` and lets ``config`` (keyed as ``DEFAULTS``)
override any setting, which is how the tests point the app at their own Redis.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

#: Where the event logs live when ``REDIS_URL`` is not set: a Redis on this machine.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
#: The embedded Redis's memory limit when none is set: a quarter of the machine's
#: memory, at most this many bytes.
EMBEDDED_REDIS_MAXMEMORY_CAP = 1024**3
#: The units a memory size may name, as Redis's own configuration does (binary ones).
_MEMORY_UNITS = {"": 1, "b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}

DEFAULTS: dict[str, Any] = {
    # Where the event logs live; required (the run command starts an embedded Redis).
    # redis+cluster://host:port[,host:port...] names a Redis Cluster (service.store.redis_clients).
    "REDIS_URL": None,
    # Where the RQ queues live; defaults to REDIS_URL. RQ does not run on Redis Cluster:
    # with a cluster REDIS_URL this must name a plain Redis (else /readyz says so).
    "QUEUE_REDIS_URL": None,
    # Replicas that must have an append (Redis WAIT) before it is acknowledged; 0: none,
    # and an acknowledged append may be lost when its primary dies (replication is
    # asynchronous). See docs/deployment.md, Scaling out.
    "REPLICA_ACKS": 0,
    # How long an append waits for those replicas, in ms (keep it below REDIS_TIMEOUT_SECONDS);
    # fewer in time: 503, not acknowledged.
    "REPLICA_ACK_TIMEOUT_MS": 500,
    # Signs seat tokens and invites; set it in production (see docs/configuration.md).
    "SECRET_KEY": None,
    # Largest request body accepted, in bytes (larger: 413).
    "MAX_CONTENT_LENGTH": 16 * 1024,
    # Seconds a request's whole body may take to arrive after its head; later: 408
    # body_timeout, and the connection closes (the gunicorn worker, service.serve.gunicorn_workers); 0: none.
    "BODY_TIMEOUT_SECONDS": 10.0,
    # Connections one client address may hold open to one server process (0: no cap);
    # more: 429 too_many_connections, closed at once. Not applied with PROXY_HOPS > 0,
    # where every peer is a proxy (which caps its own clients, deploy/).
    "CONNECTIONS_PER_ADDRESS": 100,
    # Longest long-poll wait on /events?wait=S, in seconds.
    "LONG_POLL_MAX_SECONDS": 30.0,
    # Longest life of one SSE connection, and the keep-alive interval, in seconds.
    "SSE_MAX_SECONDS": 300.0,
    "SSE_HEARTBEAT_SECONDS": 15.0,
    # Waiting requests (long-polls and SSE streams together) one server process holds at
    # once; each is a greenlet of a few KiB with no Redis connection of its own. Keep it
    # below the connections per process (SCHNAPSEN_WEB_CONNECTIONS). More: 503.
    "MAX_WAITING": 4000,
    # A process's waiting requests one anonymous client address may hold (0: no share of
    # its own, only MAX_WAITING); more: 429. Per process, as MAX_WAITING.
    "MAX_WAITING_PER_ADDRESS": 100,
    # The same for one client app, by its key, from any address (0: no share of its own).
    "MAX_WAITING_PER_CLIENT": 1000,
    # A process's waiting requests on one game (its seats and spectators together; 0: no
    # cap); more: 503.
    "MAX_WAITING_PER_GAME": 500,
    # Think time per move of bot opponents in ms (0: each level's default).
    "BOT_BUDGET_MS": 0,
    # A bot opponent's move takes at least this long, in ms (0: as fast as it thinks).
    "BOT_DELAY_MS": 0,
    # Largest think time of the bot-move service and hints, in ms; a larger budget_ms is
    # clamped to it, so one caller cannot hold a worker for long (0: no cap).
    "BOT_SERVICE_MAX_BUDGET_MS": 2000,
    # Longest wait of POST /v1/bot/moves?wait=S and GET /v1/jobs/{id}?wait=S, in seconds.
    "JOB_WAIT_MAX_SECONDS": 30.0,
    # Requests per minute one seat token may make (0: no limit); 429 beyond.
    "RATE_LIMIT_PER_TOKEN": 300,
    # Requests per minute one anonymous client address may make (0: no limit); 429 beyond.
    "RATE_LIMIT_PER_IP": 3000,
    # Requests per minute one client app (by its key) may make (0: no limit); 429 beyond.
    "RATE_LIMIT_PER_CLIENT": 6000,
    # Games one client app (by its key) may create per hour (0: no cap).
    "GAMES_PER_CLIENT_PER_HOUR": 2000,
    # Games one anonymous client address may create per hour (0: no cap).
    "GAMES_PER_ADDRESS_PER_HOUR": 200,
    # POST /v1/bot/moves and hints per minute per client app, or per anonymous address
    # (0: no cap).
    "BOT_MOVES_PER_CLIENT_PER_MINUTE": 60,
    # Think time (ms, the budgets summed) of the decisions (bot-move service and hints) one
    # caller may have queued or running at once; more: 429 (0: no cap). See
    # service/jobs/decision_shares.py for the wait it bounds.
    "DECISION_MS_PER_CALLER": 4000,
    # Decisions one caller may have queued or running at once; more: 429 (0: no cap).
    "DECISIONS_PER_CALLER": 4,
    # New export and analysis jobs one caller may start per hour (asking again for one
    # already made costs nothing); more: 429 (0: no cap).
    "EXPORT_JOBS_PER_CALLER_PER_HOUR": 60,
    # Waiting jobs the exports queue (exports and analyses) holds; more: 503 (0: no bound).
    "EXPORT_QUEUE_MAX_JOBS": 100,
    # Waiting jobs the decisions queue (bot-move service, hints) holds, all callers
    # together; more: 503 (0: no bound).
    "DECISION_QUEUE_MAX_JOBS": 200,
    # Whether callers without a client key may create games and ask for bot moves.
    "ANONYMOUS_CLIENTS": True,
    # Proxies in front that append to X-Forwarded-For (0: none; the peer is the client).
    "PROXY_HOPS": 0,
    # Seconds the seat to move may take before the waiting seat may claim the game
    # (POST /v1/games/{id}/claim-timeout, RX3); 0: no timeout, no claims. A day by
    # default, for games played over hours; real-time apps set minutes.
    "TURN_TIMEOUT_SECONDS": 86400.0,
    # Longest wait of one Redis call of a request, in seconds; then 503 store_unavailable.
    "REDIS_TIMEOUT_SECONDS": 1.0,
    # Redis connections one server process opens at most (requests share them).
    "REDIS_POOL_SIZE": 64,
    # Where the run command keeps its embedded Redis's data and the secret key;
    # schnapsen-admin finds that Redis's socket there when REDIS_URL is not set.
    "DATA_DIR": "var",
    # The memory the run command's embedded Redis may take, in bytes or with a unit
    # (512mb, 2gb); past it Redis refuses writes (503 store_full) and evicts nothing.
    # Unset: a quarter of the machine's memory, at most 1 GiB (redis_maxmemory); 0: no limit.
    "REDIS_MAXMEMORY": None,
    # Where finished games are kept for good: postgresql://... (production) or
    # sqlite:///<path>. The run command's default: sqlite in DATA_DIR. Unset elsewhere:
    # no archive, and every game stays in Redis (docs/deployment.md, The archive).
    "ARCHIVE_URL": None,
    # Seconds an archived game stays in Redis after it ended, before Redis forgets it.
    "ARCHIVE_GRACE_SECONDS": 3600.0,
    # Seconds a game may stand still before the sweep ends it as abandoned (aborted
    # when nobody moved yet, else lost on time by the seat to move) and archives it.
    "ABANDONED_AFTER_SECONDS": 7 * 86400.0,
    # Seconds between sweeps (forget archived games past their grace, archive games
    # whose job was lost), and between the scans for stray and abandoned games.
    "SWEEP_SECONDS": 60.0,
    "STRAY_SCAN_SECONDS": 3600.0,
    # How many players a client app may register (POST /v1/players).
    "PLAYERS_PER_CLIENT": 1_000_000,
    # Seeks: seconds one lives after its last wait; the rating window's start, its
    # widening per second of waiting and its widest (rating points); waiting seeks
    # per client app.
    "SEEK_ALIVE_SECONDS": 20.0,
    "SEEK_WINDOW_START": 100.0,
    "SEEK_WINDOW_WIDENING": 25.0,
    "SEEK_WINDOW_WIDEST": 600.0,
    "SEEKS_PER_CLIENT": 10_000,
    # Seconds a seek's record is kept (its status, and once paired its game), counted
    # from the seek's creation.
    "SEEK_RECORD_SECONDS": 3600,
    # Seconds a challenge stands before it expires unanswered.
    "CHALLENGE_SECONDS": 600.0,
    # Seconds a challenge's record is kept (its status, and once accepted its game).
    "CHALLENGE_RECORD_SECONDS": 86400,
    # Challenges a player may make within CHALLENGE_RECORD_SECONDS, open or closed: each
    # leaves its record for that long, so this bounds a player's records.
    "CHALLENGE_RECORDS_PER_PLAYER": 100,
    # Seconds the first answer of a keyed POST is kept for its retries (it may carry a
    # token: it is kept no longer than this).
    "IDEMPOTENCY_SECONDS": 86400,
    # Webhooks: endpoints per client app; addresses a delivery may reach although they
    # are loopback, private or link-local (comma-separated addresses or networks; empty:
    # none, production's default); the pauses before each retry (s, comma-separated;
    # empty: the default, about a day); a delivery's time bound (s); and how many
    # deliveries in a row may fail every retry before the endpoint is disabled; and how
    # many redeliveries an app may have waiting or being sent (429 past it).
    "WEBHOOKS_PER_CLIENT": 10,
    "WEBHOOK_ALLOW_ADDRESSES": "",
    "WEBHOOK_RETRY_SECONDS": "",
    "WEBHOOK_TIMEOUT_SECONDS": 5.0,
    "WEBHOOK_DISABLE_AFTER": 20,
    "WEBHOOK_REDELIVERIES_PER_APP": 50,
    # Level of the JSON log lines (DEBUG, INFO, WARNING, ERROR); the worker reads it too.
    "LOG_LEVEL": "INFO",
    # Browser origins allowed by CORS, comma-separated ("*": any); empty: no CORS headers.
    "CORS_ORIGINS": "",
    # Longest wait of each Redis check of GET /readyz, in seconds (it never hangs).
    "READINESS_TIMEOUT_SECONDS": 1.0,
    # prometheus_client's multiprocess folder: with it, GET /metrics sums every gunicorn
    # process; without it, each scrape sees the one process that answers. prometheus_client
    # reads the variable at import, so set it in the environment (an empty folder per start).
    "METRICS_MULTIPROC_DIR": None,
}

# Environment variable for each setting.
ENVIRONMENT = {
    "REDIS_URL": "REDIS_URL",
    "QUEUE_REDIS_URL": "QUEUE_REDIS_URL",
    "REPLICA_ACKS": "SCHNAPSEN_REPLICA_ACKS",
    "REPLICA_ACK_TIMEOUT_MS": "SCHNAPSEN_REPLICA_ACK_TIMEOUT_MS",
    "SECRET_KEY": "SCHNAPSEN_SECRET_KEY",
    "MAX_CONTENT_LENGTH": "SCHNAPSEN_MAX_BODY_BYTES",
    "BODY_TIMEOUT_SECONDS": "SCHNAPSEN_BODY_TIMEOUT_SECONDS",
    "CONNECTIONS_PER_ADDRESS": "SCHNAPSEN_CONNECTIONS_PER_ADDRESS",
    "LONG_POLL_MAX_SECONDS": "SCHNAPSEN_LONG_POLL_MAX_SECONDS",
    "SSE_MAX_SECONDS": "SCHNAPSEN_SSE_MAX_SECONDS",
    "SSE_HEARTBEAT_SECONDS": "SCHNAPSEN_SSE_HEARTBEAT_SECONDS",
    "MAX_WAITING": "SCHNAPSEN_MAX_WAITING",
    "MAX_WAITING_PER_ADDRESS": "SCHNAPSEN_MAX_WAITING_PER_ADDRESS",
    "MAX_WAITING_PER_CLIENT": "SCHNAPSEN_MAX_WAITING_PER_CLIENT",
    "MAX_WAITING_PER_GAME": "SCHNAPSEN_MAX_WAITING_PER_GAME",
    "BOT_BUDGET_MS": "SCHNAPSEN_BOT_BUDGET_MS",
    "BOT_DELAY_MS": "SCHNAPSEN_BOT_DELAY_MS",
    "BOT_SERVICE_MAX_BUDGET_MS": "SCHNAPSEN_BOT_SERVICE_MAX_BUDGET_MS",
    "JOB_WAIT_MAX_SECONDS": "SCHNAPSEN_JOB_WAIT_MAX_SECONDS",
    "RATE_LIMIT_PER_TOKEN": "SCHNAPSEN_RATE_LIMIT_PER_TOKEN",
    "RATE_LIMIT_PER_IP": "SCHNAPSEN_RATE_LIMIT_PER_IP",
    "RATE_LIMIT_PER_CLIENT": "SCHNAPSEN_RATE_LIMIT_PER_CLIENT",
    "GAMES_PER_CLIENT_PER_HOUR": "SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR",
    "GAMES_PER_ADDRESS_PER_HOUR": "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR",
    "BOT_MOVES_PER_CLIENT_PER_MINUTE": "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE",
    "DECISION_MS_PER_CALLER": "SCHNAPSEN_DECISION_MS_PER_CALLER",
    "DECISIONS_PER_CALLER": "SCHNAPSEN_DECISIONS_PER_CALLER",
    "EXPORT_JOBS_PER_CALLER_PER_HOUR": "SCHNAPSEN_EXPORT_JOBS_PER_CALLER_PER_HOUR",
    "EXPORT_QUEUE_MAX_JOBS": "SCHNAPSEN_EXPORT_QUEUE_MAX_JOBS",
    "DECISION_QUEUE_MAX_JOBS": "SCHNAPSEN_DECISION_QUEUE_MAX_JOBS",
    "ANONYMOUS_CLIENTS": "SCHNAPSEN_ANONYMOUS_CLIENTS",
    "PROXY_HOPS": "SCHNAPSEN_PROXY_HOPS",
    "REDIS_TIMEOUT_SECONDS": "SCHNAPSEN_REDIS_TIMEOUT_SECONDS",
    "TURN_TIMEOUT_SECONDS": "SCHNAPSEN_TURN_TIMEOUT_SECONDS",
    "REDIS_POOL_SIZE": "SCHNAPSEN_REDIS_POOL_SIZE",
    "DATA_DIR": "SCHNAPSEN_DATA_DIR",
    "REDIS_MAXMEMORY": "SCHNAPSEN_REDIS_MAXMEMORY",
    "ARCHIVE_URL": "SCHNAPSEN_ARCHIVE_URL",
    "ARCHIVE_GRACE_SECONDS": "SCHNAPSEN_ARCHIVE_GRACE_SECONDS",
    "ABANDONED_AFTER_SECONDS": "SCHNAPSEN_ABANDONED_AFTER_SECONDS",
    "SWEEP_SECONDS": "SCHNAPSEN_SWEEP_SECONDS",
    "STRAY_SCAN_SECONDS": "SCHNAPSEN_STRAY_SCAN_SECONDS",
    "PLAYERS_PER_CLIENT": "SCHNAPSEN_PLAYERS_PER_CLIENT",
    "SEEK_ALIVE_SECONDS": "SCHNAPSEN_SEEK_ALIVE_SECONDS",
    "SEEK_WINDOW_START": "SCHNAPSEN_SEEK_WINDOW_START",
    "SEEK_WINDOW_WIDENING": "SCHNAPSEN_SEEK_WINDOW_WIDENING",
    "SEEK_WINDOW_WIDEST": "SCHNAPSEN_SEEK_WINDOW_WIDEST",
    "SEEKS_PER_CLIENT": "SCHNAPSEN_SEEKS_PER_CLIENT",
    "SEEK_RECORD_SECONDS": "SCHNAPSEN_SEEK_RECORD_SECONDS",
    "CHALLENGE_SECONDS": "SCHNAPSEN_CHALLENGE_SECONDS",
    "CHALLENGE_RECORD_SECONDS": "SCHNAPSEN_CHALLENGE_RECORD_SECONDS",
    "CHALLENGE_RECORDS_PER_PLAYER": "SCHNAPSEN_CHALLENGE_RECORDS_PER_PLAYER",
    "IDEMPOTENCY_SECONDS": "SCHNAPSEN_IDEMPOTENCY_SECONDS",
    "WEBHOOKS_PER_CLIENT": "SCHNAPSEN_WEBHOOKS_PER_CLIENT",
    "WEBHOOK_ALLOW_ADDRESSES": "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES",
    "WEBHOOK_RETRY_SECONDS": "SCHNAPSEN_WEBHOOK_RETRY_SECONDS",
    "WEBHOOK_TIMEOUT_SECONDS": "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS",
    "WEBHOOK_DISABLE_AFTER": "SCHNAPSEN_WEBHOOK_DISABLE_AFTER",
    "WEBHOOK_REDELIVERIES_PER_APP": "SCHNAPSEN_WEBHOOK_REDELIVERIES_PER_APP",
    "LOG_LEVEL": "SCHNAPSEN_LOG_LEVEL",
    "CORS_ORIGINS": "SCHNAPSEN_CORS_ORIGINS",
    "READINESS_TIMEOUT_SECONDS": "SCHNAPSEN_READINESS_TIMEOUT_SECONDS",
    "METRICS_MULTIPROC_DIR": "PROMETHEUS_MULTIPROC_DIR",
}


class SettingError(ValueError):
    """A setting's variable holds no value of the setting's kind: the process refuses to
    start, naming the variable, rather than fail on the first request that reads it."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A process's settings, one typed attribute per key of ``DEFAULTS`` (lower case).

    Built once when a process starts (``from_env``) and handed down; read-only.
    """

    redis_url: str | None
    queue_redis_url: str | None
    replica_acks: int
    replica_ack_timeout_ms: int
    secret_key: str | None
    max_content_length: int
    body_timeout_seconds: float
    connections_per_address: int
    long_poll_max_seconds: float
    sse_max_seconds: float
    sse_heartbeat_seconds: float
    max_waiting: int
    max_waiting_per_address: int
    max_waiting_per_client: int
    max_waiting_per_game: int
    bot_budget_ms: int
    bot_delay_ms: int
    bot_service_max_budget_ms: int
    job_wait_max_seconds: float
    rate_limit_per_token: int
    rate_limit_per_ip: int
    rate_limit_per_client: int
    games_per_client_per_hour: int
    games_per_address_per_hour: int
    bot_moves_per_client_per_minute: int
    decision_ms_per_caller: int
    decisions_per_caller: int
    export_jobs_per_caller_per_hour: int
    export_queue_max_jobs: int
    decision_queue_max_jobs: int
    anonymous_clients: bool
    proxy_hops: int
    turn_timeout_seconds: float
    redis_timeout_seconds: float
    redis_pool_size: int
    data_dir: str
    redis_maxmemory: str | None
    archive_url: str | None
    archive_grace_seconds: float
    abandoned_after_seconds: float
    sweep_seconds: float
    stray_scan_seconds: float
    players_per_client: int
    seek_alive_seconds: float
    seek_window_start: float
    seek_window_widening: float
    seek_window_widest: float
    seeks_per_client: int
    seek_record_seconds: int
    challenge_seconds: float
    challenge_record_seconds: int
    challenge_records_per_player: int
    idempotency_seconds: int
    webhooks_per_client: int
    webhook_allow_addresses: str
    webhook_retry_seconds: str
    webhook_timeout_seconds: float
    webhook_disable_after: int
    webhook_redeliveries_per_app: int
    log_level: str
    cors_origins: str
    readiness_timeout_seconds: float
    metrics_multiproc_dir: str | None

    def overridden(self, values: Mapping[str, Any]) -> Settings:
        """These settings with ``values`` (keyed as ``DEFAULTS``) in place of their own;
        keys that name no setting are left out (``create_app`` gives them to Flask)."""
        return replace(
            self, **{key.lower(): value for key, value in values.items() if key in DEFAULTS}
        )

    def as_config(self) -> dict[str, Any]:
        """Keyed as ``DEFAULTS``: the app's Flask config (Flask reads
        ``MAX_CONTENT_LENGTH`` there)."""
        return {key: getattr(self, key.lower()) for key in DEFAULTS}


#: Words a yes-or-no setting may be given in.
_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")


def from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings from ``environ`` (default: the process environment).

    Raises ``SettingError`` naming the variable when one holds no value of its
    setting's kind (a word for a number, a fraction for a count).
    """
    environ = dict(os.environ if environ is None else environ)
    values = {key.lower(): default for key, default in DEFAULTS.items()}
    for key, variable in ENVIRONMENT.items():
        raw = environ.get(variable)
        if raw is None or raw == "":
            continue
        values[key.lower()] = _parsed(variable, raw, DEFAULTS[key])
    return Settings(**values)


def _parsed(variable: str, raw: str, default: Any) -> Any:
    """``raw`` read as a value of ``default``'s kind."""
    if isinstance(default, bool):
        word = raw.strip().lower()
        if word in _YES or word in _NO:
            return word in _YES
        raise SettingError(f"{variable} is {raw!r}: give 1 or 0 (true or false, yes or no)")
    try:
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        kind = "a whole number" if isinstance(default, int) else "a number"
        raise SettingError(f"{variable} is {raw!r}: give {kind}") from None
    return raw


def redis_url(settings: Settings) -> str:
    """The event log's Redis: ``REDIS_URL``, else ``DEFAULT_REDIS_URL``."""
    return settings.redis_url or DEFAULT_REDIS_URL


def queue_redis_url(settings: Settings) -> str | None:
    """The queues' Redis: ``QUEUE_REDIS_URL``, else the event log's when that is no cluster.

    None: the log is on a Redis Cluster and no plain Redis is named for RQ.
    """
    # Imported here: gunicorn's worker class reads these settings before gevent patches
    # the standard library, and the redis package must not be imported that early.
    from service.store.redis_clients import is_cluster

    if settings.queue_redis_url:
        return settings.queue_redis_url
    if is_cluster(redis_url(settings)):
        return None
    return redis_url(settings)


def redis_maxmemory(settings: Settings) -> int:
    """The bytes the run command's embedded Redis may hold (0: no limit).

    ``REDIS_MAXMEMORY`` when set ("1073741824", "512mb", "2gb"), else a quarter
    of the machine's memory, at most ``EMBEDDED_REDIS_MAXMEMORY_CAP``: the data
    of a local run never grows until the kernel kills Redis, which would lose
    what its append-only file had not written yet. Raises ``ValueError`` for a
    value that is no size.
    """
    raw = settings.redis_maxmemory
    if raw is None:
        return min(machine_memory() // 4, EMBEDDED_REDIS_MAXMEMORY_CAP)
    match = re.fullmatch(r"\s*(\d+)\s*([kmg]?b)?\s*", str(raw).lower())
    if match is None:
        raise ValueError(
            f"SCHNAPSEN_REDIS_MAXMEMORY is {raw!r}: give bytes, or a number with kb, mb or gb"
        )
    return int(match.group(1)) * _MEMORY_UNITS[match.group(2) or ""]


def machine_memory() -> int:
    """The machine's physical memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
