"""The answers of keyed requests that start a job (hints, exports, analysis, bot moves).

Game commands keep their Idempotency-Key in the game's own log record (one
append writes the events and the key, see ``service.store.events``). A request
whose effect is a job has no log to write: its first answer is kept here,
one Redis string per (scope, key), for ``SCHNAPSEN_IDEMPOTENCY_SECONDS``, and a retry
reads it back instead of starting another job.

A request claims its key before it runs (``SET NX`` of a pending record)
so that a retry arriving while the original still runs starts nothing: it
is told to retry shortly. A refused or failed request gives its claim back,
and a claim whose process died expires after ``pending_seconds``.

An answer that names a player (a registration: its id, name and token) is
kept with that player as its owner: ``sch:answers-of:<digest>``, a set of the
owner's answers' Redis keys, lasts as long as the newest of them, so that the
player's erasure deletes them (``forget_owner``) without knowing the keys the
callers sent, which the service keeps nowhere else.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from service.store.events import IDEMPOTENCY_TTL, PREFIX
from service.store.redis_clients import AnyRedis

# Deletes the pending record only if it is still this request's claim.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """An answer as it was sent: status, body and the headers a retry needs again."""

    status: int
    body: str
    headers: dict[str, str]


@dataclass(frozen=True, slots=True)
class Claim:
    """A request's hold on its key while it runs."""

    record: str
    pending: str


@dataclass(frozen=True, slots=True)
class Seen:
    """The key was used before: by the same request (``answer``, or still running) or not."""

    same_request: bool
    answer: StoredAnswer | None


class StoredAnswers:
    """First answers of keyed requests, by scope and key."""

    def __init__(self, client: AnyRedis, *, keep_seconds: int = IDEMPOTENCY_TTL):
        self.redis = client
        #: How long a first answer is kept (``SCHNAPSEN_IDEMPOTENCY_SECONDS``): it may
        #: carry a token, so no longer than its retries need it.
        self.keep_seconds = keep_seconds
        self._release = client.register_script(_RELEASE)

    def claim(
        self, scope: str, key: str, fingerprint: str, *, pending_seconds: int
    ) -> Claim | Seen:
        """Hold the key for this request, or say what holds it already."""
        record = _record(scope, key)
        pending = json.dumps({"pending": secrets.token_hex(8), "fingerprint": fingerprint})
        for _attempt in range(3):
            if self.redis.set(record, pending, nx=True, ex=pending_seconds):
                return Claim(record, pending)
            raw = self.redis.get(record)
            if raw is None:  # given back or expired between the two calls: claim again
                continue
            stored = json.loads(raw)
            if stored["fingerprint"] != fingerprint:
                return Seen(same_request=False, answer=None)
            if "pending" in stored:
                return Seen(same_request=True, answer=None)
            return Seen(True, StoredAnswer(stored["status"], stored["body"], stored["headers"]))
        return Seen(same_request=True, answer=None)

    def keep(
        self, claim: Claim, answer: StoredAnswer, fingerprint: str, *, owner: str | None = None
    ) -> None:
        """Remember ``answer`` as the key's first answer; ``owner``: the player it names.

        The owner's list is written first, so an erasure that reads it finds every
        answer kept by then (one whose list failed to be written is not kept at all).
        """
        if owner is not None:
            owned = _owned(owner)
            self.redis.sadd(owned, claim.record)
            self.redis.expire(owned, self.keep_seconds)
        record = {
            "fingerprint": fingerprint,
            "status": answer.status,
            "body": answer.body,
            "headers": answer.headers,
        }
        self.redis.set(claim.record, json.dumps(record), ex=self.keep_seconds)

    def give_back(self, claim: Claim) -> None:
        """The request was refused or failed: the key is free for its retry."""
        self._release(keys=[claim.record], args=[claim.pending])

    def forget_owner(self, owner: str) -> int:
        """Delete every kept answer naming ``owner`` (an erased player): a retry of
        its request is then a new request. How many answers were deleted."""
        owned = _owned(owner)
        records = self.redis.smembers(owned)
        deleted = sum(int(self.redis.delete(record)) for record in records)
        self.redis.delete(owned)
        return deleted


def player_owner(app: str, player_id: str) -> str:
    """The owner of the answers that name one player of an app."""
    return f"player:{app}:{player_id}"


def _owned(owner: str) -> str:
    """The Redis key of the set of an owner's answers (hashed like the answers' keys)."""
    digest = hashlib.sha256(owner.encode()).hexdigest()[:32]
    return f"{PREFIX}:answers-of:{digest}"


def _record(scope: str, key: str) -> str:
    """The record's Redis key: hashed, since a scope may hold an address or a token's hash."""
    digest = hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()[:32]
    return f"{PREFIX}:answer:{digest}"


def fingerprint(request_parts: Any) -> str:
    """A request's identity: its method, path, query and body, as JSON."""
    return hashlib.sha256(json.dumps(request_parts, sort_keys=True).encode()).hexdigest()
