"""Redis: the per-game event log, client keys, stored answers, exports and analyses, counters."""
