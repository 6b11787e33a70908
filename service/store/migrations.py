"""The archive's schema, as numbered SQL files applied in order, each once.

``migrations/<dialect>/NNNN_<what>.sql``: a back end records the numbers it
applied in its ``schema_migrations`` table and applies the rest, in one
transaction each, when it opens. A file, once shipped, never changes; a
change to the schema is a new file.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files


@dataclass(frozen=True, slots=True)
class Migration:
    number: int
    name: str
    sql: str


def migrations(dialect: str) -> list[Migration]:
    """Every migration of ``dialect`` ("sqlite" or "postgres"), in order."""
    folder = files("service.store") / "migrations" / dialect
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            number, _, name = entry.name.removesuffix(".sql").partition("_")
            found.append(Migration(int(number), name, entry.read_text()))
    return sorted(found, key=lambda m: m.number)


def pending(dialect: str, applied: set[int]) -> list[Migration]:
    """The migrations of ``dialect`` not yet applied, in order."""
    return [m for m in migrations(dialect) if m.number not in applied]
