"""Built replay exports in Redis, each kept an hour under its own key: a short cache.

A built export is stored once per game, version, visibility and format (its id
names the four), so asking again, or rebuilding, never adds a second copy.

An export is a pure function of the game, built in milliseconds from Redis or
the archive (the same bytes from either), and a client downloads it right
after its job ends. Kept for days, every export asked for would hold its bytes
in Redis's memory all that time; Redis holds what is live. So it is kept an
hour (``EXPORT_TTL``), and an export asked for later is built again, with the
same id and the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.store.events import PREFIX
from service.store.redis_clients import AnyRedis

#: Replay exports are kept this long (seconds): long enough to download, short enough
#: to cost Redis no memory for days.
EXPORT_TTL = 3600


@dataclass(frozen=True, slots=True)
class StoredExport:
    """A built replay export with what a download needs."""

    export_id: str
    game_id: str
    viewer: int | None
    export_format: str
    content_type: str
    sha256: str
    body: bytes

    def meta(self) -> dict[str, Any]:
        return {
            "export_id": self.export_id,
            "game_id": self.game_id,
            "viewer": self.viewer,
            "format": self.export_format,
            "content_type": self.content_type,
            "sha256": self.sha256,
            "bytes": len(self.body),
            "url": f"/v1/exports/{self.export_id}",
        }


class ExportStore:
    """Built exports in Redis (``sch:export:{<id>}``), kept for ``EXPORT_TTL``.

    One per game, version, visibility and format: the id names the four
    (``service.jobs.queues.export_id_for``), so a rebuild overwrites, never adds.
    """

    def __init__(self, client: AnyRedis):
        self.redis = client

    def save(self, export: StoredExport) -> None:
        fields = {
            "game_id": export.game_id,
            "viewer": "" if export.viewer is None else str(export.viewer),
            "format": export.export_format,
            "content_type": export.content_type,
            "sha256": export.sha256,
            "body": export.body,
        }
        key = _export_key(export.export_id)
        with self.redis.pipeline() as pipe:
            pipe.hset(key, mapping=fields)
            pipe.expire(key, EXPORT_TTL)
            pipe.execute()

    def exists(self, export_id: str) -> bool:
        """Whether the export is stored (a request for it then needs no new build)."""
        return bool(self.redis.exists(_export_key(export_id)))

    def delete(self, export_ids: list[str]) -> None:
        """Drop built exports (a game's seats changed since: its player was erased)."""
        if export_ids:
            for export_id in export_ids:  # one key each: its own slot on a cluster
                self.redis.delete(_export_key(export_id))

    def load(self, export_id: str) -> StoredExport | None:
        raw = self.redis.hgetall(_export_key(export_id))
        if not raw:
            return None
        viewer = raw[b"viewer"].decode()
        return StoredExport(
            export_id=export_id,
            game_id=raw[b"game_id"].decode(),
            viewer=int(viewer) if viewer else None,
            export_format=raw[b"format"].decode(),
            content_type=raw[b"content_type"].decode(),
            sha256=raw[b"sha256"].decode(),
            body=raw[b"body"],
        )


def _export_key(export_id: str) -> str:
    return f"{PREFIX}:export:{{{export_id}}}"
