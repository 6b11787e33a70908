-- Tournaments (service/store/tournament_records.py): a tournament, its entries, its
-- rounds, each round's boards (the games) and its standings, kept for good.
-- A round's row is its one claim: whoever inserts it pairs the round; its seed names
-- the round's games, so pairing again after a crash makes the same games.
CREATE TABLE tournaments (
    tournament_id TEXT PRIMARY KEY,
    app           TEXT NOT NULL,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    variant       TEXT NOT NULL,
    clock         TEXT,
    rounds        INTEGER NOT NULL,
    starts_ms     INTEGER NOT NULL,
    created_ms    INTEGER NOT NULL,
    status        TEXT NOT NULL,
    round         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tournaments_by_app ON tournaments (app, starts_ms DESC, tournament_id DESC);
-- Who entered: withdrawn_ms set once they left (they keep their results).
CREATE TABLE tournament_entries (
    tournament_id TEXT NOT NULL,
    player_id     TEXT NOT NULL,
    rating        REAL NOT NULL,
    joined_ms     INTEGER NOT NULL,
    withdrawn_ms  INTEGER,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_entries_by_player ON tournament_entries (player_id, joined_ms DESC, tournament_id DESC);
CREATE TABLE tournament_rounds (
    tournament_id TEXT NOT NULL,
    round         INTEGER NOT NULL,
    seed          TEXT NOT NULL,
    paired_ms     INTEGER NOT NULL,
    bye           TEXT,
    PRIMARY KEY (tournament_id, round)
);
CREATE TABLE tournament_boards (
    tournament_id TEXT NOT NULL,
    round         INTEGER NOT NULL,
    board         INTEGER NOT NULL,
    game_id       TEXT NOT NULL UNIQUE,
    dealer        TEXT NOT NULL,
    forehand      TEXT NOT NULL,
    winner        TEXT,
    PRIMARY KEY (tournament_id, round, board)
);
-- The standings as last computed from the boards' results; always their recomputation.
CREATE TABLE tournament_standings (
    tournament_id    TEXT NOT NULL,
    player_id        TEXT NOT NULL,
    rank             INTEGER NOT NULL,
    points           INTEGER NOT NULL,
    buchholz         INTEGER NOT NULL,
    sonneborn_berger INTEGER NOT NULL,
    wins             INTEGER NOT NULL,
    games            INTEGER NOT NULL,
    byes             INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_standings_by_rank ON tournament_standings (tournament_id, rank);
