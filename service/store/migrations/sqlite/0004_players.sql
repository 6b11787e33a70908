-- The players of client apps, their ratings, rating history and games
-- (service/store/player_records.py): the store of record, no cap on either list.
-- A player's token is kept only as its SHA-256; a new registration replaces it.
CREATE TABLE players (
    player_id     TEXT PRIMARY KEY,
    app           TEXT NOT NULL,
    app_player_id TEXT NOT NULL,
    name          TEXT NOT NULL,
    created       REAL NOT NULL,
    token_sha256  TEXT NOT NULL UNIQUE,
    rating        REAL NOT NULL,
    deviation     REAL NOT NULL,
    volatility    REAL NOT NULL,
    games         INTEGER NOT NULL,
    on_board      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (app, app_player_id)
);
-- The leaderboard: an app's players with the rated games it asks for (on_board), best first.
CREATE INDEX players_board ON players (app, rating DESC, player_id DESC) WHERE on_board = 1;
-- One row per rated game: its mark. counted 1: its ratings were written; 0: its pair
-- of players had had its counted games within the pair's window (RX8). A pair's
-- counted games within the window are a count of this table.
CREATE TABLE rated_games (
    game_id TEXT PRIMARY KEY,
    app     TEXT NOT NULL,
    at_ms   INTEGER NOT NULL,
    pair    TEXT,
    counted INTEGER NOT NULL
);
CREATE INDEX rated_games_by_pair ON rated_games (app, pair, at_ms) WHERE counted = 1;
-- One row per rated game and player: the unique key is what makes a game's rating
-- written once, whoever writes it and however often.
CREATE TABLE rating_changes (
    game_id   TEXT NOT NULL,
    player_id TEXT NOT NULL,
    app       TEXT NOT NULL,
    at_ms     INTEGER NOT NULL,
    entry     TEXT NOT NULL,
    PRIMARY KEY (game_id, player_id)
);
-- A player's history, newest first, walked by keyset (at_ms, game_id).
CREATE INDEX rating_changes_by_player ON rating_changes (player_id, at_ms DESC, game_id DESC);
-- Each player's games, by start, walked by keyset (started_ms, game_id).
CREATE TABLE player_games (
    player_id  TEXT NOT NULL,
    game_id    TEXT NOT NULL,
    app        TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    PRIMARY KEY (player_id, game_id)
);
CREATE INDEX player_games_newest ON player_games (player_id, started_ms DESC, game_id DESC);
