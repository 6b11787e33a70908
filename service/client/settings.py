"""The terminal client's settings, read once from its environment when it starts.

The client is its own program (it imports no server code), so it has its
own few settings: where the service is, a seat's token, where the last game
is remembered, whether to colour, and the language it speaks. ``cli.main`` reads them once and hands
them down; nothing else of the client reads the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from service.client.addresses import service_url
from service.client.words import Language, UnknownLanguage, language


@dataclass(frozen=True, slots=True)
class ClientSettings:
    #: The service: ``SCHNAPSEN_URL``, else where the run command listens
    #: (``SCHNAPSEN_HOST``, ``SCHNAPSEN_PORT``), else http://127.0.0.1:8000.
    url: str
    #: A seat's token for ``--resume``, ``replay`` and ``analyse`` (``SCHNAPSEN_TOKEN``).
    token: str | None
    #: The XDG base directory for state (``XDG_STATE_HOME``, else ``~/.local/state``),
    #: where the last game played is remembered.
    state_home: Path
    #: Red suits in colour on a terminal, unless ``NO_COLOR`` is set (no-color.org).
    color: bool
    #: The language of what the client writes (``SCHNAPSEN_LANG``: ``de``, ``de_AT.UTF-8``,
    #: ``en``...; English when unset); ``--lang`` chooses for one command.
    language: Language

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ClientSettings:
        """The settings of ``environ`` (default: this process's environment).

        Raises ``UnknownLanguage`` when ``SCHNAPSEN_LANG`` names no language of the client.
        """
        env = os.environ if environ is None else environ
        asked = env.get("SCHNAPSEN_LANG") or Language.ENGLISH.value
        try:
            chosen = language(asked)
        except UnknownLanguage as error:
            raise UnknownLanguage(f"SCHNAPSEN_LANG: {error}") from None
        state = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")) / ".local/state")
        return cls(
            url=service_url(env),
            token=env.get("SCHNAPSEN_TOKEN"),
            state_home=Path(state).expanduser(),
            color="NO_COLOR" not in env,
            language=chosen,
        )


__all__ = ["ClientSettings"]
