-- Arenas (service/store/tournament_records.py): a tournament played for a fixed time
-- rather than a fixed number of rounds ends at ends_ms (null for a Swiss). Each arena
-- pairing is a row of tournament_rounds, claimed once as a Swiss round is.
ALTER TABLE tournaments ADD COLUMN ends_ms INTEGER;
