"""A client app as the service knows it, and as the database keeps it.

Apart from the registry (``service.store.clients``) and the database's records
(``service.store.app_records``), which both speak of them: the registry reads
the records, and the records need no registry.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClientApp:
    """A registered client app; never holds its key."""

    id: str
    name: str
    created: float
    revoked: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "created": self.created, "revoked": self.revoked}


@dataclass(frozen=True, slots=True)
class StoredApp:
    """An app as the database keeps it: the app, and the SHA-256 of its key."""

    app: ClientApp
    fingerprint: str


__all__ = ["ClientApp", "StoredApp"]
