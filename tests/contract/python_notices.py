"""A webhook receiver's reading of notices with the client openapi-python-client generates
from openapi.yaml (package ``schnapsen_client``): each body becomes the model of its kind,
chosen by ``type``, and turns back into exactly the JSON it came from.

tests/contract/test_studio_flow.py checks it with ``mypy --strict`` and runs it on
every notice a receiver got: ``python python_notices.py <notices.json>`` prints one
line per kind with how many were read.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from schnapsen_client.models import (
    ChallengeAcceptedNotice,
    GameFinishedNotice,
    GameStartedNotice,
    GameStatus,
    GameTurnNotice,
    NoticeKind,
    RematchOfferedNotice,
    SeekPairedNotice,
)

Notice = (
    GameStartedNotice
    | GameTurnNotice
    | GameFinishedNotice
    | SeekPairedNotice
    | ChallengeAcceptedNotice
    | RematchOfferedNotice
)
MODELS: dict[NoticeKind, type[Notice]] = {
    NoticeKind.GAME_STARTED: GameStartedNotice,
    NoticeKind.GAME_TURN: GameTurnNotice,
    NoticeKind.GAME_FINISHED: GameFinishedNotice,
    NoticeKind.SEEK_PAIRED: SeekPairedNotice,
    NoticeKind.CHALLENGE_ACCEPTED: ChallengeAcceptedNotice,
    NoticeKind.REMATCH_OFFERED: RematchOfferedNotice,
}


class ContractError(RuntimeError):
    """A notice the generated models do not read as it was sent."""


def read(body: dict[str, object]) -> Notice:
    """The typed notice of a delivery's JSON body, by its ``type``."""
    kind = NoticeKind(str(body["type"]))
    notice = MODELS[kind].from_dict(body)
    if notice.to_dict() != body:
        raise ContractError(f"{kind.value} does not round-trip: {notice.to_dict()} != {body}")
    return notice


def main(argv: list[str]) -> int:
    bodies: list[dict[str, object]] = json.loads(Path(argv[0]).read_text())
    counts: Counter[str] = Counter()
    for body in bodies:
        notice = read(body)
        if (
            isinstance(notice, GameFinishedNotice)
            and notice.data.game.status != GameStatus.FINISHED
        ):
            raise ContractError(f"a game.finished notice of a game {notice.data.game.status}")
        if isinstance(notice, GameTurnNotice) and notice.data.game.to_move != notice.data.seat:
            raise ContractError("a game.turn notice for a seat not to move")
        counts[notice.type_.value] += 1
    for kind, count in sorted(counts.items()):
        print(f"{kind}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
