-- The archived games: one row each, written once (service/store/archive.py).
CREATE TABLE games (
    game_id    TEXT    PRIMARY KEY,
    client_id  TEXT,
    variant    TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    created_ms INTEGER NOT NULL,
    ended_ms   INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    digest     BLOB    NOT NULL
);
-- A client's games, newest first: listing and export walk this index by keyset.
CREATE INDEX games_by_client ON games (client_id, created_ms DESC, game_id DESC);
