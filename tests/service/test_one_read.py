"""OneRead: the waiters of a game that wake together share one read of the log."""

from __future__ import annotations

import threading

import pytest

from service.live.watcher import OneRead
from tests.support.waiting import wait_until


def test_concurrent_readers_of_one_key_share_the_first_read():
    shared: OneRead[int] = OneRead()
    started, release = threading.Event(), threading.Event()
    reads, answers = [], []

    def read() -> int:
        reads.append(1)
        started.set()
        release.wait(5)
        return 42

    first = threading.Thread(target=lambda: answers.append(shared.get("k", read)))
    first.start()
    assert started.wait(5)
    others = [
        threading.Thread(target=lambda: answers.append(shared.get("k", read))) for _ in range(5)
    ]
    for thread in others:
        thread.start()
    wait_until(lambda: shared.followers("k") == 5, timeout=5, what="five readers waiting")
    release.set()
    for thread in [first, *others]:
        thread.join(5)
    assert answers == [42] * 6
    assert len(reads) == 1
    assert shared.followers("k") == 0


def test_a_failed_read_fails_its_waiters_and_the_next_caller_reads_afresh():
    shared: OneRead[int] = OneRead()
    with pytest.raises(ZeroDivisionError):
        shared.get("k", lambda: 1 // 0)
    assert shared.get("k", lambda: 7) == 7


def test_waiting_slots_are_taken_to_the_bound_and_given_back():
    from service.live.watcher import WaitingSlots

    slots = WaitingSlots(2)
    assert slots.take() and slots.take()
    assert not slots.take()  # full: refused at once, nothing waits
    slots.give_back()
    assert slots.free == 1 and slots.take()
    slots.give_back()
    slots.give_back()
    with pytest.raises(ValueError):
        slots.give_back()  # one more than was taken
