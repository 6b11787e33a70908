"""The base of the engine's notation enums: a member prints as its value and hashes by identity."""

from __future__ import annotations

from enum import Enum


class Word(Enum):
    """An enum whose members are the contract's words: ``str(member)`` is its value.

    Every member exists once, so it hashes by identity: the default Enum hash
    is a Python-level call on the hot path of set and dict look-ups.
    """

    def __str__(self) -> str:
        return str(self.value)

    __hash__ = object.__hash__
