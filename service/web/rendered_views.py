"""The answers of recent game views, as sent, so a view asked again is not rendered again.

A seat's view of a game at a version is a fact: the same game (the very state
and seats record this process holds, ``service.live.memory``), the same seat,
the same invite give the same answer, byte for byte. Clients that wait for the
other side ask for the view again and again while nothing changes, and an
action's answer is often asked for again by the same seat; rendering the
observation and encoding its JSON were a fifth of such a view's CPU.

Kept only for what a view shows of the game alone: a view with a clock (its
reading moves with time) or a rematch offer (it changes at the same version)
is rendered every time. A hit needs the very ``Current`` the answer was
rendered from, not just its version: a seats record that changed at the same
version (an erased player) is another object, and renders anew. Bounded:
the least recently used answers go first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.game.values import Current
from service.live.watcher import Recent

#: Answers kept per process (a few KiB each at most).
RENDERED_VIEWS = 2_000


@dataclass(frozen=True, slots=True)
class _Rendered:
    current: Current
    invite: str | None
    text: str


class RenderedViews:
    """The JSON text of recent views, by game, version and seat (``None``: a spectator)."""

    def __init__(self, size: int = RENDERED_VIEWS) -> None:
        self._recent: Recent[_Rendered] = Recent(size)

    def text(
        self,
        current: Current,
        seat: int | None,
        invite: str | None,
        render: Callable[[], str | None],
    ) -> str | None:
        """The answer's text of ``seat``'s view of ``current`` with ``invite``: kept, or
        ``render()``ed and kept (None from ``render``: not to be kept, and answered so)."""
        key = (current.game_id, current.version, seat)
        kept = self._recent.get(key)
        if kept is not None and kept.current is current and kept.invite == invite:
            return kept.text
        text = render()
        if text is not None:
            self._recent.put(key, _Rendered(current, invite, text))
        return text


__all__ = ["RENDERED_VIEWS", "RenderedViews"]
